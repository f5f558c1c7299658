"""A Markdown summary for CI step summaries and pull-request comments: a header that says which
contract and release it is about, per-object counts, the rules that need attention first, the
passed rules folded in `<details>`, and never more than GitHub accepts for one step summary."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from packata_sql.render.neutral import markdown, markdown_code
from packata_sql.render.words import (
    description,
    duration,
    expectation_shown,
    headline,
    history_notes,
    identity,
    inspect_hint,
    label,
    nothing_executed,
    ordered,
    per_object,
    problem_lines,
    row_diagnostic,
    runs_text,
    status_word,
    value_text,
)
from packata_sql.report import Report, RuleResult, Status

#: GitHub's limit for one step's `$GITHUB_STEP_SUMMARY` (1 MiB, counted in bytes); a longer
#: summary is refused whole, so the renderer cuts what matters least first.
STEP_SUMMARY_LIMIT = 1024 * 1024
#: Room kept for the truncation note and the tables' and folds' fixed lines.
_RESERVE = 2048
_ROW_HEAD = ["| status | rule | value | why |", "|---|---|---|---|"]
_NBSP = "\u00a0"


def _rule_cell(report: Report, result: RuleResult) -> str:
    """The label, the key when it differs, a SQL rule's description, its history notes and a
    failed rule's `inspect:` hint, one table cell."""
    cell = markdown(label(result))
    if label(result) != result.key:
        cell += f"<br>{markdown_code(result.key, in_table=True)}"
    said = description(result)
    if said:
        cell += f"<br>*{markdown(said)}*"
    notes = history_notes(report, result)
    if notes:
        cell += f"<br>**{markdown(' · '.join(notes))}**"
    hint = inspect_hint(result)
    if hint:
        cell += f"<br>{markdown_code(hint, in_table=True)}"
    return cell


@dataclass
class _Budget:
    """Bytes left, and what each section had to leave out."""

    left: int
    cut: Counter[str] = field(default_factory=Counter)

    def take(self, section: str, items: list[tuple[str, list[str]]]) -> list[list[str]]:
        """The items (each a kind and its lines) that fit, in order; the first that does not
        fit and everything after it are counted as cut."""
        kept: list[list[str]] = []
        for index, (_kind, lines) in enumerate(items):
            size = sum(len(line.encode("utf-8")) + 1 for line in lines)
            if size > self.left:
                self.cut.update(f"{section}:{k}" for k, _ in items[index:])
                break
            self.left -= size
            kept.append(lines)
        return kept


def _unbroken(text: str) -> str:
    """Markdown has no `nowrap`: a value's spaces become non-breaking, except after the commas
    between the items of a list (a drift's changes), where it may wrap."""
    return ", ".join(part.replace(" ", _NBSP) for part in text.split(", "))


def _row(report: Report, result: RuleResult) -> str:
    """One rule: its value kept on one line (non-breaking spaces) and the expectation once,
    under it."""
    rule = _rule_cell(report, result)
    value = _unbroken(markdown(value_text(result)))
    expected = expectation_shown(result)
    if expected:
        value += ("<br>" if value else "") + "expected " + markdown(expected)
    cells = (markdown(status_word(result)), rule, value, markdown(row_diagnostic(result)))
    return "| " + " | ".join(cells) + " |"


def _header(report: Report) -> list[str]:
    lines = [f"### packata-sql · {markdown(report.contract)}", "",
             f"**{markdown(headline(report))}**", ""]
    facts = [f"{word} {markdown_code(value)}" if word != "packata-sql" else f"{word} {value}"
             for word, value in identity(report)]
    facts += [f"target {markdown_code(report.target)}",
              f"read-only: {markdown(report.read_only or 'not connected')}"]
    if report.elapsed_ms is not None:
        facts.append(f"duration {duration(report)}")
    if report.history is not None:
        facts.append(f"history {runs_text(len(report.history.runs))} in "
                     f"{markdown_code(report.history.store)}")
    lines += [" · ".join(facts), ""]
    why_not = nothing_executed(report)
    if why_not:
        lines += [f"> incomplete: {markdown(why_not)}", ""]
    lines += [f"> error: {markdown(line)}" for line in problem_lines(report)]
    if report.grouped_errors:
        lines.append("")
    return lines


def _object_counts(report: Report) -> list[tuple[str, list[str]]]:
    return [("object", [f"| {markdown(name)} | {sum(row.values())} | "
                        + " | ".join(str(row[s.value]) for s in Status) + " |"])
            for name, row in per_object(report).items()]


def _truncation(cut: Counter[str], total: int) -> list[str]:
    """What was left out, by section and status: the reader knows exactly what is missing."""
    if not cut:
        return []
    rules = Counter({k.split(":", 1)[1]: n for k, n in cut.items() if k.startswith("rule:")})
    parts = [", ".join(f"{n} {status}" for status, n in rules.items()) + " rule rows"
             ] if rules else []
    for section, words in (("object", "object count rows"), ("finding", "findings")):
        count = sum(n for k, n in cut.items() if k.startswith(section + ":"))
        if count:
            parts.append(f"{count} {words}")
    limit = ("GitHub's 1 MiB step summary limit" if total == STEP_SUMMARY_LIMIT
             else f"the limit of {total} bytes")
    return [f"> **truncated** to stay within {limit}; not shown: {'; '.join(parts)}. "
            "The JSON or HTML report "
            "(`--output json=FILE`, `--output html=FILE`) holds every rule.", ""]


def render_markdown(report: Report, *, limit: int = STEP_SUMMARY_LIMIT) -> str:
    """Every contract- or database-controlled string goes through render/neutral.py: no raw
    HTML, comment opener, link, image or table pipe from a declaration reaches the page. The
    text never exceeds `limit` bytes of UTF-8: after the header and the per-object counts, the
    rules that need attention come first, then findings and passed rows, each kept while it
    fits, and a note at the top says what was cut. A failed rule carries its one-line
    `inspect:` hint; the whole triage query stays in JSON and under `-v`."""
    head = _header(report)
    budget = _Budget(limit - _RESERVE - sum(len(line.encode("utf-8")) + 1 for line in head))
    rows = ordered(report.results)
    objects = budget.take("object", _object_counts(report))  # one short line per object
    attention = budget.take("rule", [(r.status.value, [_row(report, r)]) for r in rows
                                     if r.status is not Status.PASSED])
    notes = budget.take("finding", [
        ("finding", [f"- {f.level.value} {markdown_code(f.code)} at "
                     f"{markdown(f.source_path + (f' (line {f.line})' if f.line else ''))}: "
                     f"{markdown(f.message)}"])
        for f in report.findings if f.level.value == "warning" or f.rule_key is None])
    passed = budget.take("rule", [(r.status.value, [_row(report, r)]) for r in rows
                                  if r.status is Status.PASSED])

    lines = [*head, *_truncation(budget.cut, limit)]
    if objects:
        lines += ["| object | rules | " + " | ".join(s.value for s in Status) + " |",
                  "|---|" + "--:|" * (1 + len(Status)), *(line for item in objects
                                                          for line in item), ""]
    if attention:
        lines += [*_ROW_HEAD, *(line for item in attention for line in item), ""]
    if passed:
        shown = len(passed)
        total = report.summary()[Status.PASSED.value]
        summary = f"{total} passed" + (f", {shown} shown" if shown < total else "")
        lines += [f"<details><summary>{summary}</summary>", "", *_ROW_HEAD,
                  *(line for item in passed for line in item), "", "</details>", ""]
    lines += [line for item in notes for line in item]
    return "\n".join(lines).rstrip("\n") + "\n"

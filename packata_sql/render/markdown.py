"""A Markdown summary for CI step summaries and pull-request comments."""

from __future__ import annotations

from packata_sql.render.neutral import markdown, markdown_code, markdown_fence
from packata_sql.render.words import (
    description,
    duration,
    expected_text,
    headline,
    inspect_hint,
    label,
    nothing_executed,
    ordered,
    status_word,
    value_text,
    why_text,
)
from packata_sql.report import Report, RuleResult


def _rule_cell(result: RuleResult) -> str:
    """The label, the key when it differs, a SQL rule's description and a failed rule's
    `inspect:` hint, one table cell."""
    cell = markdown(label(result))
    if label(result) != result.key:
        cell += f"<br>{markdown_code(result.key, in_table=True)}"
    said = description(result)
    if said:
        cell += f"<br>*{markdown(said)}*"
    hint = inspect_hint(result)
    if hint:
        cell += f"<br>{markdown_code(hint, in_table=True)}"
    return cell


def render_markdown(report: Report) -> str:
    """Every contract- or database-controlled string goes through render/neutral.py: no raw
    HTML, comment opener, link, image or table pipe from a declaration reaches the page."""
    lines = [f"### packata-sql · {markdown(report.contract)}", "",
             f"**{markdown(headline(report))}**", ""]
    facts = [f"target {markdown_code(report.target)}",
             f"read-only: {markdown(report.read_only or 'not connected')}"]
    if report.elapsed_ms is not None:
        facts.append(f"duration {duration(report)}")
    lines += [" · ".join(facts), ""]
    why_not = nothing_executed(report)
    if why_not:
        lines += [f"> incomplete: {markdown(why_not)}", ""]
    if report.results:
        lines += ["| status | rule | expected | value | why |", "|---|---|---|---|---|"]
        for result in ordered(report.results):
            rule = _rule_cell(result)
            cells = (markdown(status_word(result)), rule, markdown(expected_text(result)),
                     markdown(value_text(result)), markdown(why_text(result)))
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    inspected = [r for r in ordered(report.results) if r.inspect_sql]
    if inspected:
        lines += ["<details><summary>Queries listing the offending keys</summary>", ""]
        for result in inspected:
            lines += [markdown_code(result.key), "", *markdown_fence(result.inspect_sql, "sql"),
                      ""]
        lines += ["</details>", ""]
    notes = [f for f in report.findings if f.level.value == "warning" or f.rule_key is None]
    for finding in notes:
        where = finding.source_path + (f" (line {finding.line})" if finding.line else "")
        lines.append(f"- {finding.level.value} {markdown_code(finding.code)} at "
                     f"{markdown(where)}: {markdown(finding.message)}")
    return "\n".join(lines).rstrip("\n") + "\n"

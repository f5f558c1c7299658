"""A Markdown summary for CI step summaries and pull-request comments."""

from __future__ import annotations

from packata_sql.render.words import (
    duration,
    expected_text,
    headline,
    label,
    nothing_executed,
    ordered,
    status_word,
    value_text,
    why_text,
)
from packata_sql.report import Report


def _cell(text: str) -> str:
    """A table cell: pipes escaped, line breaks kept as <br>."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>")


def render_markdown(report: Report) -> str:
    lines = [f"### packata-sql · {_cell(report.contract)}", "",
             f"**{headline(report)}**", ""]
    facts = [f"target `{report.target}`", f"read-only: {report.read_only or 'not connected'}"]
    if report.elapsed_ms is not None:
        facts.append(f"duration {duration(report)}")
    lines += [" · ".join(facts), ""]
    why_not = nothing_executed(report)
    if why_not:
        lines += [f"> incomplete: {why_not}", ""]
    if report.results:
        lines += ["| status | rule | expected | value | why |", "|---|---|---|---|---|"]
        for result in ordered(report.results):
            rule = label(result) + (f"<br>`{result.key}`" if label(result) != result.key else "")
            cells = (status_word(result), rule,
                     expected_text(result), value_text(result), why_text(result))
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")
    inspected = [r for r in ordered(report.results) if r.inspect_sql]
    if inspected:
        lines += ["<details><summary>Queries listing the offending keys</summary>", ""]
        for result in inspected:
            lines += [f"`{result.key}`", "", "```sql", str(result.inspect_sql), "```", ""]
        lines += ["</details>", ""]
    notes = [f for f in report.findings if f.level.value == "warning" or f.rule_key is None]
    for finding in notes:
        where = finding.source_path + (f" (line {finding.line})" if finding.line else "")
        lines.append(f"- {finding.level.value} `{finding.code}` at {_cell(where)}: "
                     f"{_cell(finding.message)}")
    return "\n".join(lines).rstrip("\n") + "\n"

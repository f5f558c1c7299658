"""A Markdown summary for CI step summaries and pull-request comments."""

from __future__ import annotations

from packata_sql.render.neutral import markdown, markdown_code, markdown_fence
from packata_sql.render.words import (
    duration,
    expected_text,
    headline,
    label,
    nothing_executed,
    ordered,
    problem_lines,
    row_reason,
    status_word,
    value_text,
)
from packata_sql.report import Report


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
    lines += [f"> error: {markdown(line)}" for line in problem_lines(report)]
    if report.grouped_errors:
        lines.append("")
    if report.results:
        lines += ["| status | rule | expected | value | why |", "|---|---|---|---|---|"]
        for result in ordered(report.results):
            rule = markdown(label(result)) + (
                f"<br>{markdown_code(result.key, in_table=True)}"
                if label(result) != result.key else "")
            cells = (markdown(status_word(result)), rule, markdown(expected_text(result)),
                     markdown(value_text(result)), markdown(row_reason(result)))
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

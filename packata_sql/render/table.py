"""The human report: a rich table, colour only when stdout is a terminal."""

from __future__ import annotations

import io
import shutil

from rich.console import Console
from rich.table import Table
from rich.text import Text

from packata_sql.report import Outcome, Report, RuleResult, Status
from packata_sql.values import format_value

_STYLES = {
    Status.PASSED: "green",
    Status.FAILED: "red",
    Status.ERROR: "magenta",
    Status.INCONCLUSIVE: "yellow",
    Status.SKIPPED: "dim",
}
_OUTCOME_STYLES = {Outcome.PASS: "bold green", Outcome.WARN: "bold yellow",
                   Outcome.FAIL: "bold red", Outcome.INCOMPLETE: "bold yellow"}


def _status(result: RuleResult) -> Text:
    label = result.status.value
    if result.status is Status.FAILED and result.severity.value == "warning":
        label = "failed (warning)"
    return Text(label, style=_STYLES[result.status])


def _value(result: RuleResult) -> str:
    if result.value is None:
        return ""
    unit = "%" if result.unit == "percent" else f" {result.unit or ''}"
    return f"{format_value(result.value)}{unit}".rstrip()


def _why(result: RuleResult) -> str:
    if result.status is Status.FAILED:
        return "expected " + " and ".join(result.failed)
    if result.diagnostic is not None:
        return f"{result.diagnostic.code}: {result.diagnostic.message}"
    return ""


def _descriptive(report: Report) -> str:
    """Rules that describe quality (text, custom for other tools) and were not executed."""
    count = report.descriptive_only
    if not count:
        return ""
    rules = "rule is" if count == 1 else "rules are"
    if report.accept_unexecutable:
        return f" · {count} descriptive {rules} accepted unexecuted"
    return (f" · {count} {rules} descriptive only, not executable here"
            " (--accept-unexecutable accepts them)")


def render_table(report: Report, *, color: bool) -> str:
    buffer = io.StringIO()
    width = max(100, shutil.get_terminal_size((120, 24)).columns)
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=width,
                      highlight=False)
    schema = f" · schema: {report.schema}" if report.schema else ""
    table = Table(title=f"packata-sql check · {report.contract}{schema}", title_justify="left",
                  expand=False, show_lines=False)
    table.add_column("status", no_wrap=True)
    table.add_column("rule", overflow="fold")
    table.add_column("severity", no_wrap=True)
    table.add_column("value", justify="right", no_wrap=True)
    table.add_column("why", overflow="fold")
    for result in report.results:
        label = Text(result.key)
        if result.name:
            label.append(f"\n{result.name}", style="dim")
        table.add_row(_status(result), label, result.severity.value, _value(result),
                      Text(_why(result)))
    console.print(table)
    # Rule errors already show as skipped rows; list warnings and contract-level problems.
    notes = [f for f in report.findings if f.level.value == "warning" or f.rule_key is None]
    for finding in notes:
        where = f"{finding.source_path}" + (f" (line {finding.line})" if finding.line else "")
        console.print(Text.assemble((finding.level.value, "yellow"), f" {finding.code} at {where}: ",
                                    finding.message))
    categories = report.summary_by_category()
    if len(categories) > 1:
        for category, summary in categories.items():
            shown = ", ".join(f"{n} {s}" for s, n in summary.items() if n)
            console.print(Text(f"{category}: {shown}"))
    counts = ", ".join(f"{n} {s}" for s, n in report.summary().items() if n)
    outcome = report.outcome
    console.print(Text.assemble(
        (outcome.value.upper(), _OUTCOME_STYLES[outcome]),
        f" · {counts or 'no rules'}{_descriptive(report)} · read-only: {report.read_only or 'not connected'}"
        + (f" · authored SQL: {report.authored_sql}" if report.authored_sql else "")
        + f" · target: {report.target}" + (" · interrupted" if report.interrupted else ""),
    ))
    if report.routes:
        console.print(Text.assemble(("routes", "yellow"),
                                    " the login can escape read-only through: ",
                                    ", ".join(report.routes)))
    return buffer.getvalue()

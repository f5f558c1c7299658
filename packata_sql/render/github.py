"""GitHub Actions workflow commands: one `::error`/`::warning` annotation per rule that did not
pass, placed on the rule's line in the contract, then the summary line."""

from __future__ import annotations

import os

from packata_sql.contracts.model import Finding, Level, Severity
from packata_sql.render.neutral import github_data, github_property, plain
from packata_sql.render.words import (
    description,
    headline,
    history_notes,
    inspect_hint,
    label,
    value_text,
    why_text,
)
from packata_sql.report import Report, RuleResult, Status


def _level(result: RuleResult) -> str | None:
    if result.status is Status.PASSED:
        return None
    if result.status is Status.FAILED:
        return "warning" if result.severity is Severity.WARNING else "error"
    if result.descriptive:
        return "notice"
    return "error"


def _annotated_file(path: str) -> str:
    """GitHub places annotations by a path relative to the workspace (the checkout)."""
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if workspace:
        relative = os.path.relpath(os.path.abspath(path), workspace)
        if not relative.startswith(".."):
            return relative
    return path


def render_github(report: Report) -> str:
    lines = []
    annotated = _annotated_file(report.contract)
    for result in report.results:
        level = _level(result)
        if level is None:
            continue
        measured = value_text(result)
        message = why_text(result) + (f" (measured {measured})" if measured else "")
        said, hint = description(result), inspect_hint(result)
        trend = " · ".join(history_notes(report, result))  # `check --history`
        message += "".join(f"\n{line}" for line in (said, trend, hint) if line)
        lines.append(_annotation(level, annotated, result.line,
                                 f"{result.status.value}: {label(result)}",
                                 f"{result.key}: {message}"))
    annotated_rules = {r.key for r in report.results if _level(r) is not None}
    for finding in report.findings:
        if finding.rule_key not in annotated_rules:  # e.g. a member that matches no cell
            lines.append(_finding_line(finding, annotated))
    # One line, so nothing in it can start a workflow command.
    lines.append(plain(f"packata-sql: {headline(report)} · target: {report.target}"))
    return "\n".join(lines) + "\n"


def _finding_line(finding: Finding, annotated: str) -> str:
    """A finding no rule annotation carries (a warning on a rule that passed or failed, or a
    contract-level one), so a CI run shows what weakened a rule."""
    level = "error" if finding.level is Level.ERROR else "warning"
    return _annotation(level, annotated, finding.line, finding.code,
                       f"{finding.source_path}: {finding.message}")


def _annotation(level: str, annotated: str, line: int | None, title: str, message: str) -> str:
    """One workflow command: `::level file=…,line=…,title=…::message`, escaped."""
    where = [f"file={github_property(annotated)}"]
    if line:
        where.append(f"line={line}")
    where.append(f"title={github_property(title)}")
    return f"::{level} {','.join(where)}::{github_data(message)}"

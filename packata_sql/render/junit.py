"""JUnit XML: one testcase per rule (classname `object.column`, name the rule key); failed →
<failure>, error → <error>, others → <skipped>. A failed warning-severity rule is a failure
only under `--fail-on warning`, so the CI colour matches the exit code."""

from __future__ import annotations

import json
from xml.etree import ElementTree

from packata_sql.contracts.model import Severity
from packata_sql.render.neutral import xml
from packata_sql.render.words import history_notes, value_text, why_text
from packata_sql.report import Report, RuleResult, Status


def _is_failure(result: RuleResult, fail_on_warning: bool) -> bool:
    return result.status is Status.FAILED and (
        result.severity is not Severity.WARNING or fail_on_warning)


def _properties(suite: ElementTree.Element, report: Report) -> None:
    properties = ElementTree.SubElement(suite, "properties")
    values: dict[str, object] = {
        "contract_id": report.contract_id, "contract_version": report.contract_version,
        "target": report.target, "read_only": report.read_only, "outcome": report.outcome.value,
        "descriptive_only": report.descriptive_only,
        "accepted_unexecuted": report.accepted_unexecuted,
        "sla_descriptive": report.sla_descriptive}
    if report.selection:  # a run over a selection is evidence about those rules only
        selection = report.selection
        values.update({"selection": selection.text(), "selected_rules": selection.selected,
                       "total_rules": selection.total, "select": json.dumps(list(selection.keys)),
                       "categories": " ".join(selection.categories)})
    values.update({f"declaration_{name}": value for name, value in report.declaration.items()})
    if report.history is not None:
        values.update({"history_store": report.history.store,
                       "history_runs": len(report.history.runs)})
    for name, value in values.items():
        if value is not None:
            ElementTree.SubElement(properties, "property", {"name": name, "value": str(value)})


def render_junit(report: Report, *, fail_on_warning: bool = False) -> str:
    summary = report.summary()
    failures = sum(1 for r in report.results if _is_failure(r, fail_on_warning))
    attributes = {
        "name": f"packata-sql {report.contract}",
        "tests": str(len(report.results)),
        "failures": str(failures),
        "errors": str(summary["error"]),
        "skipped": str(summary["inconclusive"] + summary["skipped"]),
        "time": f"{(report.elapsed_ms or 0) / 1000:.3f}",
    }
    if report.started_at:
        attributes["timestamp"] = report.started_at
    suite = ElementTree.Element("testsuite", attributes)
    _properties(suite, report)
    for result in report.results:
        _testcase(suite, report, result, fail_on_warning)
    _neutralise(suite)
    ElementTree.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suite, "unicode") + "\n"


def _neutralise(suite: ElementTree.Element) -> None:
    """Every attribute and text of the tree as XML 1.0 can hold it (names, keys, messages and
    SQL come from the contract), so the file always parses."""
    for element in suite.iter():
        element.attrib = {name: xml(value) for name, value in element.attrib.items()}
        if element.text is not None:
            element.text = xml(element.text)


def _testcase(suite: ElementTree.Element, report: Report, result: RuleResult,
              fail_on_warning: bool) -> None:
    case = ElementTree.SubElement(suite, "testcase", {
        "classname": result.target or result.source_path.split(".quality")[0],
        "name": result.key,
        "time": f"{result.elapsed_ms / 1000:.3f}",
    })
    out: list[str] = []
    measured = value_text(result)
    message = f"measured {measured}; {why_text(result)}" if measured else ""
    if _is_failure(result, fail_on_warning):
        failure = ElementTree.SubElement(case, "failure", {
            "type": result.severity.value, "message": message})
        failure.text = f"{result.key}: {message}" + (
            f"\ninspect: {result.inspect_sql}" if result.inspect_sql else "")
    elif result.status is Status.FAILED:  # a warning: reported, not failed
        out.append(f"warning: {message}")
    elif result.status is Status.ERROR:
        diagnostic = result.diagnostic
        ElementTree.SubElement(case, "error", {
            "type": diagnostic.code if diagnostic else "error",
            "message": diagnostic.message if diagnostic else "",
        })
    elif result.status is not Status.PASSED:
        diagnostic = result.diagnostic
        label = f"{result.status.value}: {diagnostic.code if diagnostic else ''}"
        if result.descriptive and report.accept_unexecutable:
            label += " (accepted unexecuted)"
        ElementTree.SubElement(case, "skipped", {"message": label})
    notes = history_notes(report, result)
    if notes:
        out.append("history: " + " · ".join(notes))
    if result.sql:  # only with --show-sql
        out.append(result.sql)
    if out:
        ElementTree.SubElement(case, "system-out").text = "\n".join(out)

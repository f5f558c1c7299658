"""JUnit XML: one testcase per rule; failed → <failure>, error → <error>, others → <skipped>."""

from __future__ import annotations

from xml.etree import ElementTree

from packata_sql.report import Report, Status
from packata_sql.values import format_value


def render_junit(report: Report) -> str:
    summary = report.summary()
    suite = ElementTree.Element("testsuite", {
        "name": f"packata-sql {report.contract}",
        "tests": str(len(report.results)),
        "failures": str(summary["failed"]),
        "errors": str(summary["error"]),
        "skipped": str(summary["inconclusive"] + summary["skipped"]),
        "time": f"{sum(r.elapsed_ms for r in report.results) / 1000:.3f}",
    })
    properties = ElementTree.SubElement(suite, "properties")
    for name, count in (("descriptive_only", report.descriptive_only),
                        ("accepted_unexecuted", report.accepted_unexecuted)):
        ElementTree.SubElement(properties, "property", {"name": name, "value": str(count)})
    for result in report.results:
        case = ElementTree.SubElement(suite, "testcase", {
            "classname": result.source_path.split(".quality")[0],
            "name": result.key,
            "time": f"{result.elapsed_ms / 1000:.3f}",
        })
        measured = "" if result.value is None else f"measured {format_value(result.value)}"
        if result.status is Status.FAILED:
            failure = ElementTree.SubElement(case, "failure", {
                "type": result.severity.value,
                "message": f"{measured}; expected {', '.join(result.failed)}",
            })
            failure.text = f"{result.key}: {measured} {result.unit or ''}".strip()
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
    ElementTree.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suite, "unicode") + "\n"

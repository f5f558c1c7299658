"""A static, self-contained HTML report (no script, no network): a header naming the contract,
its version and the packata-sql release, the summary, a small SVG chart of rule statuses,
per-object counts and one table per object, each rule's value on one line. With a run history
(`check --history`), a chart of each run's counts above the rules and a trend column: the
rule's sparkline and its notes (failing since, new failure, flapping, an anomaly)."""

from __future__ import annotations

from packata_sql.contracts.model import Severity
from packata_sql.render.neutral import html as escape
from packata_sql.render.svg import COLOURS, runs_chart, sparkline
from packata_sql.render.trend_words import runs_said, trend_said
from packata_sql.render.words import (
    description,
    duration,
    expectation_shown,
    headline,
    identity,
    inspect_hint,
    label,
    nothing_executed,
    object_of,
    ordered,
    per_object,
    problem_lines,
    row_diagnostic,
    runs_text,
    status_word,
    trend_notes,
    value_text,
)
from packata_sql.report import Report, RuleResult, Status
from packata_sql.trends import History, RuleTrend

_COLOURS = {status: COLOURS[status.value] for status in Status}
_WARNING = "#ef6c00"
_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
.outcome{font-weight:bold;padding:.2rem .6rem;border-radius:.3rem;color:#fff}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;
text-align:left;vertical-align:top}code{font-size:.85em;color:#555}
.status{font-weight:bold;white-space:nowrap}.measured{white-space:nowrap}
td.count,th.count{text-align:right}table.objects{width:auto}
.about code{color:inherit}
"""
_TREND_STYLE = """td.trend svg{display:block;margin:.2rem 0}.note{display:block;font-size:.85em}
.legend{font-size:.85em;color:#555}
"""
_LEGEND = ("Each run's rules: passed (filled) and other statuses (outlined) above the line, "
           "failed below it. A rule's trend, oldest left: a low bar passed, a full bar failed, "
           "an outlined bar an error, a half bar inconclusive, a dash skipped.")
_OUTCOME_COLOURS = {"pass": "#2e7d32", "warn": _WARNING, "fail": "#c62828", "incomplete": "#f9a825"}


def _colour(result: RuleResult) -> str:
    if result.status is Status.FAILED and result.severity is Severity.WARNING:
        return _WARNING
    return _COLOURS[result.status]


def _chart(report: Report) -> str:
    """One horizontal bar per status, its length the share of rules."""
    summary = report.summary()
    total = max(1, len(report.results))
    rows = []
    for index, status in enumerate(Status):
        count = summary[status.value]
        width = round(300 * count / total)
        y = index * 22
        rows.append(
            f'<text x="0" y="{y + 15}" font-size="13">{status.value}</text>'
            f'<rect x="100" y="{y + 3}" width="{width}" height="16" fill="{_COLOURS[status]}"/>'
            f'<text x="{106 + width}" y="{y + 15}" font-size="13">{count}</text>')
    height = 22 * len(Status)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="rule statuses" '
            f'width="460" height="{height}" viewBox="0 0 460 {height}">{"".join(rows)}</svg>')


def _value(result: RuleResult) -> str:
    """The measured value on one line (a list, a drift's changes, may wrap between its items)
    and the expectation once, under it."""
    measured = ", ".join(f'<span class="measured">{escape(part)}</span>'
                         for part in value_text(result).split(", ") if part)
    parts = [measured] if measured else []
    expected = expectation_shown(result)
    if expected:
        parts.append(f'<span class="expected">expected {escape(expected)}</span>')
    return "<br>".join(parts)


def _object_counts(report: Report) -> str:
    rows = "".join(
        f"<tr><td>{escape(name)}</td><td class=\"count\">{sum(row.values())}</td>"
        + "".join(f'<td class="count">{row[s.value]}</td>' for s in Status) + "</tr>"
        for name, row in per_object(report).items())
    heads = "".join(f'<th class="count">{s.value}</th>' for s in Status)
    return (f'<table class="objects" id="objects"><tr><th>object</th><th class="count">rules'
            f"</th>{heads}</tr>{rows}</table>") if rows else ""


def _rule_cell(result: RuleResult) -> str:
    """The label, the key, a SQL rule's description and a failed rule's `inspect:` hint."""
    cell = f"{escape(label(result))}<br><code>{escape(result.key)}</code>"
    said = description(result)
    if said:
        cell += f'<br><span class="description">{escape(said)}</span>'
    hint = inspect_hint(result)
    if hint:
        cell += f'<br><code class="inspect">{escape(hint)}</code>'
    return cell


def _trend_cell(trend: RuleTrend | None) -> str:
    """The rule's sparkline and its notes; an anomaly is one of them, never a status."""
    if trend is None:
        return '<td class="trend"><span class="note">no earlier runs</span></td>'
    notes = "".join(f'<span class="note">{escape(note)}</span>' for note in trend_notes(trend))
    return f'<td class="trend">{sparkline(trend, trend_said(trend))}{notes}</td>'


def _object_tables(report: Report) -> str:
    groups: dict[str, list[RuleResult]] = {}
    for result in ordered(report.results):
        groups.setdefault(object_of(result), []).append(result)
    history = report.history
    trends = {trend.key: trend for trend in history.rules} if history is not None else {}
    trend_head = "<th>trend</th>" if history is not None else ""
    parts = []
    for name, results in groups.items():
        rows = "".join(
            f'<tr><td class="status" style="color:{_colour(r)}">{escape(status_word(r))}</td>'
            f"<td>{_rule_cell(r)}</td>"
            f'<td class="value">{_value(r)}</td>'
            + (_trend_cell(trends.get(r.key)) if history is not None else "")
            + f"<td>{escape(row_diagnostic(r))}</td></tr>" for r in results)
        parts.append(f"<h2>{escape(name)}</h2><table><tr><th>status</th><th>rule</th>"
                     f"<th>value</th>{trend_head}<th>why</th></tr>{rows}</table>")
    return "".join(parts)


def _runs(history: History) -> str:
    """Above the rules: where the history is kept and each run's counts, drawn and said."""
    return (f'<h2 id="trend">trend</h2><p class="history">history <code>{escape(history.store)}'
            f"</code> · the last {runs_text(len(history.runs))}</p>"
            f"{runs_chart(history.runs, runs_said(history.runs))}"
            f'<p class="legend">{_LEGEND}</p>')


def render_html(report: Report) -> str:
    outcome = report.outcome.value
    about = " · ".join(f"{word} <code>{escape(value)}</code>" for word, value in identity(report))
    facts = [f"target {report.target}", f"read-only: {report.read_only or 'not connected'}"]
    if report.elapsed_ms is not None:
        facts.append(f"duration {duration(report)}")
    if report.started_at:
        facts.append(f"started {report.started_at}")
    why_not = nothing_executed(report)
    note = f"<p>incomplete: {escape(why_not)}</p>" if why_not else ""
    note += "".join(f'<p class="problem">error: {escape(line)}</p>'
                    for line in problem_lines(report))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>packata-sql · {escape(report.contract)}</title>"
        f"<style>{_STYLE}{_TREND_STYLE if report.history is not None else ''}</style></head>"
        f"<body><h1>packata-sql · {escape(report.contract)}</h1>"
        f'<p class="about" id="about">{about}</p>'
        f'<p id="summary"><span class="outcome" style="background:{_OUTCOME_COLOURS[outcome]}">'
        f"{escape(headline(report))}</span></p><p>{escape(' · '.join(facts))}</p>{note}"
        f"{_chart(report)}{_object_counts(report)}"
        f"{_runs(report.history) if report.history is not None else ''}"
        f"{_object_tables(report)}</body></html>\n"
    )

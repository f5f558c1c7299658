"""How every human-readable report says a rule, its value and the run: one wording for the
table, Markdown, HTML and GitHub annotations, so they cannot drift apart."""

from __future__ import annotations

import re
import shlex

from packata_sql.contracts.durations import age_text
from packata_sql.contracts.model import Severity
from packata_sql.report import SLA_DESCRIPTIVE, Outcome, Report, RuleResult, Status, grouped
from packata_sql.trends import Anomaly, RuleTrend
from packata_sql.values import format_value

#: The key a rule without an `id` gets: its place (`schema[orders].quality[2]`).
_POSITIONAL = re.compile(r"\.quality\[\d+\]$")
#: Failures first, then what did not run cleanly, then what passed.
_ORDER = {Status.FAILED: 0, Status.ERROR: 1, Status.INCONCLUSIVE: 2, Status.SKIPPED: 3,
          Status.PASSED: 4}


def label(result: RuleResult) -> str:
    """`object.column · metric` (or the constraint's kind: `orders.email · maxLength`), or
    the rule's name when it has one; a SQL rule without a name is called by its explicit id
    (`orders_fresh`), else `orders · sql`."""
    if result.name:
        return result.name
    if result.target is None:
        return result.key
    if result.kind == "sql" and not _POSITIONAL.search(result.key):  # an explicit id
        return result.key
    return f"{result.target} · {result.metric or result.kind or result.category.value}"


def description(result: RuleResult) -> str | None:
    """What a SQL rule's `description` says it checks (a library rule's label says it)."""
    said = (result.description or "").strip() if result.kind == "sql" else ""
    return said or None


#: The `--samples` count a failed rule's hint suggests.
HINT_SAMPLES = 5


def inspect_hint(result: RuleResult) -> str | None:
    """One line under a failed rule that has offending rows to list, instead of the query that
    lists them (which the JSON report's `inspect_sql` and `check -v` keep whole): the same
    command again, run for this rule with a few samples (`…` is the contract and connection
    arguments of the run)."""
    if result.status is not Status.FAILED or result.inspect_sql is None:
        return None
    # Shell-quoted; a key starting with `-` (an id may: `--url`) is joined to its option, so
    # the command line reads it as the key, never as another option.
    joined = "=" if result.key.startswith("-") else " "
    return (f"inspect: packata-sql check … --samples {HINT_SAMPLES} "
            f"--select{joined}{shell_word(result.key)}")


#: What a report would drop or turn into a space (neutral.plain): in a hint such a character
#: is written as an escape the shell reads back.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                          "\ud800-\udfff]")


#: What neutral.plain guards with a backslash (a workflow command after white space).
_COMMAND = re.compile(r"(?<=\s)[:#]")


def shell_word(text: str) -> str:
    """`text` as one shell word: `shlex.quote`, or, when it holds a line break, an escape or
    another character no report shows as itself, or white space before `::` or `##[` (which
    reports guard with a backslash), bash's `$'…'` with each such character as `\\xHH` or
    `\\uHHHH`, so the pasted hint names exactly the key."""
    if not _UNPRINTABLE.search(text) and not _COMMAND.search(text):
        return shlex.quote(text)
    escaped = text.replace("\\", "\\\\").replace("'", "\\'")
    escaped = _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x80
                               else f"\\u{ord(m.group()):04x}", escaped)
    escaped = _COMMAND.sub(lambda m: f"\\x{ord(m.group()):02x}", escaped)
    return f"$'{escaped}'"


def status_word(result: RuleResult) -> str:
    if result.status is Status.FAILED and result.severity is Severity.WARNING:
        return "failed (warning)"
    return result.status.value


def ordered(results: tuple[RuleResult, ...]) -> list[RuleResult]:
    """Error-severity failures first, warnings after them, passes last; stable otherwise."""
    def rank(result: RuleResult) -> tuple[int, int]:
        warning = result.severity is Severity.WARNING and result.status is Status.FAILED
        return _ORDER[result.status], int(warning)
    return sorted(results, key=rank)


#: Drift changes named in human reports; the JSON report lists all of them.
SHOWN_CHANGES = 5


def changes_text(result: RuleResult) -> str:
    """`y field-removed (breaking), c type-changed (breaking) and 3 more`: what drifted, the
    most serious first."""
    rank = {"breaking": 0, "warning": 1}
    changes = sorted(result.changes, key=lambda c: rank.get(str(c["classification"]), 2))
    shown = [f"{c['field']} {c['change']} ({c['classification']})"
             for c in changes[:SHOWN_CHANGES]]
    more = len(result.changes) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def value_text(result: RuleResult) -> str:
    """`1.226 % (613 of 50000)` for a percentage, `1 row`/`12 rows` for a count, and a drift's
    answer with its changes (`false: y field-removed (breaking)`)."""
    if result.value is None:
        return ""
    if result.changes:
        return f"{format_value(result.value)}: {changes_text(result)}"
    if result.kind == "latency" and not isinstance(result.value, bool):
        if result.value < 0:
            return f"newest {age_text(-result.value)} after the observation time"
        return f"{age_text(result.value)} old"
    if result.unit == "percent":
        text = f"{format_value(result.value)} %"
        numerator = result.evidence.get("numerator")
        denominator = result.evidence.get("denominator")
        if numerator is not None and denominator is not None:
            text += f" ({numerator} of {denominator})"
        return text
    if isinstance(result.value, bool):  # a truth has no unit
        return format_value(result.value)
    unit = result.unit or ""
    if unit == "rows" and result.value == 1:
        unit = "row"
    return f"{format_value(result.value)} {unit}".rstrip()


def _percent(result: RuleResult) -> str:
    """The sign an expectation of a percentage rule is written with."""
    return " %" if result.unit == "percent" else ""


def expected_text(result: RuleResult) -> str:
    return f"{result.expectation}{_percent(result)}" if result.expectation else ""


def why_text(result: RuleResult) -> str:
    if result.status is Status.FAILED:
        return "expected " + " and ".join(result.failed) + _percent(result)
    return diagnostic_text(result)


#: A grouped rule's reason in a table row: the grouped line above the rows says it once.
NOT_MEASURED = "not measured: see above"


def row_reason(result: RuleResult) -> str:
    """What a table row says of why the rule did not run cleanly."""
    return NOT_MEASURED if grouped(result) else why_text(result)


def row_diagnostic(result: RuleResult) -> str:
    """A report row's diagnostic cell (the value cell shows the expectation): a grouped rule
    points at the grouped line above the rows."""
    return NOT_MEASURED if grouped(result) else diagnostic_text(result)


def problem_lines(report: Report) -> list[str]:
    """One line per thing that went wrong for several rules alike (the connection, the login,
    a missing schema or object): `15 rules not measured: cannot connect to …: …`."""
    lines = []
    for problem in report.grouped_errors:
        count = len(problem.keys)
        what = f"cannot connect to {report.target}" if report.connection_problem \
            else problem.code
        lines.append(f"{count} rule{'s' if count != 1 else ''} not measured: {what}: "
                     f"{problem.message}")
    return lines


def duration(report: Report) -> str:
    if report.elapsed_ms is None:
        return ""
    return f"{report.elapsed_ms / 1000:.2f} s"


def counts(report: Report) -> str:
    """`9 passed, 1 skipped, 2 sla-descriptive`: SLA properties no query observes are counted
    apart from the skipped rules (docs/semantics.md 1.1)."""
    summary = report.summary()
    summary["skipped"] -= report.sla_descriptive
    summary[SLA_DESCRIPTIVE] = report.sla_descriptive
    return ", ".join(f"{n} {s}" for s, n in summary.items() if n) or "no rules"


def nothing_executed(report: Report) -> str | None:
    """Why a run that measured nothing is incomplete, or None when something was measured."""
    if report.interrupted:
        return None
    if not report.results:
        return "the contract declares no quality rule, so nothing was checked"
    if all(r.status is Status.SKIPPED for r in report.results):
        return ("no rule could be executed, so nothing was checked (see each rule's reason); "
                "a contract that checks nothing never passes")
    return None


def headline(report: Report) -> str:
    """`FAIL · 2 failed, 3 passed`: the outcome and the counts, and `· 3 of 10 rules selected`
    when `--select`/`--category` chose the rules."""
    selected = f" · {report.selection.text()}" if report.selection else ""
    return f"{report.outcome.value.upper()} · {counts(report)}{selected}"


OUTCOME_COLOURS = {Outcome.PASS: "green", Outcome.WARN: "yellow", Outcome.FAIL: "red",
                   Outcome.INCOMPLETE: "yellow"}


def identity(report: Report) -> list[tuple[str, str]]:
    """What a forwarded report says it is about: the contract's id and version (when it
    declares them) and the packata-sql release that wrote it, as (word, value) pairs whose
    values are contract text (renderers escape them)."""
    from packata_sql import __version__

    pairs = [("contract", report.contract_id), ("version", report.contract_version)]
    return [(word, value) for word, value in pairs if value] + [("packata-sql", __version__)]


def object_of(result: RuleResult) -> str:
    """The object a rule belongs to (`orders` of `orders.email`), `contract` for a rule on the
    whole document."""
    return (result.target or "contract").split(".")[0]


def per_object(report: Report) -> dict[str, dict[str, int]]:
    """Each object's rules counted by status, objects in the contract's order."""
    table: dict[str, dict[str, int]] = {}
    for result in report.results:
        row = table.setdefault(object_of(result), {s.value: 0 for s in Status})
        row[result.status.value] += 1
    return table


def expectation_shown(result: RuleResult) -> str:
    """The expectation a row shows once, beside its value: for a failed rule the parts that
    failed (`< 10`), otherwise all of them; `` when the rule declares none."""
    if result.status is Status.FAILED and result.failed:
        return " and ".join(result.failed) + _percent(result)
    return expected_text(result)


def diagnostic_text(result: RuleResult) -> str:
    """Why a rule did not pass or fail cleanly (`missing-column: …`); `` for a measured rule,
    whose expectation the value cell already shows."""
    if result.diagnostic is None:
        return ""
    return f"{result.diagnostic.code}: {result.diagnostic.message}"


def runs_text(count: int) -> str:
    return f"{count} run" if count == 1 else f"{count} runs"


def moment_text(observed_at: str) -> str:
    """A stored observation time as people read it: `2026-12-01 08:00:00 UTC` (the store
    keeps microseconds so that text order is time order; whole seconds drop them)."""
    text = observed_at.replace("T", " ", 1)
    for tail in (".000000+00:00", "+00:00"):
        if text.endswith(tail):
            return text.removesuffix(tail) + " UTC"
    return text


def anomaly_text(found: Anomaly) -> str:
    """`value 40 outside the usual range 9–11 over the last 8 runs`."""
    return (f"value {format_value(found.value)} outside the usual range "
            f"{format_value(found.low)}–{format_value(found.high)} over the last {found.n} runs")


def trend_notes(trend: RuleTrend | None) -> list[str]:
    """What a rule's history says beside its verdict (docs/semantics.md, run history):
    `failing since <time> (N runs)`, `new failure`, `flapping`, the anomaly note."""
    if trend is None:
        return []
    notes: list[str] = []
    since = trend.failing_since
    if trend.new_failure:
        notes.append("new failure")
    elif since is not None:
        notes.append(f"failing since {moment_text(since)} ({runs_text(len(trend.streak))})")
    if trend.flapping:
        notes.append(f"flapping ({trend.changes} changes in {len(trend.points)} runs)")
    if trend.anomaly is not None:
        notes.append(anomaly_text(trend.anomaly))
    return notes


def history_notes(report: Report, result: RuleResult) -> list[str]:
    """A rule's trend notes in a `check --history` report (none without history)."""
    return trend_notes(report.history.rule(result.key)) if report.history else []

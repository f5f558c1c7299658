"""Results and the aggregate outcome (docs/semantics.md 1). Knows nothing about SQL."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import Any

from packata_sql import __version__
from packata_sql.contracts.identity import CATALOG, CATALOG_VERSION, PROGRAM
from packata_sql.contracts.model import (
    Category,
    Constraint,
    Expressif,
    Finding,
    Latency,
    Level,
    Library,
    Predicate,
    Rule,
    Severity,
    SlaDescriptive,
    Sql,
)
from packata_sql.trends import Anomaly, History, RuleTrend
from packata_sql.values import to_decimal

FORMAT = "packata-sql/report@1"
#: The diagnostic of an SLA property no query observes: listed, counted apart, never a pass,
#: and never what keeps a run incomplete (docs/semantics.md 1.1).
SLA_DESCRIPTIVE = "sla-descriptive"
#: What goes wrong once for many rules (the connection, the login, a missing schema or
#: object): reports show it as one grouped line, its rules as `not measured: see above`.
GROUPED = frozenset({
    "connection-failed", "authentication-failed", "connection-refused", "host-not-found",
    "connection-timeout", "unknown-database", "unknown-role", "connection-lost",
    "insecure-connection", "refused", "driver-missing", "missing-schema", "missing-object",
})


class Status(Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    INCONCLUSIVE = "inconclusive"
    SKIPPED = "skipped"


class Outcome(Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    INCOMPLETE = "incomplete"


EXIT_CODES = {Outcome.PASS: 0, Outcome.WARN: 0, Outcome.FAIL: 1, Outcome.INCOMPLETE: 2}
EXIT_INTERRUPTED = 130


@dataclass(frozen=True)
class Diagnostic:
    """Why a rule did not pass or fail cleanly: a stable code and a safe message."""

    code: str
    message: str
    provider_code: str | None = None


@dataclass(frozen=True)
class RuleResult:
    key: str
    source_path: str
    category: Category
    severity: Severity
    status: Status
    name: str | None = None
    value: Fraction | bool | None = None
    unit: str | None = None
    evidence: dict[str, int] = field(default_factory=dict)
    failed: tuple[str, ...] = ()
    diagnostic: Diagnostic | None = None
    elapsed_ms: int = 0
    fused: bool = False
    sql: str | None = None
    #: Schema drift: every change (field, change, classification, before, after), bounded.
    changes: tuple[dict[str, str | None], ...] = ()
    #: Skipped because it is not executable by design (a text rule, a custom rule for
    #: another tool), not because something went wrong.
    descriptive: bool = False
    #: Where the rule applies and what it measures, for labels: `object.column`, the metric
    #: (None for SQL, text and constraint rules), its line in the contract, its expectations
    #: in words.
    target: str | None = None
    metric: str | None = None
    #: A constraint's kind (`required`, `maxLength`, `logicalType`, `drift`, …).
    kind: str | None = None
    line: int | None = None
    expectation: str | None = None
    #: For a failed library rule: a query listing its offending keys (LIMIT 20), to run by hand.
    inspect_sql: str | None = None
    #: The rule's `description` (reports show a SQL rule's).
    description: str | None = None


@dataclass(frozen=True)
class GroupedError:
    """One thing that went wrong for several rules alike: its code, its safe message (the
    object's name and the closest existing one, or the variable that gives the login) and the
    rules it left unmeasured, in the contract's order."""

    code: str
    message: str
    keys: tuple[str, ...]


def grouped(result: RuleResult) -> bool:
    """The rule errored for a reason reports group (`GROUPED`)."""
    return result.status is Status.ERROR and result.diagnostic is not None \
        and result.diagnostic.code in GROUPED


@dataclass(frozen=True)
class Selection:
    """What `--select`/`--category` asked for and how many of the declaration's rules it kept:
    a run over a selection is evidence about those rules only, never about the declaration."""

    keys: tuple[str, ...]
    categories: tuple[str, ...]
    selected: int
    total: int

    @property
    def partial(self) -> bool:
        return self.selected < self.total

    def text(self) -> str:
        return f"{self.selected} of {self.total} rules selected"

    def document(self) -> dict[str, Any]:
        return {"select": list(self.keys), "categories": list(self.categories),
                "selected": self.selected, "total": self.total, "partial": self.partial}


@dataclass(frozen=True)
class Report:
    contract: str
    target: str
    read_only: str | None
    results: tuple[RuleResult, ...]
    findings: tuple[Finding, ...]
    interrupted: bool = False
    settings: dict[str, str] = field(default_factory=dict)
    #: Why no session could be opened (a safe message), when that happened.
    connection_problem: str | None = None
    #: The schema unqualified names resolved in during the run (None when not connected).
    schema: str | None = None
    #: Descriptive rules were accepted unexecuted (`--accept-unexecutable` or the contract).
    accept_unexecutable: bool = False
    #: Whether authored SQL rules may run on this login ("allowed"/"refused"), and the routes
    #: (names only) that let the login escape the engine's read-only mode.
    authored_sql: str | None = None
    routes: tuple[str, ...] = ()
    #: Defaults that are no route but worth closing, each with the statement to run.
    hardening: tuple[str, ...] = ()
    #: What the declaration says of itself (format, policy version, SHA-256), when it does.
    declaration: dict[str, str | None] = field(default_factory=dict)
    #: Contract metadata and timing for report headers (JUnit properties, summary line).
    contract_id: str | None = None
    contract_version: str | None = None
    started_at: str | None = None  # ISO 8601, UTC
    #: The run's one observation instant (ISO 8601, UTC): what "now" means for every rule.
    observed_at: str | None = None
    elapsed_ms: int | None = None
    #: `--select`/`--category`, when given (None: every rule of the declaration was selected).
    selection: Selection | None = None
    #: The rules' earlier runs from the history store (`check --history`), this run included.
    history: History | None = None

    @property
    def rules(self) -> tuple[RuleResult, ...]:
        """Every selected rule's result, in the contract's order."""
        return self.results

    @property
    def grouped_errors(self) -> tuple[GroupedError, ...]:
        """The rules' grouped errors, one per code and message (so one per missing object),
        in the order their first rule appears."""
        found: dict[tuple[str, str], list[str]] = {}
        for result in self.results:
            if grouped(result):
                assert result.diagnostic is not None
                found.setdefault((result.diagnostic.code, result.diagnostic.message),
                                 []).append(result.key)
        return tuple(GroupedError(code, message, tuple(keys))
                     for (code, message), keys in found.items())

    def to_dict(self) -> dict[str, Any]:
        """The `packata-sql/report@1` document: what `--format json` writes."""
        return report_document(self)

    @property
    def executed(self) -> int:
        """Rules that produced a measurement (passed or failed)."""
        return sum(1 for r in self.results if r.status in (Status.PASSED, Status.FAILED))

    @property
    def complete(self) -> bool:
        if not self.executed:  # a contract that checks nothing never passes
            return False
        if self.blocking_findings:  # e.g. an unknown key on an object: the run cannot pass
            return False
        return all(r.status in (Status.PASSED, Status.FAILED) or self._accepted(r)
                   for r in self.results)

    @property
    def blocking_findings(self) -> tuple[Finding, ...]:
        """Error findings that name no rule (an unknown key on an object or the document, an
        unsupported apiVersion, a duplicate rule id): no single rule is skipped for them, yet
        the run cannot pass (docs/semantics.md 1.2)."""
        return tuple(f for f in self.findings if f.level is Level.ERROR and f.rule_key is None)

    def _accepted(self, result: RuleResult) -> bool:
        if sla_descriptive(result):
            return True
        return self.accept_unexecutable and result.descriptive and result.status is Status.SKIPPED

    @property
    def descriptive_only(self) -> int:
        """Rules that describe quality and were not executed (accepted or not); SLA
        properties no query observes are counted apart (`sla_descriptive`)."""
        return sum(1 for r in self.results if r.descriptive and r.status is Status.SKIPPED
                   and not sla_descriptive(r))

    @property
    def sla_descriptive(self) -> int:
        """SLA properties listed but not measured (`retention`, `frequency`, …)."""
        return sum(1 for r in self.results if sla_descriptive(r))

    @property
    def accepted_unexecuted(self) -> int:
        return sum(1 for r in self.results if self._accepted(r))

    @property
    def outcome(self) -> Outcome:
        failed = [r for r in self.results if r.status is Status.FAILED]
        if any(r.severity is Severity.ERROR for r in failed):
            return Outcome.FAIL
        if not self.complete:
            return Outcome.INCOMPLETE
        return Outcome.WARN if failed else Outcome.PASS

    def summary(self) -> dict[str, int]:
        return {s.value: sum(1 for r in self.results if r.status is s) for s in Status}

    def summary_by_category(self) -> dict[str, dict[str, int]]:
        """Constraint and quality results counted apart (docs/semantics.md 1.1), categories present only."""
        present = [c for c in Category if any(r.category is c for r in self.results)]
        return {c.value: {s.value: sum(1 for r in self.results
                                       if r.category is c and r.status is s) for s in Status}
                for c in present}

    def exit_code(self, *, fail_on_warning: bool = False) -> int:
        if self.interrupted:
            return EXIT_INTERRUPTED
        outcome = self.outcome
        if outcome is Outcome.WARN and fail_on_warning:
            return 1
        return EXIT_CODES[outcome]


def sla_descriptive(result: RuleResult) -> bool:
    return result.status is Status.SKIPPED and result.diagnostic is not None \
        and result.diagnostic.code == SLA_DESCRIPTIVE


def result_of(rule: Rule, status: Status, **fields: Any) -> RuleResult:
    """A rule's result, with what labels need: where it applies, its metric (or constraint
    kind), its line and its expectations in words."""
    from packata_sql.contracts.constraints import catalog_expectation, shown_kind
    from packata_sql.contracts.expectations import describe

    target = rule.target
    definition = rule.definition
    expectation = " and ".join(describe(e) for e in rule.expectations) or (
        catalog_expectation(definition) if isinstance(definition, Constraint) else None) or (
        f"no older than {definition.limit.text()}" if isinstance(definition, Latency)
        and definition.limit is not None else None)
    return RuleResult(
        rule.key, rule.source_path, rule.category, rule.severity, status, name=rule.name,
        target=".".join((target.object_name, *target.property_path)),
        metric=definition.metric if isinstance(definition, Library) else None,
        kind=shown_kind(definition) if isinstance(definition, Constraint)
        else "expression" if isinstance(definition, Predicate)
        else "expressif" if isinstance(definition, Expressif)
        else "latency" if isinstance(definition, Latency)
        else SLA_DESCRIPTIVE if isinstance(definition, SlaDescriptive)
        else "sql" if isinstance(definition, Sql) else None,
        line=rule.line, expectation=expectation or None, description=rule.description,
        **fields)


def report_document(report: Report) -> dict[str, Any]:
    document: dict[str, Any] = {
        "format": FORMAT,
        "packata_sql_version": __version__,
        "contract": report.contract,
        "contract_id": report.contract_id,
        "contract_version": report.contract_version,
        "target": report.target,
        "schema": report.schema,
        "outcome": report.outcome.value,
        "complete": report.complete,
        "selection": report.selection.document() if report.selection else None,
        "read_only": report.read_only,
        "authored_sql": report.authored_sql,
        "routes": list(report.routes),
        "hardening": list(report.hardening),
        "catalog": {"name": CATALOG, "version": CATALOG_VERSION, "program": PROGRAM},
        "settings": report.settings,
        "summary": report.summary(),
        "summary_by_category": report.summary_by_category(),
        "started_at": report.started_at,
        "observed_at": report.observed_at,
        "elapsed_ms": report.elapsed_ms,
        "descriptive_only": report.descriptive_only,
        "accepted_unexecuted": report.accepted_unexecuted,
        "sla_descriptive": report.sla_descriptive,
        "rules": [_rule(r) for r in report.results],
        "findings": [finding_document(f) for f in report.findings],
    }
    if report.declaration:  # evidence about the declaration itself (a policy's hash)
        document["declaration"] = report.declaration
    if report.history is not None:  # `check --history`: the store and the runs it holds
        document["history"] = history_document(report.history, rules=False)
        for rule in document["rules"]:
            trend = report.history.rule(rule["key"])
            rule["history"] = trend_document(trend) if trend else None
    return document


def history_document(history: History, *, rules: bool = True) -> dict[str, Any]:
    """The history's store (no credentials), contract and runs, oldest first; with `rules`
    each rule's trend (`packata-sql history --format json`)."""
    document: dict[str, Any] = {
        "store": history.store,
        "contract": history.contract,
        "runs": [{"run_id": run.run_id, "observed_at": run.observed_at, "passed": run.passed,
                  "failed": run.failed, "other": run.other} for run in history.runs],
    }
    if rules:
        document["rules"] = [{"key": trend.key, **trend_document(trend)}
                             for trend in history.rules]
    return document


def trend_document(trend: RuleTrend) -> dict[str, Any]:
    """One rule's runs: statuses oldest first, the current streak, changes and notes."""
    return {
        "statuses": list(trend.statuses),
        "sparkline": trend.sparkline,
        "values": [None if p.value is None else to_decimal(p.value) for p in trend.points],
        "streak": len(trend.streak),
        "last_changed_at": trend.last_changed_at,
        "failing_since": trend.failing_since,
        "new_failure": trend.new_failure,
        "changes": trend.changes,
        "flapping": trend.flapping,
        "anomaly": _anomaly_document(trend.anomaly),
    }


def _anomaly_document(found: Anomaly | None) -> dict[str, Any] | None:
    if found is None:
        return None
    return {"value": to_decimal(found.value), "median": to_decimal(found.median),
            "mad": to_decimal(found.mad), "low": to_decimal(found.low),
            "high": to_decimal(found.high), "k": to_decimal(found.k), "runs": found.n}


def _rule(result: RuleResult) -> dict[str, Any]:
    value: Any = result.value
    if isinstance(value, Fraction):
        value = to_decimal(value)
    document: dict[str, Any] = {
        "key": result.key,
        "name": result.name,
        "source_path": result.source_path,
        "line": result.line,
        "target": result.target,
        "metric": result.metric,
        "kind": result.kind,
        "expectation": result.expectation,
        "description": result.description,
        "category": result.category.value,
        "severity": result.severity.value,
        "status": result.status.value,
        "value": value,
        "unit": result.unit,
        "evidence": result.evidence,
        "failed": list(result.failed),
        "diagnostic": None if result.diagnostic is None else {
            "code": result.diagnostic.code,
            "message": result.diagnostic.message,
            "provider_code": result.diagnostic.provider_code,
        },
        "elapsed_ms": result.elapsed_ms,
        "fused": result.fused,
        "descriptive": result.descriptive,
    }
    if result.changes:
        document["changes"] = list(result.changes)
    if result.sql is not None:
        document["sql"] = result.sql
    if result.inspect_sql is not None:
        document["inspect_sql"] = result.inspect_sql
    return document


def finding_document(finding: Finding) -> dict[str, Any]:
    return {
        "code": finding.code,
        "rule_key": finding.rule_key,
        "source_path": finding.source_path,
        "line": finding.line,
        "level": finding.level.value,
        "message": finding.message,
    }

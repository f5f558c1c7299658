"""What the parts of a run share: its options, its state (results, notes, the time budget),
how a rule is settled (diagnostics, verdicts), and how an object's name is probed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any, TypeVar

from packata_sql.contracts.expectations import verdict
from packata_sql.contracts.model import Finding, Rule
from packata_sql.plans.compiler import AnyPlan
from packata_sql.report import Diagnostic, RuleResult, Status, result_of
from packata_sql.run.names import resolved_note, unquoted_reading
from packata_sql.run.samples import ObjectKeys
from packata_sql.sessions.base import ProviderError, Session

DEFAULT_TIMEOUT_S = 300.0
T = TypeVar("T")
_DIAGNOSTICS = {
    "missing-column": "the property's column does not exist in the object",
    "type-mismatch": "the column's type cannot be compared with the rule's values without a cast",
    "timeout": "the measurement ran past the per-rule timeout and was cancelled",
    "budget-exhausted": "the run's time budget was used up before this rule finished",
    "zero-rows": "the object has no rows, so a percentage has no denominator",
    "no-expectation": "the rule declares no expectation (no 'mustBe…' key) for a numeric "
                      "measurement",
    "not-a-number": "the measurement is not a finite number or a boolean",
    "value-out-of-range": "the measurement has more than 38 significant digits or an exponent "
                          "beyond ±324; no measurement needs them, so it is not reported",
    "null-result": "the measurement is NULL",
    "expressif-in-band-value": ("a text cell the rule reads is one Expressif reads otherwise "
                                "than as its text (trimmed, it starts with '(' and ends with "
                                "')': the keywords (null), (empty) and (blank), or a value the "
                                "text functions leave unread), so no count has the language's "
                                "meaning"),
    "json-temporal-not-exact": "every present value is a JSON string, as a date or timestamp "
                               "in a JSON document is; its text is not checked as one",
    "empty-population": "the object has no rows, so the program was applied to no item",
    "no-observation": "no value was supplied for this observation rule (the API's "
                      "'observations', keyed by the rule's key)",
    "zero-rows-latency": "the object has no rows, so it has no newest value to age",
    "all-null-latency": "every value of the column is NULL (or, on SQLite, not a date), so it "
                        "has no newest value to age",
    "latency-not-temporal": "a latency needs a date or timestamp column; this column holds "
                            "another type (or a time of day)",
    "cancelled": "the run was interrupted before this rule finished",
    "no-result-set": "the query returned no result set",
    "several-columns": "the query returned more than one column; a rule needs exactly one cell",
    "no-rows": "the query returned no row; a rule needs exactly one cell",
    "several-rows": "the query returned more than one row; a rule needs exactly one cell",
}

_SQL_HINT = "'mustBe: 0' or 'mustBeLessThan: 10'"


@dataclass(frozen=True)
class Progress:
    """One step of a run: `started` (total = executable rules), `scan`/`sql` begin and
    `done` (rules = how many the step settled); `progress` while a step's statement runs,
    with `percent` (0–100) as the engine reports it (DuckDB's query progress, Spark's tasks
    done; engines that report none send no `progress`: show the step's elapsed time)."""

    step: str
    label: str = ""
    rules: int = 0
    total: int = 0
    percent: float | None = None


@dataclass(frozen=True)
class RunOptions:
    timeout_s: float = DEFAULT_TIMEOUT_S
    budget_s: float | None = None
    trust_environment: bool = False
    show_sql: bool = False
    parameters: dict[str, object] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    accept_unexecutable: bool = False
    #: Told when each object's scan or SQL rule starts and ends (progress on stderr).
    progress: Callable[[Progress], None] | None = None
    #: Told the engine's own message and the SQL of each errored statement (`--verbose`,
    #: stderr only: neither ever reaches a report).
    on_error: Callable[[str, str, str | None], None] | None = None
    #: `--samples N`: up to N offending values of each failed row-reading rule, with their
    #: counts and keys, handed as lines to `on_samples` (the terminal), never to a result
    #: (run/samples.py).
    samples: int = 0
    on_samples: Callable[[str, tuple[str, ...]], None] | None = None
    #: The run's one observation instant (aware, UTC); None: the moment the run starts.
    observed_at: datetime | None = None
    #: The values the caller supplies to observation-scope Expressif rules, by rule key.
    observations: dict[str, object] = field(default_factory=dict)


def diagnostic(code: str, provider_code: str | None = None, detail: str | None = None, *,
               message: str | None = None) -> Diagnostic:
    """`message`: the safe words of an error that says more than its code's (a login's
    variable); otherwise the code's own."""
    message = message or _DIAGNOSTICS.get(code, ProviderError.MESSAGES.get(code, code))
    return Diagnostic(code, f"{message}; {detail}" if detail else message, provider_code)



@dataclass
class RunState:
    """One run's mutable state: the results so far, the notes, and the clock that bounds it."""

    options: RunOptions
    clock: Callable[[], float]
    started: float
    #: The run's one observation instant (aware, UTC): what "now" means for every rule.
    observed_at: datetime
    results: dict[str, RuleResult] = field(default_factory=dict)
    prefix: tuple[str, ...] = ()
    #: Objects found under the engine's unquoted reading of their name, and the notes saying so.
    renamed: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)
    notes: list[Finding] = field(default_factory=list)
    #: `--samples`: each object's primary key and classified properties, by object name.
    keys: dict[str, ObjectKeys] = field(default_factory=dict)
    #: The scan or SQL rule running now (its label and rule count), for `engine_progress`.
    step: tuple[str, int] = ("", 0)

    def remaining(self) -> float:
        if self.options.budget_s is None:
            return self.options.timeout_s
        left = self.options.budget_s - (self.clock() - self.started)
        return min(self.options.timeout_s, left)

    def budget_bound(self) -> bool:
        return self.options.budget_s is not None and self.remaining() < self.options.timeout_s

    def notify(self, step: str, label: str = "", rules: int = 0, total: int = 0) -> None:
        if step in ("scan", "sql"):
            self.step = (label, rules)
        if self.options.progress is not None:
            self.options.progress(Progress(step, label, rules, total))

    def engine_progress(self, percent: float) -> None:
        """The running statement's progress as the engine reports it, for the current step."""
        if self.options.progress is not None:
            label, rules = self.step
            self.options.progress(Progress("progress", label, rules, percent=percent))

    def engine_error(self, error: Exception, plans: Sequence[AnyPlan], sql: str | None) -> None:
        """Hands the engine's own message (the exception the session translated) to
        `--verbose`; it never reaches a result."""
        if self.options.on_error is None:
            return
        cause = error.__cause__ or error.__context__
        message = f"{type(cause).__name__}: {cause}" if cause is not None else str(error)
        for key in [plan.rule.key for plan in plans] or [""]:  # "": the connection itself
            self.options.on_error(key, message, sql)

    def settle(self, plans: Sequence[AnyPlan], status: Status, code: str,
               provider_code: str | None = None, detail: str | None = None,
               sql: str | None = None, message: str | None = None) -> None:
        """`sql`: the statement whose error ended the rules; `--show-sql` reports it as it
        does a measured rule's."""
        shown = sql if self.options.show_sql else None
        for plan in plans:
            self.results.setdefault(plan.rule.key, result_of(
                plan.rule, status, unit=plan.rule.unit,
                diagnostic=diagnostic(code, provider_code, detail, message=message), sql=shown,
            ))


def limit_code(state: RunState) -> str:
    return "budget-exhausted" if state.budget_bound() else "timeout"


def probe(state: RunState, session: Session, segments: tuple[str, ...], exact: bool,
           rule: Rule, read: Callable[[tuple[str, ...]], T]) -> tuple[tuple[str, ...], T]:
    """The object's columns (`read`: the session's column probe, or its column facts); a
    missing name without physicalName is tried again as the engine reads it unquoted (issue
    10.3), and the report says so."""
    try:
        return segments, read(segments)
    except ProviderError as error:
        folded = unquoted_reading(session.dialect, segments[-1], exact=exact)
        if error.category != "missing-object" or folded is None:
            raise
        other = (*segments[:-1], folded)
        try:
            columns = read(other)
        except ProviderError:
            raise error from None
        state.renamed[segments] = other
        note = resolved_note("object", segments[-1], folded, session.dialect,
                             f"schema[{rule.target.object_name}]")
        if note not in state.notes:
            state.notes.append(note)
        return other, columns


def judged(rule: Rule, value: Fraction | bool, *, hint: str = _SQL_HINT,
            **fields: Any) -> RuleResult:
    """The verdict of a rule's expectations on its measured value; a rule without any is
    told which key to add."""
    judged = verdict(rule.expectations, value)
    found = diagnostic(judged.diagnostic) if judged.diagnostic else None
    if found is not None and found.code == "no-expectation":
        found = Diagnostic(found.code, f"{found.message}: add one, e.g. {hint}")
    return result_of(rule, Status(judged.status), value=value, failed=judged.failed,
                   diagnostic=found, **fields)

"""Canonical, inert declarations: every loader produces these, the compiler consumes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from fractions import Fraction

from packata_sql.contracts.durations import Duration

# A YAML/JSON value after loading: numbers are exact (int or Decimal), never float.
Scalar = str | int | Decimal | bool | None
Operand = Fraction | bool
Interval = tuple[Fraction, Fraction]


class Category(Enum):
    CONSTRAINT = "constraint"
    QUALITY = "quality"
    SLA = "sla"


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"


class Level(Enum):
    """An error finding blocks its rule (one that names no rule keeps the run from passing);
    a warning does not; an info finding says how a declaration was read (another version's
    or tool's spelling of an ODCS 3 key) and changes nothing."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Operator(Enum):
    EQ = "mustBe"
    NE = "mustNotBe"
    GT = "mustBeGreaterThan"
    GE = "mustBeGreaterOrEqualTo"
    LT = "mustBeLessThan"
    LE = "mustBeLessOrEqualTo"
    BETWEEN = "mustBeBetween"
    NOT_BETWEEN = "mustNotBeBetween"


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    source_path: str
    level: Level = Level.ERROR
    rule_key: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class Expectation:
    operator: Operator
    operand: Operand | Interval
    inclusive: bool = False  # only meaningful for the two range operators


@dataclass(frozen=True)
class Relation:
    """Where one object's rules read in place of the table the contract declares (a dbt
    model's relation: schema segments, then its name), or the finding that skips them
    (`refusal`; `for_object`: it is also one finding on the contract, not only per rule)."""

    segments: tuple[str, ...] = ()
    refusal: Finding | None = None
    for_object: bool = False


@dataclass(frozen=True)
class Target:
    """What a rule measures: an object (table/view) and optionally one property (column)."""

    object_name: str
    physical_object: str
    property_path: tuple[str, ...] = ()
    physical_property: str | None = None
    logical_type: str | None = None
    nested: bool = False  # a nested property or array item: no top-level column to measure
    #: The contract gave a physicalName, so the object/property name is used exactly as written;
    #: without one, a missing name is read as the engine reads an unquoted identifier.
    exact_object: bool = False
    exact_property: bool = False
    #: A nested property reached through `object` properties: the physical field names inside
    #: `physical_property`, outermost first. Empty for a top-level property and for anything
    #: under array `items` or a `map`, which is never flattened implicitly.
    fields: tuple[str, ...] = ()
    #: The zone a nested field's `logicalTypeOptions.defaultTimezone` declares (a top-level
    #: property's is read from the schema), None when it declares none.
    zone: str | None = None

    @property
    def unreachable(self) -> bool:
        """Nested, yet not a field of a struct or JSON column: array items or map entries."""
        return self.nested and not self.fields


@dataclass(frozen=True)
class Library:
    metric: str
    arguments: tuple[tuple[str, object], ...] = ()

    def argument(self, name: str) -> object:
        return dict(self.arguments).get(name)

    def has(self, name: str) -> bool:
        return any(key == name for key, _ in self.arguments)


@dataclass(frozen=True)
class Constraint:
    """What a schema declares about permitted data (docs/formats.md, "Constraints"):
    `kind` names one check (`required`, `unique`, `primaryKey`, a logicalTypeOptions key, or a
    catalog check `present`/`logicalType`/`physicalType`), `columns` the physical columns in
    order (a composite primary key in position order)."""

    kind: str
    columns: tuple[str, ...] = ()
    arguments: tuple[tuple[str, object], ...] = ()

    def argument(self, name: str) -> object:
        return dict(self.arguments).get(name)

    def has(self, name: str) -> bool:
        return any(key == name for key, _ in self.arguments)


@dataclass(frozen=True)
class Sql:
    query: str


@dataclass(frozen=True)
class Predicate:
    """Authored SQL as much as a `Sql` query: a boolean expression over one row that the
    declaration supplies (a pipeline `expression` rule), measured as the count of rows where it
    is not true. It runs as an authored query, so the read-only decision, the binder and the
    deny-list that hold for SQL rules hold for it (issue 20.1)."""

    expression: str


#: Definitions whose SQL text the declaration wrote: refused wherever authored SQL is.
AUTHORED = (Sql, Predicate)


@dataclass(frozen=True)
class Text:
    description: str


@dataclass(frozen=True)
class Custom:
    engine: str


#: The ODCS `custom` engine whose rules packata-sql compiles (issue 22): Expressif.
EXPRESSIF_ENGINE = "expressif"


@dataclass(frozen=True)
class Expressif:
    """An ODCS `custom` rule for engine `expressif`: executable by design, so never accepted
    unexecuted. The payload stays as written (a JSON string, or a mapping frozen as pairs);
    the compiler reads it, so a malformed one is a compilation finding on this rule.
    `arguments` are the rule's typed declaration arguments, bound as `@name` through the
    driver, never as program or SQL text."""

    implementation: str | tuple[tuple[str, object], ...]
    arguments: tuple[tuple[str, object], ...] = ()

    def payload(self) -> str | dict[str, object]:
        """The implementation as the payload reader takes it."""
        if isinstance(self.implementation, str):
            return self.implementation
        return dict(self.implementation)


@dataclass(frozen=True)
class Latency:
    """An SLA `latency` (alias `freshness`): the newest value of the rule's column may be no
    older than `limit` at the run's observation time (docs/semantics.md 1.1). `zone`: the IANA
    zone a value without one is read in: the property's `logicalTypeOptions.defaultTimezone`
    as loaded (None: it declares none), resolved by the compiler to the server's, the
    contract's or UTC (contracts/zones.py), with `declared_by` saying whose it is."""

    limit: Duration | None  # None: the declaration's value or unit is unusable (a finding)
    zone: str | None = None
    declared_by: str = ""


@dataclass(frozen=True)
class SlaDescriptive:
    """An SLA property no query can observe (`retention`, `frequency`, `availability`, …):
    listed in every report as `sla-descriptive`, never run and never a pass."""

    property: str


Definition = (Library | Constraint | Sql | Predicate | Text | Custom | Expressif | Latency
              | SlaDescriptive)


@dataclass(frozen=True)
class Rule:
    key: str
    source_path: str
    category: Category
    target: Target
    definition: Definition
    expectations: tuple[Expectation, ...] = ()
    unit: str = "rows"
    severity: Severity = Severity.ERROR
    line: int | None = None
    name: str | None = None
    #: The rule's own `description`, for reports (a text rule's is its definition).
    description: str | None = None


@dataclass(frozen=True)
class Server:
    name: str
    type: str
    settings: tuple[tuple[str, object], ...] = ()

    def setting(self, key: str) -> object:
        return dict(self.settings).get(key)


@dataclass(frozen=True)
class SchemaProperty:
    """One declared property (top-level, or a field nested in one through `object`
    properties) and what its schema says about permitted data."""

    name: str
    physical: str
    logical_type: str | None = None
    physical_type: str | None = None
    required: bool = False
    unique: bool = False
    primary_key: bool = False
    primary_key_position: int | None = None
    #: logicalTypeOptions, in declaration order (values frozen: lists are tuples).
    options: tuple[tuple[str, object], ...] = ()
    #: Where the property is declared (for keys, findings and lines).
    source_path: str = ""
    line: int | None = None
    #: A physicalName was given: the column is that name exactly (no unquoted reading).
    exact: bool = False
    #: ODCS 3.2 `enum`: the allowed values (None when not declared).
    enum: tuple[object, ...] | None = None
    #: The line of each declaration (`required`, `logicalTypeOptions.maxLength`, …), when known.
    lines: tuple[tuple[str, int | None], ...] = ()
    #: Declarations that cannot be checked as written (`required: "yes"`, a misspelt key), each
    #: with its finding: each becomes a skipped rule, never a silent drop.
    problems: tuple[tuple[str, Finding], ...] = ()
    #: A nested property: its logical names from the top-level property down (the rule keys
    #: keep them), and its physical field names inside the top-level column `physical`.
    names: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    #: ODCS `classification` (`pii`, `restricted`, …): `--samples` withholds such values.
    classification: str | None = None
    #: ODCS `tags` (a `pii` tag withholds values as the classification does).
    tags: tuple[str, ...] = ()

    def line_of(self, declaration: str) -> int | None:
        return dict(self.lines).get(declaration) or self.line


@dataclass(frozen=True)
class SchemaObject:
    """The declared shape of one object: what rules may refer to by name."""

    name: str
    physical: str
    properties: tuple[SchemaProperty, ...] = ()
    source_path: str = ""
    line: int | None = None
    exact: bool = False  # a physicalName was given
    #: Every nested property (a field, array items, a map's key or value) by its logical
    #: path (`names`), with its `classification` and `tags` only: what `--samples` withholds
    #: below the top level.
    nested: tuple[SchemaProperty, ...] = ()
    #: The object's own `tags` (a `pii` tag withholds every column from `--samples`).
    tags: tuple[str, ...] = ()

    def property(self, name: str) -> SchemaProperty | None:
        return next((p for p in self.properties if p.name == name), None)


@dataclass(frozen=True)
class Contract:
    path: str
    rules: tuple[Rule, ...]
    findings: tuple[Finding, ...] = ()
    servers: tuple[Server, ...] = field(default=())
    objects: tuple[SchemaObject, ...] = field(default=())
    #: Schema drift against the declared schema, when the contract enables it: the
    #: per-change classification overrides (`change`, `compatible|warning|breaking`).
    schema_drift: tuple[tuple[str, str], ...] | None = None
    #: The contract accepts its rules that are not executable by design (text, custom for
    #: other engines) as skipped without keeping the run incomplete (custom property).
    accept_unexecutable: bool = False
    #: Drift classification overrides that apply when drift runs (`--schema-drift`,
    #: `--baseline`) without turning it on: a JSON policy's `schema_policy`.
    drift_overrides: tuple[tuple[str, str], ...] = ()
    #: What the report records about the declaration itself: format, version, SHA-256.
    declaration: tuple[tuple[str, str | None], ...] = ()
    #: The contract's own `id` and `version` (for report metadata), when it gives them.
    id: str | None = None
    version: str | None = None
    #: The contract's `defaultTimezone` custom property, as written (contracts/zones.py).
    zone: str | None = None

    def object(self, name: str) -> SchemaObject | None:
        return next((o for o in self.objects if o.name == name), None)

    def checked_objects(self) -> dict[str, str]:
        """Every object a rule checks, name → physical name: the declared schema's (ODCS, a
        policy's implied one) and, for a pipeline, which declares none, the object its rules
        name. What the dbt paths map to models, so no format maps to nothing."""
        found = {o.name: o.physical or o.name for o in self.objects}
        for rule in self.rules:
            if rule.target.object_name:
                found.setdefault(rule.target.object_name,
                                 rule.target.physical_object or rule.target.object_name)
        checked = {r.target.object_name for r in self.rules}
        return {name: physical for name, physical in found.items() if name in checked}


@dataclass(frozen=True)
class Site:
    """Where a declaration lives, so every finding about it can name the same place."""

    source_path: str
    rule_key: str | None = None
    line: int | None = None

    def finding(self, code: str, message: str, level: Level = Level.ERROR) -> Finding:
        return Finding(code, message, self.source_path, level, self.rule_key, self.line)

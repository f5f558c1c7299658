"""What every metric handler shares: argument checking, scopes, typed membership."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from zoneinfo import ZoneInfo

import sqlglot.expressions as exp

from packata_sql.catalog.holding import (
    ColumnType,
    column_type,
    exact_bound,
    number_problem,
    temporal_text,
)
from packata_sql.catalog.temporal import not_temporal, offset_instant
from packata_sql.contracts.model import Finding, Level, Library, Rule, SchemaObject, Site
from packata_sql.dialects import Dialect, DistinctPlan, Family, Layout, number_literal
from packata_sql.dialects.fields import field_reference, struct_field
from packata_sql.values import format_value

UNITS = ("rows", "percent")
_LOGICAL_FAMILIES = {
    "string": Family.TEXT,
    "integer": Family.NUMBER,
    "number": Family.NUMBER,
    "boolean": Family.BOOLEAN,
    "date": Family.TEMPORAL,
    "timestamp": Family.TEMPORAL,
    "time": Family.TEMPORAL,
    "object": Family.OTHER,
    "array": Family.OTHER,
}
# Which member kinds a column family can hold (docs/semantics.md 3.2: typed membership).
_HOLDS = {
    Family.TEXT: {Family.TEXT},
    Family.NUMBER: {Family.NUMBER},
    Family.BOOLEAN: {Family.BOOLEAN},
    Family.TEMPORAL: {Family.TEXT},
    Family.OTHER: set(),
}


class TypeMismatch(Exception):
    """The measurement cannot be computed on this column type without a silent cast."""


class EngineRefused(TypeMismatch):
    """The engine the run reads cannot give the measurement its exact meaning (what its
    server says, not only its dialect: PostgreSQL without the "C.utf8" collation): the
    finding `code`, whose `message` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def logical_family(logical_type: str | None) -> Family | None:
    return _LOGICAL_FAMILIES.get((logical_type or "").lower())


def member_family(member: object) -> Family | None:
    """The kind of a membership value; None for NULL. Raises ValueError for lists/maps/NaN."""
    if member is None:
        return None
    if isinstance(member, bool):
        return Family.BOOLEAN
    if isinstance(member, int):
        return Family.NUMBER
    if isinstance(member, Decimal):
        if not member.is_finite():
            raise ValueError("not finite")
        return Family.NUMBER
    if isinstance(member, str):
        return Family.TEXT
    raise ValueError("not a scalar")


@dataclass(frozen=True)
class MeasureContext:
    """What rendering needs to know about one object at the moment SQL is built."""

    dialect: Dialect
    table: exp.Table
    families: Mapping[str, Family | None]  # physical column → family, None when unknown
    #: Physical column → its type as the engine's catalog names it (`decimal(10,2)`), where
    #: read: members and bounds are checked against it (catalog/holding.py).
    native_types: Mapping[str, str] = field(default_factory=dict)
    #: What rendering decided on the column types (a member a column cannot hold), as
    #: warnings for the rule being rendered; `take_notes` hands them over.
    notes: list[str] = field(default_factory=list)
    #: Physical column → the IANA zone its values without a zone are read in (the property's
    #: `logicalTypeOptions.defaultTimezone`); UTC where not declared.
    zones: Mapping[str, str] = field(default_factory=dict)
    #: The rule being rendered measures a nested property: its column → the physical field
    #: path inside it and the leaf's declared logicalType (`with_fields`).
    fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    declared_leaf: Mapping[str, str | None] = field(default_factory=dict)

    def with_fields(self, column: str, fields: tuple[str, ...], declared: str | None,
                    zone: str | None = None) -> MeasureContext:
        """The context for one rule on a nested property: `column(column)` is then the field,
        its values without a zone read in `zone` (the field's own; UTC if None)."""
        zones = {**self.zones, column: zone} if zone else {
            k: v for k, v in self.zones.items() if k != column}
        return replace(self, fields={column: fields}, declared_leaf={column: declared},
                       zones=zones)

    def layout(self, name: str) -> Layout:
        """How the column holds the rule's fields; raises TypeMismatch where it holds none."""
        native = self.native_types.get(name)
        found = self.dialect.field_layout(native)
        if found is None:
            raise TypeMismatch
        return found

    def take_notes(self) -> list[str]:
        taken = list(self.notes)
        self.notes.clear()
        return taken

    def native(self, name: str) -> str | None:
        """The column's type as the catalog names it, or its nested struct field's (a JSON
        document's fields have none); None where not read."""
        native = self.native_types.get(name)
        path = self.fields.get(name)
        if path is None or native is None:
            return native
        found = struct_field(native, path, self.dialect)
        return found.native if found is not None else None

    def held(self, name: str) -> ColumnType | None:
        """What the column's native type holds, on engines whose cells follow it."""
        if name in self.fields:
            return None  # the leaf's own type is not read to this precision
        native = self.native_types.get(name)
        if native is None or self.dialect.dynamic_typing:
            return None
        return column_type(native, self.dialect)

    def _cannot_hold(self, name: str, member: object, held: ColumnType, why: str) -> exp.Expr:
        shown = format_value(Fraction(member)) if isinstance(member, int | Decimal) else member
        note = (f"the member {shown!r} cannot be held by column '{name}' ({held.label}): {why}; "
                "it matches no cell")
        if note not in self.notes:
            self.notes.append(note)
        return exp.false()

    def number_compare(self, name: str, op: type[exp.Binary], number: Fraction) -> exp.Expr:
        """`column op number`, exact on every engine: the bound moved onto the column type's
        step (Spark rounds a finer literal to the column's scale), or TRUE/FALSE beyond the
        type's range."""
        column = self.column(name)
        held = self.held(name)
        bound = exact_bound(op, number, held) if held is not None else number
        if isinstance(bound, bool):
            return exp.true() if bound else exp.false()
        return op(this=column, expression=number_literal(bound))

    def column(self, name: str) -> exp.Expr:
        """The column, or the rule's nested field inside it (dialects/fields.py)."""
        path = self.fields.get(name)
        if path is None:
            return self.dialect.column(name)
        return field_reference(self.dialect, name, path, layout=self.layout(name),
                               leaf=self.family(name))

    def enclosing(self, name: str) -> exp.Expr | None:
        """Non-NULL exactly where the object holding the rule's nested field exists; None for
        a top-level column. A nested `required` counts missing fields only there."""
        path = self.fields.get(name)
        if path is None:
            return None
        return self.dialect.nested_object(self.dialect.column(name), path[:-1],
                                          self.layout(name))

    def family(self, name: str) -> Family | None:
        path = self.fields.get(name)
        if path is None:
            return self.families.get(name)
        return self._leaf_family(name, path)

    def _leaf_family(self, name: str, path: tuple[str, ...]) -> Family | None:
        """A struct field's family as its catalog type says (the declared logicalType before
        a catalog is read); a JSON leaf is read as its declared type (docs/formats.md)."""
        if self.dialect.dynamic_typing:
            return Family.DYNAMIC
        declared = logical_family(self.declared_leaf.get(name))
        native = self.native_types.get(name)
        if self.layout(name) is Layout.STRUCT:
            found = struct_field(native, path, self.dialect) if native is not None else None
            return found.family if found is not None and found.found else declared
        if declared in (Family.NUMBER, Family.BOOLEAN, Family.OTHER):
            return declared
        return Family.TEXT

    def key(self, name: str) -> exp.Expr:
        """A column as a byte-exact key, where collations could otherwise merge values."""
        column = self.column(name)
        if self.family(name) in (Family.TEXT, Family.DYNAMIC):
            return self.dialect.binary_key(column)
        return column

    def member_match(self, name: str, member: object) -> exp.Expr:
        column = self.column(name)
        if member is None:
            return exp.Is(this=column, expression=exp.Null())
        kind = member_family(member)
        family = self.family(name)
        if family not in (None, Family.DYNAMIC):
            if family is Family.OTHER:
                raise TypeMismatch
            if kind not in _HOLDS[family]:
                return exp.false()  # a text member can never equal a number cell, and so on
            if family is Family.TEMPORAL:
                assert isinstance(member, str)
                if not_temporal(member, None):
                    return exp.false()  # not a date/time at all: it matches no cell
                return self._temporal_equals(name, member)
        if isinstance(member, bool):
            return self.dialect.boolean_equals(column, member)
        if isinstance(member, str):
            return self.dialect.text_equals(column, member)
        assert isinstance(member, int | Decimal)
        held = self.held(name)
        why = number_problem(Fraction(member), held) if held is not None else None
        if held is not None and why is not None:
            return self._cannot_hold(name, member, held, why)
        return self.dialect.number_equals(column, Fraction(member))

    def _instant_equals(self, name: str, member: str, instant: datetime) -> exp.Expr:
        """A member with an offset is an instant: equal to a cell of a column of instants at
        that instant, and to a zone-less cell whose wall clock, read in the column's zone,
        is that instant."""
        held = self.held(name)
        if held is not None and held.kind != "timestamp":
            return self._cannot_hold(name, member, held, "it is an instant (it has an offset)")
        if self.dialect.holds_instants(self.native(name)):
            return exp.EQ(this=self.column(name), expression=self.dialect.instant_literal(instant))
        wall = instant.astimezone(ZoneInfo(self.zones.get(name, "UTC"))).replace(tzinfo=None)
        return self._temporal_equals(name, wall.isoformat(sep=" "))

    def _temporal_equals(self, name: str, member: str) -> exp.Expr:
        instant = offset_instant(member)
        if instant is not None:
            return self._instant_equals(name, member, instant)
        held = self.held(name)
        text, why = temporal_text(member, held) if held is not None else (member, None)
        if held is not None and (text is None or why is not None):
            return self._cannot_hold(name, member, held, why or "")
        return exp.EQ(this=self.column(name), expression=exp.Literal.string(text or member))

    def any_member(self, name: str, members: tuple[object, ...]) -> exp.Expr:
        matches: list[exp.Expr] = [exp.paren(self.member_match(name, m), copy=False) for m in members]
        if not matches:
            return exp.false()
        return _any_of(matches)


#: The longest left-deep OR chain; longer lists are split in halves.
_CHAIN = 64


def _any_of(matches: list[exp.Expr]) -> exp.Expr:
    """OR of the matches. A left-deep chain of a thousand members passes SQLite's expression
    depth limit (1000), so long lists become parenthesised halves (depth ~ log n)."""
    if len(matches) > _CHAIN:
        middle = len(matches) // 2
        return exp.Or(this=exp.paren(_any_of(matches[:middle]), copy=False),
                      expression=exp.paren(_any_of(matches[middle:]), copy=False))
    combined = matches[0]
    for match in matches[1:]:
        combined = exp.Or(this=combined, expression=match)
    return combined


class MetricHandler:
    """One library metric: its arguments, its scopes and its integer count."""

    name: str = ""
    object_scope: bool = False
    property_scope: bool = True
    percent: bool = True
    arguments: frozenset[str] = frozenset()
    #: The expectation a rule without one most likely means, offered in its diagnostic.
    threshold_hint: str = "'mustBe: 0'"

    def validate(self, rule: Rule, library: Library, schema: SchemaObject | None,
                 site: Site) -> list[Finding]:
        findings = []
        on_property = bool(rule.target.property_path)
        if (on_property and not self.property_scope) or (not on_property and not self.object_scope):
            scope = "a property" if on_property else "an object"
            findings.append(site.finding("wrong-scope", f"'{self.name}' cannot be declared on {scope}"))
        for key, _ in library.arguments:
            if key not in self.arguments:
                from packata_sql.spelling import closest

                match = closest(key, self.arguments)
                hint = f"; did you mean '{match}'?" if match else ""
                findings.append(site.finding(
                    "unknown-argument", f"'{self.name}' takes no argument '{key}'{hint}"
                ))
        if rule.unit not in UNITS:
            from packata_sql.spelling import closest

            match = closest(rule.unit, UNITS)
            hint = f"; did you mean '{match}'?" if match else ""
            findings.append(site.finding(
                "unknown-unit", f"'unit' must be 'rows' or 'percent', not '{rule.unit}'{hint}"))
        elif rule.unit == "percent" and not self.percent:
            findings.append(site.finding(
                "unit-not-supported", f"'{self.name}' is a count of rows; 'percent' does not apply"
            ))
        return findings + self.check_arguments(rule, library, schema, site)

    def check_arguments(self, rule: Rule, library: Library, schema: SchemaObject | None,
                        site: Site) -> list[Finding]:
        return []

    def dialect_findings(self, library: Library, dialect: Dialect, site: Site) -> list[Finding]:
        """What the target engine cannot run, found before any SQL is generated."""
        return []

    def columns(self, rule: Rule, library: Library, schema: SchemaObject | None) -> tuple[str, ...]:
        """Physical columns the count reads; each must exist before anything runs."""
        return (rule.target.physical_property,) if rule.target.physical_property else ()

    def bindings(self, rule: Rule, library: Library, dialect: Dialect,
                 zone: str | None) -> tuple[tuple[str, object], ...]:
        """The driver parameters the count reads, by name (none for a library metric)."""
        return ()

    def offending(self, rule: Rule, library: Library, context: MeasureContext,
                  columns: tuple[str, ...]) -> exp.Expr | None:
        """The predicate a row the count counts satisfies (None: no single row is to blame)."""
        return None

    def inspect(self, rule: Rule, library: Library, context: MeasureContext,
                columns: tuple[str, ...]) -> exp.Select | None:
        """A query listing the offending keys, for failure triage; never run by a check."""
        predicate = self.offending(rule, library, context, columns)
        return None if predicate is None else rows_where(context, columns, predicate)

    def count(self, rule: Rule, library: Library, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        raise NotImplementedError


def rows_where(context: MeasureContext, columns: tuple[str, ...],
               predicate: exp.Expr) -> exp.Select:
    """The checked columns (every column when the rule names none) of the rows a count blames."""
    selected: list[exp.Expr] = [context.column(c) for c in columns] or [exp.Star()]
    return exp.select(*selected).from_(context.table.copy()).where(predicate)


def repeated_keys(context: MeasureContext, columns: tuple[str, ...], *,
                  where: exp.Expr | None = None, or_having: exp.Expr | None = None) -> exp.Select:
    """Each key occurring more than once (or satisfying `or_having`) with its occurrences.
    Keys group byte for byte, as the distinct counts compare them ('a', 'A' and 'a ' stay
    apart under any collation); NULLs group as one key, as in SELECT DISTINCT."""
    shown = [context.column(c) for c in columns]
    grouped = [context.key(c) for c in columns]
    grouped += [column for column, key in zip(shown, grouped, strict=True) if key != column]
    repeated: exp.Expr = exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1))
    if or_having is not None:
        repeated = exp.Or(this=repeated, expression=or_having)
    query = exp.select(*shown, exp.alias_(exp.Count(this=exp.Star()), "occurrences", quoted=True))
    query = query.from_(context.table.copy())
    if where is not None:
        query = query.where(where)
    return query.group_by(*grouped).having(repeated)


#: What stands for a NULL cell in an in-aggregate composite key, per column family: any value
#: of the column's type does, as the key's NULL mask tells NULL from it.
_NULL_STAND_INS: dict[Family, exp.Expr] = {Family.TEXT: exp.Literal.string(""),
                                          Family.NUMBER: exp.Literal.number(0),
                                          Family.BOOLEAN: exp.false()}
#: The widest key whose NULL mask fits in a BIGINT.
_MASK_BITS = 62


def distinct_keys(context: MeasureContext, columns: tuple[str, ...], *,
                  complete: bool) -> exp.Expr:
    """How many distinct composite keys the rows hold, text compared byte for byte: only
    complete keys (no NULL in any column: `unique`, `primaryKey`) or every key with NULL equal
    to NULL, as SELECT DISTINCT reads it (`duplicateValues`). The form is the dialect's
    (`Dialect.distinct_plan`): inside the scan's aggregate, or a SELECT DISTINCT subquery."""
    keys = [context.key(c) for c in columns]
    if context.dialect.distinct_plan is DistinctPlan.IN_AGGREGATE:
        if complete:  # COUNT(DISTINCT a, b) skips every row with a NULL in its key
            return exp.Count(this=exp.Distinct(expressions=keys))
        families = [context.family(c) for c in columns]
        stand_ins = [None if f is None else _NULL_STAND_INS.get(f) for f in families]
        if len(columns) <= _MASK_BITS and all(s is not None for s in stand_ins):
            # Which columns are NULL, as bits, then each NULL replaced by a stand-in: equal
            # exactly when the keys are equal with NULL equal to NULL.
            bits = [exp.Case().when(exp.Is(this=context.column(column), expression=exp.Null()),
                                    exp.Literal.number(1 << bit)).else_(exp.Literal.number(0))
                    for bit, column in enumerate(columns)]
            mask: exp.Expr = bits[0]
            for bit_value in bits[1:]:
                mask = exp.Add(this=mask, expression=bit_value)
            filled = [exp.Coalesce(this=key, expressions=[stand_in.copy()])
                      for key, stand_in in zip(keys, stand_ins, strict=True) if stand_in]
            return exp.Count(this=exp.Distinct(expressions=[mask, *filled]))
    rows = exp.select(*keys).distinct().from_(context.table.copy())
    if complete:
        for column in columns:
            rows = rows.where(exp.Not(this=exp.paren(
                exp.Is(this=context.column(column), expression=exp.Null()), copy=False)))
    counted = exp.select(exp.Count(this=exp.Star())).from_(rows.subquery("packata_keys"))
    return counted.subquery()


def check_members(values: object, argument: str, logical_type: str | None, site: Site,
                  metric: str) -> list[Finding]:
    """A membership list: scalars only, each comparable with the declared logical type."""
    if not isinstance(values, tuple):
        return [site.finding("invalid-argument", f"'{metric}.{argument}' must be a list")]
    declared = logical_family(logical_type)
    findings = []
    for position, member in enumerate(values):
        try:
            kind = member_family(member)
        except ValueError as problem:
            findings.append(site.finding(
                "invalid-argument", f"'{metric}.{argument}[{position}]' is {problem}"
            ))
            continue
        if declared is Family.TEMPORAL and isinstance(member, str) \
                and not_temporal(member, logical_type):
            findings.append(site.finding(
                "member-not-representable",
                f"'{metric}.{argument}[{position}]' is not a valid {logical_type} (ISO "
                "YYYY-MM-DD, YYYY-MM-DD HH:MM:SS with an optional Z or ±HH:MM offset, HH:MM:SS): it "
                "matches no cell",
                Level.WARNING,
            ))
            continue
        if kind is not None and declared is not None and kind not in _HOLDS[declared]:
            findings.append(site.finding(
                "member-type-mismatch",
                f"'{metric}.{argument}[{position}]' is {kind.value}, which a "
                f"'{logical_type}' property cannot hold: it matches no cell (members are "
                "compared without casts)",
                Level.WARNING,
            ))
    return findings


def held_members(members: tuple[object, ...], logical_type: str | None) -> tuple[object, ...]:
    """The members a property of the declared logical type can hold (NULL always): the others
    match no cell on any engine, whatever a dynamically typed engine stores."""
    declared = logical_family(logical_type)
    if declared is None:
        return members
    return tuple(m for m in members if m is None or (
        member_family(m) in _HOLDS[declared]
        and not (declared is Family.TEMPORAL and isinstance(m, str)
                 and not_temporal(m, logical_type))))


def too_deep(tree: exp.Expr, limit: int, nodes: int | None = None) -> bool:
    """Nested deeper than `limit` levels, which SQL generation recurses through (`a::INT::INT…`,
    `REPLACE(REPLACE(…))`), or, given `nodes`, holding more nodes than that; AND/OR chains do
    not count as depth: sqlglot generates them without recursion."""
    pending = [(tree, 1)]
    seen = 0
    while pending:
        node, depth = pending.pop()
        seen += 1
        if depth > limit or (nodes is not None and seen > nodes):
            return True
        chained = isinstance(node, exp.Connector)
        pending.extend((child, depth if chained and isinstance(child, exp.Connector) else depth + 1)
                       for child in node.iter_expressions())
    return False

"""Constraint rules derived from a declared schema, for every declaration format.

A loader (ODCS today; a JSON policy or a pipeline file later) builds `SchemaObject`s with what
the schema says about permitted data and calls `constraint_rules`: the rules, their keys
(`schema[orders].properties[id].required`) and their expectations are decided here once, so
two formats that declare the same schema produce the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from fractions import Fraction

from packata_sql.contracts.model import (
    Category,
    Constraint,
    Expectation,
    Finding,
    Level,
    Operator,
    Rule,
    SchemaObject,
    SchemaProperty,
    Severity,
    Target,
)
from packata_sql.contracts.zones import property_zone

#: Checks answered from the engine's catalog, without reading rows.
CATALOG_KINDS = frozenset({"present", "logicalType", "physicalType", "drift"})
#: Row-reading checks whose measurement is a count of violating rows (expected: zero).
ROW_KINDS = frozenset({"required", "unique", "primaryKey"})
#: logicalTypeOptions keys that modify another option instead of being a check of their own.
MODIFIERS = frozenset({"exclusiveMinimum", "exclusiveMaximum"})
#: logicalTypeOptions keys that say how values are read, not what they may be: the zone of a
#: timestamp without one (read by an SLA latency, docs/semantics.md 1.1).
READING = frozenset({"timezone", "defaultTimezone"})
#: The kind of a rule for a declaration that cannot be checked as written: the loader's finding
#: skips it (SchemaProperty.problems).
INVALID = "invalid"
_NO_VIOLATIONS = (Expectation(Operator.EQ, Fraction(0)),)


def object_key(obj: SchemaObject) -> str:
    return f"schema[{obj.name}]"


def property_key(obj: SchemaObject, prop: SchemaProperty) -> str:
    """`schema[orders].properties[customer].properties[city]` for a nested field: the
    logical path, as the keys of quality rules written on it."""
    names = prop.names or (prop.name,)
    return object_key(obj) + "".join(f".properties[{name}]" for name in names)


def constraint_rules(obj: SchemaObject, taken: set[str]) -> tuple[list[Rule], list[Finding]]:
    """Every constraint rule `obj` declares, in declaration order, then its primary key.
    `taken` holds the keys already used in the contract; new keys are added to it."""
    rules: list[Rule] = []
    findings: list[Finding] = []
    for prop in obj.properties:
        for definition, suffix in _property_checks(prop):
            key = _allocate(f"{property_key(obj, prop)}.{suffix}", taken, prop, findings)
            rules.append(_rule(obj, prop, key, suffix, definition))
        for declaration, problems in _problems_by_declaration(prop).items():
            key = _allocate(f"{property_key(obj, prop)}.{declaration}", taken, prop, findings)
            definition = Constraint(INVALID, (prop.physical,), (("declaration", declaration),))
            rules.append(_rule(obj, prop, key, declaration, definition))
            findings += [replace(problem, rule_key=key) for problem in problems]
    key_columns = primary_key(obj)
    if key_columns:
        first = next(p for p in obj.properties if p.primary_key)
        key = _allocate(f"{object_key(obj)}.primaryKey", taken, first, findings)
        columns = tuple(p.physical for p in key_columns)
        definition = Constraint("primaryKey", columns,
                                (("properties", tuple(p.name for p in key_columns)),))
        target = Target(obj.name, obj.physical, exact_object=obj.exact)
        rules.append(Rule(key, f"{obj.source_path}.primaryKey", Category.CONSTRAINT, target,
                          definition, _NO_VIOLATIONS, line=first.line_of("primaryKey")))
    return rules, findings


def shown_kind(constraint: Constraint) -> str:
    """The kind reports name: an invalid declaration is named by what it declares
    (`required`, `maxLength`), not by the placeholder kind its skipped rule carries."""
    if constraint.kind == INVALID:
        declared = constraint.argument("declaration")
        if isinstance(declared, str) and declared:
            return declared.rsplit(".", 1)[-1]
    return constraint.kind


def catalog_expectation(constraint: Constraint) -> str | None:
    """What a catalog check expects, in the words reports print after "expected" (its rule
    has no `mustBe…` to describe); None for a row-reading constraint."""
    kind = constraint.kind
    if kind == "present":
        names = ", ".join(constraint.columns)
        return f"the column{'s' if len(constraint.columns) > 1 else ''} {names} to exist"
    if kind == "logicalType":
        return f"logicalType {constraint.argument('logicalType')}"
    if kind == "physicalType":
        return f"physicalType {constraint.argument('physicalType')}"
    if kind == "drift":
        return "no warning or breaking schema drift"
    return None


def primary_key(obj: SchemaObject) -> tuple[SchemaProperty, ...]:
    """The key's properties in `primaryKeyPosition` order (undeclared positions last, in
    declaration order)."""
    members = [(p.primary_key_position, index, p) for index, p in enumerate(obj.properties)
               if p.primary_key]
    members.sort(key=lambda m: (m[0] is None, m[0] or 0, m[1]))
    return tuple(p for _, _, p in members)


def _problems_by_declaration(prop: SchemaProperty) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = {}
    for declaration, problem in prop.problems:
        grouped.setdefault(declaration, []).append(problem)
    return grouped


def _property_checks(prop: SchemaProperty) -> Iterable[tuple[Constraint, str]]:
    column = (prop.physical,)
    # A nested field's are answered from its struct's catalog type, or counted in its JSON
    # documents (docs/semantics.md, "Nested fields").
    yield from _catalog_checks(prop, column)
    if prop.required:
        yield Constraint("required", column), "required"
    if prop.unique:
        yield Constraint("unique", column), "unique"
    if prop.enum is not None:
        yield Constraint("enum", column, (("enum", prop.enum),
                                          ("logicalType", prop.logical_type))), "enum"
    options = dict(prop.options)
    for name, value in prop.options:
        if name in READING or (name in MODIFIERS and isinstance(value, bool)):
            continue  # the boolean form qualifies minimum/maximum (ODCS 3.0)
        arguments: list[tuple[str, object]] = [(name, value)]
        bound = {"minimum": "exclusiveMinimum", "maximum": "exclusiveMaximum"}.get(name)
        if bound is not None and isinstance(options.get(bound), bool):
            arguments.append(("exclusive", options[bound]))
        arguments.append(("logicalType", prop.logical_type))
        yield Constraint(name, column, tuple(arguments)), f"logicalTypeOptions.{name}"


def _catalog_checks(prop: SchemaProperty,
                    column: tuple[str, ...]) -> Iterable[tuple[Constraint, str]]:
    if not (prop.logical_type or prop.physical_type):
        yield Constraint("present", column), "present"  # the type checks include presence
    if prop.logical_type:
        yield Constraint("logicalType", column,
                         (("logicalType", prop.logical_type),)), "logicalType"
    if prop.physical_type:
        yield Constraint("physicalType", column,
                         (("physicalType", prop.physical_type),)), "physicalType"


def _rule(obj: SchemaObject, prop: SchemaProperty, key: str, declaration: str,
          definition: Constraint) -> Rule:
    """`declaration` is where on the property the check is written (`required`,
    `logicalTypeOptions.maxLength`); the rule's path and line point there."""
    target = Target(obj.name, obj.physical, prop.names or (prop.name,), prop.physical,
                    prop.logical_type, nested=bool(prop.fields), exact_object=obj.exact,
                    exact_property=prop.exact, fields=prop.fields,
                    zone=property_zone(prop)[0] if prop.fields else None)
    expectations = () if definition.kind in CATALOG_KINDS | {INVALID} else _NO_VIOLATIONS
    return Rule(key, f"{prop.source_path}.{declaration}", Category.CONSTRAINT, target,
                definition, expectations, severity=Severity.ERROR,
                line=prop.line_of(declaration))


def _allocate(wanted: str, taken: set[str], prop: SchemaProperty,
              findings: list[Finding]) -> str:
    key = wanted
    while key in taken:
        key = f"{wanted}#{len(taken)}"
    if key != wanted:
        findings.append(Finding(
            "duplicate-key", f"rule key '{wanted}' is used twice; this rule is keyed '{key}'",
            prop.source_path, Level.WARNING, key, prop.line,
        ))
    taken.add(key)
    return key

"""Two versions of a contract compared (`packata-sql diff OLD NEW`): objects, fields and rules
added, removed or changed, each change classified `compatible`, `warning` or `breaking` by the
schema-drift table (`contracts/drift.py`) plus the rule keys below, every key overridable.

The classes read from the consumer's side, as drift does: a promise withdrawn or weakened
(a field removed, NULLs allowed, a rule removed or loosened) is breaking; a new or stricter
promise (a rule added or tightened) is a warning, since data that passed may now fail it.
No warehouse is read: both sides are declarations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError

from packata_sql.contracts.drift import _ORDER, DEFAULTS, Classification, Field, fields_from_schema
from packata_sql.contracts.expectations import describe
from packata_sql.contracts.model import (
    Constraint,
    Contract,
    Expectation,
    Operator,
    Rule,
    SchemaObject,
    Severity,
)

#: Change keys a contract diff adds to the drift table, with their default classification.
DIFF_DEFAULTS: dict[str, Classification] = {
    "object-added": Classification.COMPATIBLE,
    "object-removed": Classification.BREAKING,
    "rule-added": Classification.WARNING,
    "rule-removed": Classification.BREAKING,
    "rule-tightened": Classification.WARNING,  # a narrower expectation, or warning → error
    "rule-loosened": Classification.BREAKING,  # a wider expectation, or error → warning
    "rule-changed": Classification.WARNING,  # another measurement, unit or argument
}
#: Every key `diff` classifies, and so every key `--drift` may override there.
CHANGE_KEYS: dict[str, Classification] = {**DEFAULTS, **DIFF_DEFAULTS}
#: Constraint rules the field comparison already covers (types, nullability, presence).
_FIELD_KINDS = frozenset({"present", "logicalType", "physicalType", "required", "drift"})
_DT = exp.DataType.Type
_INTEGERS = ((_DT.TINYINT, _DT.UTINYINT), (_DT.SMALLINT, _DT.USMALLINT),
             (_DT.MEDIUMINT, _DT.UMEDIUMINT), (_DT.INT, _DT.UINT), (_DT.BIGINT, _DT.UBIGINT),
             (_DT.INT128, _DT.UINT128, _DT.INT256, _DT.UINT256))
_POSITION = re.compile(r"\.quality\[\d+\]$")
#: Records one change: object, subject, change key, before, after.
_Add = Callable[..., None]
_NUMBERS = frozenset({_DT.DECIMAL, _DT.DOUBLE, _DT.FLOAT, _DT.BIGDECIMAL, _DT.UDECIMAL})


@dataclass(frozen=True)
class ContractChange:
    """One change: `subject` is the field's name or the rule's key ('' for the object)."""

    object: str
    subject: str
    change: str
    classification: Classification
    before: str | None = None
    after: str | None = None

    def document(self) -> dict[str, str | None]:
        return {"object": self.object, "subject": self.subject, "change": self.change,
                "classification": self.classification.value,
                "before": self.before, "after": self.after}


@dataclass(frozen=True)
class ContractDiff:
    changes: tuple[ContractChange, ...]
    classification: Classification = Classification.COMPATIBLE

    def count(self, classification: Classification) -> int:
        return sum(1 for change in self.changes if change.classification is classification)


def declared_overrides(contract: Contract) -> dict[str, Classification]:
    """The drift overrides the contract itself declares (ODCS `schemaDrift`, a policy's
    `schema_policy`); an invalid one is the loader's finding, not applied here."""
    found: dict[str, Classification] = {}
    for key, value in contract.schema_drift or contract.drift_overrides:
        if key in CHANGE_KEYS and value in {c.value for c in Classification}:
            found[key] = Classification(value)
    return found


def diff_contracts(old: Contract, new: Contract,
                   overrides: Mapping[str, Classification] | None = None) -> ContractDiff:
    """Every change from `old` to `new`: per object in the new contract's order (removed
    objects last), its fields in the old order then added ones, then its rules."""
    levels = {**CHANGE_KEYS, **(overrides or {})}
    changes: list[ContractChange] = []

    def add(obj: str, subject: str, change: str, before: str | None = None,
            after: str | None = None) -> None:
        changes.append(ContractChange(obj, subject, change, levels[change], before, after))

    old_objects = {o.name: o for o in old.objects}
    new_objects = {o.name: o for o in new.objects}
    for name, obj in new_objects.items():
        if name not in old_objects:
            add(name, "", "object-added", None, f"{len(obj.properties)} field(s)")
        else:
            _fields(name, old_objects[name], obj, add)
    for name, obj in old_objects.items():
        if name not in new_objects:
            add(name, "", "object-removed", f"{len(obj.properties)} field(s)", None)
    gone = set(old_objects) - set(new_objects)
    arrived = set(new_objects) - set(old_objects)
    _rules([r for r in old.rules if r.target.object_name not in gone and _compared(r)],
           [r for r in new.rules if r.target.object_name not in arrived and _compared(r)], add)
    worst = max((c.classification for c in changes), key=_ORDER.index,
                default=Classification.COMPATIBLE)
    return ContractDiff(tuple(changes), worst)


def _compared(rule: Rule) -> bool:
    definition = rule.definition
    return not (isinstance(definition, Constraint) and definition.kind in _FIELD_KINDS)


def _fields(name: str, old: SchemaObject, new: SchemaObject, add: _Add) -> None:
    before = fields_from_schema(old)
    after = fields_from_schema(new)
    kept = [f for f in before if any(n.name == f.name for n in after)]
    for field in before:
        now = next((n for n in after if n.name == field.name), None)
        if now is None:
            add(name, field.name, "field-removed", _type_text(field), None)
            continue
        change = _type_change(field, now)
        if change is not None:
            add(name, field.name, change, _type_text(field), _type_text(now))
        if field.nullable != now.nullable:
            add(name, field.name, "nullability-relaxed" if now.nullable else
                "nullability-tightened", _nullability(field.nullable), _nullability(now.nullable))
    for field in after:
        if not any(f.name == field.name for f in before):
            add(name, field.name, "field-added-nullable" if field.nullable
                else "field-added-required", None, _type_text(field))
    order = [f.name for f in after if any(k.name == f.name for k in kept)]
    for index, field in enumerate(kept):
        if order[index] != field.name:
            add(name, field.name, "order-changed", str(index + 1),
                str(order.index(field.name) + 1))


def _type_text(field: Field) -> str | None:
    return field.native_type or field.logical_type


def _nullability(nullable: bool | None) -> str:
    return "nullable" if nullable else "not null"


def _type_change(old: Field, new: Field) -> str | None:
    """Declared types compared as sqlglot reads them (`int4` = `integer`); with no physical
    type on both sides, the logicalTypes."""
    if old.native_type and new.native_type:
        was, now = _parsed(old.native_type), _parsed(new.native_type)
        if was is None or now is None:
            same = old.native_type.strip().lower() == new.native_type.strip().lower()
            return None if same else "type-changed"
        if was == now:
            return None
        rank, new_rank = _integer_rank(was), _integer_rank(now)
        if rank is not None and (now.this in _NUMBERS or (new_rank is not None
                                                          and new_rank >= rank)):
            return "type-widened"
        return "type-changed"
    old_logical = (old.logical_type or "").strip().lower()
    new_logical = (new.logical_type or "").strip().lower()
    if not old_logical and not old.native_type:
        return "type-resolved" if new_logical or new.native_type else None
    if old_logical == new_logical:
        return None
    return "type-widened" if (old_logical, new_logical) == ("integer", "number") \
        else "type-changed"


def _parsed(text: str) -> exp.DataType | None:
    try:
        return exp.DataType.build(text)
    except (SqlglotError, ValueError):
        return None


def _integer_rank(parsed: exp.DataType) -> int | None:
    return next((rank for rank, kinds in enumerate(_INTEGERS) if parsed.this in kinds), None)


def _rules(before: Sequence[Rule], after: Sequence[Rule], add: _Add) -> None:
    """Rules matched by key; a rule without an `id` has a key from its position, which an
    inserted rule moves, so such rules are matched first by being unchanged, last by what they
    measure, and an insert is one rule added, not a removal and two additions."""
    old_left, new_left = list(before), list(after)
    pairs: list[tuple[Rule, Rule]] = []

    def match(same: Callable[[Rule, Rule], bool]) -> None:
        for old in list(old_left):
            twin = next((new for new in new_left if same(old, new)), None)
            if twin is not None:
                pairs.append((old, twin))
                old_left.remove(old)
                new_left.remove(twin)

    match(lambda old, new: old.key == new.key and _unchanged(old, new))
    match(lambda old, new: _positional(old) and _positional(new) and _unchanged(old, new))
    match(lambda old, new: old.key == new.key
          and old.target.object_name == new.target.object_name)
    match(lambda old, new: _positional(old) and _positional(new) and _same_measure(old, new))
    for old, new in pairs:
        _rule_change(old, new, add)
    for rule in old_left:
        add(rule.target.object_name, rule.key, "rule-removed", _rule_text(rule), None)
    for rule in new_left:
        add(rule.target.object_name, rule.key, "rule-added", None, _rule_text(rule))


def _positional(rule: Rule) -> bool:
    """The key is the rule's place (`schema[orders].quality[1]`): it has no `id`."""
    return _POSITION.search(rule.key) is not None


def _unchanged(old: Rule, new: Rule) -> bool:
    return _same_measure(old, new) and (old.expectations, old.severity) == \
        (new.expectations, new.severity)


def _measure(rule: Rule) -> tuple[object, ...]:
    """What a rule measures and where; the field's type is the field comparison's."""
    target = rule.target
    return (target.object_name, target.physical_object, target.property_path,
            target.physical_property, rule.definition, rule.unit)


def _same_measure(old: Rule, new: Rule) -> bool:
    return _measure(old) == _measure(new)


def _rule_change(old: Rule, new: Rule, add: _Add) -> None:
    obj, key = new.target.object_name, new.key
    if not _same_measure(old, new):
        add(obj, key, "rule-changed", _rule_text(old), _rule_text(new))
        return
    if old.expectations != new.expectations:
        direction = _direction(old.expectations, new.expectations)
        add(obj, key, {"tighter": "rule-tightened", "looser": "rule-loosened"}.get(
            direction, "rule-changed"), _expected(old), _expected(new))
    if old.severity != new.severity:
        add(obj, key, "rule-tightened" if new.severity is Severity.ERROR else "rule-loosened",
            f"severity {old.severity.value}", f"severity {new.severity.value}")


def _rule_text(rule: Rule) -> str:
    definition = rule.definition
    what = getattr(definition, "metric", None) or getattr(definition, "kind", None) \
        or type(definition).__name__.lower()
    target = ".".join((rule.target.object_name, *rule.target.property_path))
    expected = _expected(rule)
    return f"{what} on {target}" + (f" {expected}" if expected else "")


def _expected(rule: Rule) -> str:
    return " and ".join(describe(e) for e in rule.expectations)


_Bound = tuple[Fraction, bool]  # (value, inclusive)


def _interval(expectations: Sequence[Expectation]) -> tuple[_Bound | None, _Bound | None] | None:
    """The values the expectations accept, as one interval (None bounds are unbounded); None
    when they are not one interval (mustNotBe, mustNotBeBetween, booleans)."""
    low: _Bound | None = None
    high: _Bound | None = None
    for item in expectations:
        operand = item.operand
        if isinstance(operand, bool):
            return None
        if isinstance(operand, tuple):
            if item.operator is not Operator.BETWEEN:
                return None
            low = _tighter_low(low, (operand[0], item.inclusive))
            high = _tighter_high(high, (operand[1], item.inclusive))
        elif item.operator is Operator.EQ:
            low = _tighter_low(low, (operand, True))
            high = _tighter_high(high, (operand, True))
        elif item.operator in (Operator.GT, Operator.GE):
            low = _tighter_low(low, (operand, item.operator is Operator.GE))
        elif item.operator in (Operator.LT, Operator.LE):
            high = _tighter_high(high, (operand, item.operator is Operator.LE))
        else:
            return None
    return low, high


def _tighter_low(current: _Bound | None, bound: _Bound) -> _Bound:
    if current is None or bound[0] > current[0] or (bound[0] == current[0] and not bound[1]):
        return bound
    return current


def _tighter_high(current: _Bound | None, bound: _Bound) -> _Bound:
    if current is None or bound[0] < current[0] or (bound[0] == current[0] and not bound[1]):
        return bound
    return current


def _within_low(inner: _Bound | None, outer: _Bound | None) -> bool:
    if outer is None:
        return True
    if inner is None:
        return False
    return inner[0] > outer[0] or (inner[0] == outer[0] and (outer[1] or not inner[1]))


def _within_high(inner: _Bound | None, outer: _Bound | None) -> bool:
    if outer is None:
        return True
    if inner is None:
        return False
    return inner[0] < outer[0] or (inner[0] == outer[0] and (outer[1] or not inner[1]))


def _direction(old: Sequence[Expectation], new: Sequence[Expectation]) -> str:
    """`tighter` when the new expectations accept a subset of the old ones' values, `looser`
    for a superset, else `other` (not comparable, or not one interval each)."""
    was, now = _interval(old), _interval(new)
    if was is None or now is None:
        return "other"
    narrower = _within_low(now[0], was[0]) and _within_high(now[1], was[1])
    wider = _within_low(was[0], now[0]) and _within_high(was[1], now[1])
    if narrower and not wider:
        return "tighter"
    if wider and not narrower:
        return "looser"
    return "other"

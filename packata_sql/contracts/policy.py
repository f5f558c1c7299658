"""The JSON quality policy → canonical rules (keyed by each rule's `id`), the drift
classification overrides of its `schema_policy`, and its evidence (version, SHA-256 over the
RFC 8785 canonical form). A malformed policy is a usage error naming the rule id and key.

Rule types and what they become:
- `row_count` → the rowCount metric with inclusive `minimum`/`maximum`;
- `required_fields`, `field` (`data_type`) → catalog checks (no rows read);
- `field` (`nullable: false`), `not_null`, `unique`, `range`, `referential` → counts of failing
  rows, fused into the object's one scan (`catalog/rows.py`), expected to be zero.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from packata_sql.contracts import json_source
from packata_sql.contracts.canonical import CanonicalError, sha256_hex
from packata_sql.contracts.declared import (
    ImpliedSchema,
    Lines,
    RuleSite,
    boolean,
    field_list,
    rule_identity,
    severity,
    target_object,
)
from packata_sql.contracts.drift import DEFAULTS, Classification
from packata_sql.contracts.model import (
    Category,
    Constraint,
    Contract,
    Definition,
    Expectation,
    Finding,
    Level,
    Library,
    Operator,
    Rule,
    Severity,
    Target,
)
from packata_sql.contracts.odcs_declarations import freeze
from packata_sql.contracts.yaml_source import SourceError, load_yaml_text
from packata_sql.values import NotExact, exact_number

DATA_TYPES = ("string", "integer", "number", "boolean", "date", "timestamp", "time", "object",
              "array")
_COMMON = frozenset({"id", "type", "severity", "description"})
_KEYS = {
    "row_count": {"minimum", "maximum"},
    "required_fields": {"fields"},
    "field": {"field", "data_type", "nullable"},
    "not_null": {"field", "fields"},
    "unique": {"field", "fields", "ignore_nulls"},
    "range": {"field", "minimum", "maximum", "allow_null"},
    "referential": {"field", "allowed_values", "allow_null"},
}
_TOP_KEYS = frozenset({"version", "rules", "schema_policy", "object", "table", "description",
                       "name", "$schema"})
_NO_FAILURES = (Expectation(Operator.EQ, Fraction(0)),)
#: `range` and `referential` let NULL through unless `allow_null: false` (use `not_null` or
#: `field.nullable: false` to forbid NULLs): a NULL is no value outside the range or the set.
ALLOW_NULL_DEFAULT = True


def is_policy(document: object) -> bool:
    return isinstance(document, dict) and isinstance(document.get("rules"), list)


def load_policy(path: str, text: str, object_name: str | None = None) -> Contract:
    """Raises SourceError (a usage error) for anything malformed, before anything runs."""
    try:
        document = json_source.loads(text, parse_float=Decimal, parse_constant=_refuse)
        digest = sha256_hex(text)
    except json_source.TooDeep as deep:
        raise SourceError(path, f"not a JSON quality policy: {deep}", deep.line) from None
    except (json.JSONDecodeError, CanonicalError, ValueError) as error:
        raise SourceError(path, f"not a JSON quality policy ({error})") from None
    if not is_policy(document):
        raise SourceError(path, "not a JSON quality policy: it needs a 'rules' list")
    lines = _lines(text, path)
    findings = [_unknown_top_key(key, lines((key,))) for key in document if key not in _TOP_KEYS]
    name = target_object(document, path, object_name, lines)
    schema = ImpliedSchema(name)
    seen: dict[str, str] = {}
    read = [_read_rule(path, lines, index, entry, seen, schema)
            for index, entry in enumerate(document["rules"])]
    # Built once every `field` rule has declared its type, whatever the rule order.
    rules = [entry.rule(schema, lines) for entry in read]
    version = document.get("version")
    evidence = (("format", "policy"),
                ("version", None if version is None else str(version)),
                ("sha256", digest))
    return Contract(path, tuple(rules), tuple(findings), objects=(schema.object(),),
                    drift_overrides=_schema_policy(path, lines, document.get("schema_policy")),
                    declaration=evidence)


def _unknown_top_key(key: str, line: int | None) -> Finding:
    """An unknown top-level key (`schema_polcy`) is not read: an error finding that keeps the
    run from passing (docs/semantics.md 1.2), with the closest key; rules run."""
    from packata_sql.spelling import closest

    match = closest(key, _TOP_KEYS)
    hint = f"; did you mean '{match}'?" if match else ""
    return Finding("unknown-key", f"unknown key '{key}'{hint} (it is not read, and the run "
                   "cannot pass)", "$", Level.ERROR, line=line)


def _read_rule(path: str, lines: Lines, index: int, entry: object, seen: dict[str, str],
               schema: ImpliedSchema) -> _Read:
    site = RuleSite(path, ("rules", index), f"rules[{index}]", lines)
    rule_id = rule_identity(entry, site, "id", seen)
    assert isinstance(entry, dict)
    kind = entry.get("type")
    if kind not in _KEYS:
        raise site.error("type", f"must be one of: {', '.join(_KEYS)}")
    for key in entry:
        if key not in _COMMON and key not in _KEYS[kind]:
            raise site.error(key, f"is not a key of a '{kind}' rule (keys: "
                                  f"{', '.join(sorted(_KEYS[kind] | _COMMON))})")
    level = severity(entry, site)
    return _Read(rule_id, index, level, _definitions(entry, kind, site, schema))


_Planned = tuple[Category, tuple[str, ...], Definition, tuple[Expectation, ...]]


@dataclass(frozen=True)
class _Read:
    rule_id: str
    index: int
    severity: Severity
    planned: _Planned

    def rule(self, schema: ImpliedSchema, lines: Lines) -> Rule:
        category, columns, definition, expectations = self.planned
        column = columns[0] if len(columns) == 1 else None
        target = Target(schema.name, schema.name, (column,) if column else (), column,
                        schema.logical_type(column) if column else None)
        return Rule(self.rule_id, f"rules[{self.index}]", category, target, definition,
                    expectations, severity=self.severity, line=lines(("rules", self.index)))


def _definitions(entry: Mapping[str, Any], kind: str, site: RuleSite,
                 schema: ImpliedSchema) -> _Planned:
    """The rule an entry makes: (category, columns, definition, expectations)."""
    q = Category.QUALITY
    if kind == "row_count":
        low, high = _bounds(entry, site, non_negative=True)
        expectations = [Expectation(Operator.GE, low if low is not None else Fraction(0))]
        if high is not None:
            expectations.append(Expectation(Operator.LE, high))
        return (q, (), Library("rowCount"), tuple(expectations))
    if kind == "required_fields":
        fields = field_list(entry, site, "field", "fields")
        schema.add(fields)
        return (Category.CONSTRAINT, fields, Constraint("present", fields), ())
    if kind == "field":
        return _field(entry, site, schema)
    if kind in ("not_null", "unique"):
        columns = field_list(entry, site, "field", "fields")
        arguments: tuple[tuple[str, object], ...] = (
            (("ignore_nulls", boolean(entry, site, "ignore_nulls", False)),)
            if kind == "unique" else ())
        constraint = Constraint("notNull" if kind == "not_null" else "uniqueKey", columns,
                                arguments)
        return (q, columns, constraint, _NO_FAILURES)
    column = _one_field(entry, site)
    allow_null = ("allow_null", boolean(entry, site, "allow_null", ALLOW_NULL_DEFAULT))
    if kind == "range":
        low, high = _bounds(entry, site, non_negative=False)
        if low is None and high is None:
            raise site.error(None, "needs 'minimum' and/or 'maximum'")
        arguments = (("minimum", _decimal(low)), ("maximum", _decimal(high)), allow_null)
        return (q, (column,), Constraint("range", (column,), arguments), _NO_FAILURES)
    values = entry.get("allowed_values")
    if not isinstance(values, list) or not values:
        raise site.error("allowed_values", "must be a non-empty list of values")
    if any(v is None or isinstance(v, list | dict) for v in values):
        raise site.error("allowed_values", "holds text, numbers or booleans only (NULL is "
                                           "governed by 'allow_null')")
    arguments = (("values", freeze(values)), allow_null)
    return (q, (column,), Constraint("allowedValues", (column,), arguments), _NO_FAILURES)


def _field(entry: Mapping[str, Any], site: RuleSite, schema: ImpliedSchema) -> _Planned:
    """One catalog check: the field exists, with a compatible `data_type` when one is given;
    `nullable: false` also counts NULL rows (in the scan, once the catalog check holds)."""
    column = _one_field(entry, site)
    data_type = entry.get("data_type")
    if data_type is not None and data_type not in DATA_TYPES:
        raise site.error("data_type", f"must be one of: {', '.join(DATA_TYPES)}")
    nullable = boolean(entry, site, "nullable", True)
    schema.add((column,), data_type, required=not nullable)
    arguments: list[tuple[str, object]] = []
    if data_type is not None:
        arguments.append(("logicalType", data_type))
    if not nullable:
        arguments.append(("nullable", False))
    kind = "logicalType" if data_type is not None else "present"
    return (Category.CONSTRAINT, (column,), Constraint(kind, (column,), tuple(arguments)),
            () if nullable else _NO_FAILURES)


def _one_field(entry: Mapping[str, Any], site: RuleSite) -> str:
    column = entry.get("field")
    if not isinstance(column, str) or not column.strip():
        raise site.error("field", "must name one column")
    return column


def _bounds(entry: Mapping[str, Any], site: RuleSite, *,
            non_negative: bool) -> tuple[Fraction | None, Fraction | None]:
    found: dict[str, Fraction] = {}
    for key in ("minimum", "maximum"):
        raw = entry.get(key)
        if raw is None:
            continue
        try:
            found[key] = exact_number(raw, allow_text=False)
        except NotExact:
            raise site.error(key, "must be a finite number") from None
        if non_negative and found[key] < 0:
            raise site.error(key, "must not be negative (a count is never below zero)")
    low, high = found.get("minimum"), found.get("maximum")
    if low is not None and high is not None and low > high:
        raise site.error("minimum", "is greater than 'maximum'; no value can satisfy both")
    return low, high


def _decimal(value: Fraction | None) -> Decimal | int | None:
    if value is None:
        return None
    if value.denominator == 1:
        return value.numerator
    return Decimal(value.numerator) / Decimal(value.denominator)


def _schema_policy(path: str, lines: Lines, raw: object) -> tuple[tuple[str, str], ...]:
    """`schema_policy` keys are drift changes (`field_removed` or `field-removed`), values
    compatible|warning|breaking; anything else is a usage error naming the key."""
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise SourceError(path, "'schema_policy' must map drift changes to classifications",
                          lines(("schema_policy",)))
    overrides = []
    for key, value in raw.items():
        change = key.replace("_", "-")
        if change not in DEFAULTS:
            raise SourceError(path, f"schema_policy: '{key}' is not a drift change (one of: "
                                    f"{', '.join(c.replace('-', '_') for c in DEFAULTS)})",
                              lines(("schema_policy", key)))
        if value not in {c.value for c in Classification}:
            raise SourceError(path, f"schema_policy: '{key}' must be compatible, warning or "
                                    "breaking", lines(("schema_policy", key)))
        overrides.append((change, value))
    return tuple(overrides)


def _lines(text: str, path: str) -> Lines:
    """Line numbers from the YAML composer (JSON is YAML); none when it cannot read the text."""
    try:
        return load_yaml_text(text, path).line
    except SourceError:
        return lambda _path: None


def _refuse(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")

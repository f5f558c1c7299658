"""Pipeline `data_quality.rules` → canonical rules, keyed by each rule's `name`.

Assertions are the docs/semantics.md 2 operators in camelCase or snake_case (`expectations.py` parses
them); `mustBeBetween` is inclusive here. Every operand of every rule is validated at load: a
malformed rule is a usage error naming the rule and key, never echoing the operand. Without an
assertion the metric must be 0 (docs/semantics.md 2.6): no failing rows, or an empty object for
`row_count`.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import sqlglot
from sqlglot import TokenType
from sqlglot.errors import SqlglotError

from packata_sql.contracts.declared import (
    RuleSite,
    boolean,
    field_list,
    rule_identity,
    severity,
    target_object,
)
from packata_sql.contracts.expectations import SPELLINGS, parse_expectations
from packata_sql.contracts.model import (
    Category,
    Constraint,
    Contract,
    Custom,
    Definition,
    Expectation,
    Finding,
    Level,
    Library,
    Operator,
    Predicate,
    Rule,
    Site,
    Target,
)
from packata_sql.contracts.odcs_declarations import freeze
from packata_sql.contracts.policy import ALLOW_NULL_DEFAULT
from packata_sql.contracts.yaml_source import Loaded, SourceError
from packata_sql.values import NotExact, exact_number

_COMMON = frozenset({"name", "rule", "severity", "description", *SPELLINGS})
_KEYS: dict[str, frozenset[str]] = {
    "row_count": frozenset(),
    "not_null": frozenset({"column", "columns"}),
    "unique": frozenset({"column", "columns", "ignore_nulls"}),
    "accepted_values": frozenset({"column", "columns", "values", "allow_null"}),
    "regex": frozenset({"column", "columns", "pattern"}),
    "range": frozenset({"column", "columns", "minimum", "maximum", "allow_null"}),
    "expression": frozenset({"expression"}),
    "custom": frozenset({"callable", "function", "arguments"}),
}
_CALLABLE_KEYS = ("callable", "function")
MAX_EXPRESSION_CHARS = 10_000
MAX_EXPRESSION_DEPTH = 32
_OPENERS = frozenset({TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE, TokenType.CASE})
_CLOSERS = frozenset({TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE, TokenType.END})
_PREFIXES = frozenset({TokenType.NOT, TokenType.DASH, TokenType.PLUS, TokenType.TILDE})
_DEFAULT = (Expectation(Operator.EQ, Fraction(0)),)
_REPAIR = ("write a finite number or numeric text (e.g. mustBeGreaterThan: 0); a range is "
           "[lower, upper] in ascending order")


def is_pipeline(document: object) -> bool:
    return isinstance(document, dict) and "data_quality" in document


def load_pipeline(path: str, loaded: Loaded, object_name: str | None = None) -> Contract:
    """Raises SourceError (a usage error) for anything malformed, before anything runs."""
    document = loaded.value
    block = document.get("data_quality") if isinstance(document, dict) else None
    if not isinstance(block, dict) or not isinstance(block.get("rules"), list):
        raise SourceError(path, "'data_quality' must hold a 'rules' list",
                          loaded.line(("data_quality",)))
    in_block = [k for k in ("object", "table") if block.get(k) is not None]
    name = target_object(block if in_block else document, path, object_name, loaded.line,
                         ("data_quality",) if in_block else ())
    rules: list[Rule] = []
    warnings: list[Finding] = []  # e.g. contradictory assertions: valid, but worth a look
    seen: dict[str, str] = {}
    for index, entry in enumerate(block["rules"]):
        rules.append(_read_rule(path, loaded, index, entry, seen, name, warnings))
    return Contract(path, tuple(rules), tuple(warnings), declaration=(("format", "pipeline"),))


def _read_rule(path: str, loaded: Loaded, index: int, entry: object, seen: dict[str, str],
               table: str, warnings: list[Finding]) -> Rule:
    yaml_path = ("data_quality", "rules", index)
    site = RuleSite(path, yaml_path, f"data_quality.rules[{index}]", loaded.line)
    name = rule_identity(entry, site, "name", seen)
    assert isinstance(entry, dict)
    kind = entry.get("rule")
    if any(entry.get(k) is not None for k in _CALLABLE_KEYS) and kind is None:
        kind = "custom"
    if kind not in _KEYS:
        raise site.error("rule", f"must be one of: {', '.join(_KEYS)}")
    for key in entry:
        if key not in _COMMON and key not in _KEYS[kind]:
            raise site.error(key, f"is not a key of a '{kind}' rule")
    source_path = f"data_quality.rules[{index}]"
    expectations = _expectations(entry, site, Site(source_path, name, loaded.line(yaml_path)),
                                 warnings)
    columns, definition = _definition(entry, kind, site)
    column = columns[0] if len(columns) == 1 else None
    target = Target(table, table, (column,) if column else (), column)
    return Rule(name, source_path, Category.QUALITY, target, definition, expectations,
                severity=severity(entry, site), line=loaded.line(yaml_path))


def _expectations(entry: Mapping[str, Any], site: RuleSite, checked: Site,
                  warnings: list[Finding]) -> tuple[Expectation, ...]:
    """Every assertion, validated; operands are counts, so booleans are refused too."""
    normalized: dict[str, object] = {}
    for key, raw in entry.items():
        operator = SPELLINGS.get(key)
        if operator is None or raw is None:
            continue
        if isinstance(raw, bool) or (isinstance(raw, list) and any(isinstance(v, bool) for v in raw)):
            raise site.error(key, f"needs a number, not a boolean; {_REPAIR}")
        if operator in (Operator.EQ, Operator.NE) and isinstance(raw, str):
            try:
                exact_number(raw, allow_text=True)
                raw = Decimal(raw.strip())
            except NotExact:
                raise site.error(key, f"needs a finite number; {_REPAIR}") from None
        normalized[key] = raw
    expectations, findings = parse_expectations(normalized, checked, inclusive_between=True)
    errors = [f for f in findings if f.level is Level.ERROR]
    if errors:
        raise SourceError(site.path, f"{site.label}: {errors[0].message}; {_REPAIR}",
                          checked.line)
    warnings.extend(findings)
    return expectations or _DEFAULT


def expression_problem(text: str) -> str | None:
    """Why an expression is refused before anything parses it: the SQL parser recurses per
    nesting level (about 50 parentheses or NOTs exhaust Python's stack) and takes seconds on
    a long text, whatever `--budget` says. Depth counts open `(` and `CASE`, and runs of
    prefix operators, with sqlglot's tokenizer, which does not recurse; text it cannot
    tokenize is left to the compiler's finding."""
    if len(text) > MAX_EXPRESSION_CHARS:
        return (f"is longer than {MAX_EXPRESSION_CHARS:,} characters; a predicate over one "
                "row needs far fewer (split it into several rules)")
    try:
        tokens = sqlglot.tokenize(text)
    except (SqlglotError, ValueError):
        return None
    depth = prefixes = 0
    for token in tokens:
        prefixes = prefixes + 1 if token.token_type in _PREFIXES else 0
        if token.token_type in _OPENERS:
            depth += 1
        elif token.token_type in _CLOSERS:
            depth -= 1
        if depth > MAX_EXPRESSION_DEPTH or prefixes > MAX_EXPRESSION_DEPTH:
            return (f"nests parentheses, CASE or NOT deeper than {MAX_EXPRESSION_DEPTH} "
                    "levels; write it flatter (AND/OR chains need no parentheses)")
    return None


def _definition(entry: Mapping[str, Any], kind: str,
                site: RuleSite) -> tuple[tuple[str, ...], Definition]:
    if kind == "row_count":
        return (), Library("rowCount")
    if kind == "custom":
        return (), Custom("callable")
    if kind == "expression":
        text = entry.get("expression")
        if not isinstance(text, str) or not text.strip():
            raise site.error("expression", "must be a boolean SQL expression over one row")
        if (problem := expression_problem(text)) is not None:
            raise site.error("expression", problem)
        return (), Predicate(text)  # authored SQL, refused wherever SQL rules are
    columns = field_list(entry, site, "column", "columns")
    if kind == "not_null":
        return columns, Constraint("notNull", columns)
    if kind == "unique":
        ignore = boolean(entry, site, "ignore_nulls", False)
        return columns, Constraint("uniqueKey", columns, (("ignore_nulls", ignore),))
    allow_null = ("allow_null", boolean(entry, site, "allow_null", ALLOW_NULL_DEFAULT))
    if kind == "accepted_values":
        values = entry.get("values")
        if not isinstance(values, list) or not values or any(
            v is None or isinstance(v, list | dict) for v in values
        ):
            raise site.error("values", "must be a non-empty list of text, numbers or booleans")
        return columns, Constraint("allowedValues", columns, (("values", freeze(values)),
                                                              allow_null))
    if kind == "regex":
        pattern = entry.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            raise site.error("pattern", "must be a regular expression (text)")
        return columns, Constraint("matches", columns, (("pattern", pattern),))
    bounds: dict[str, object] = {}
    for key in ("minimum", "maximum"):
        if entry.get(key) is not None:
            try:
                exact_number(entry[key], allow_text=False)
            except NotExact:
                raise site.error(key, "must be a finite number") from None
            bounds[key] = entry[key]
    if not bounds:
        raise site.error(None, "needs 'minimum' and/or 'maximum'")
    if len(bounds) == 2 and exact_number(bounds["minimum"], allow_text=False) > exact_number(
            bounds["maximum"], allow_text=False):
        raise site.error("minimum", "is greater than 'maximum'")
    arguments = (("minimum", bounds.get("minimum")), ("maximum", bounds.get("maximum")),
                 allow_null)
    return columns, Constraint("range", columns, arguments)

"""The Expressif conformance cases (tests/expressif/conformance) as SQL: each case is the
operation rendered over one typed literal, many cases one SELECT, compared with the expected
value exactly.

A case is *outside typed SQL*, and says why, when its input is not a value of the type the
operation reads (the language converts `"10"` to a number on the fly; packata-sql never casts
silently), when it uses an array, or when upstream wrote it without the parameters the
operation needs. The language's `(blank)` is a cell of white space only (`BLANK_CELL`), and an
expected `(blank)` any such text: .NET reads white space only as that one value, whatever its
characters. A case the engine cannot meet is the renderer's
`UnsupportedOnEngine`, listed per engine in `expectations.yaml`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlglot.expressions as exp
import yaml

from packata_sql.authored.expressif import ExpressifError, Payload, Program, parse
from packata_sql.catalog.expressif import (
    UnsupportedOnEngine,
    render,
    render_accumulator,
    supported,
)
from packata_sql.catalog.expressif_functions import ACCUMULATORS, FUNCTIONS
from packata_sql.catalog.expressif_operations import WHITESPACE, Operation
from packata_sql.catalog.expressif_predicates import PREDICATES
from packata_sql.dialects import Dialect, Family, get_dialect

ROOT = Path(__file__).resolve().parent
CONFORMANCE = ROOT / "conformance"
OWN_CASES = ROOT / "cases.yaml"
EXPECTATIONS = ROOT / "expectations.yaml"
ENGINES = ("duckdb", "sqlite", "postgres", "mysql", "spark")
_KEYWORD_NULL, _KEYWORD_EMPTY, _KEYWORD_BLANK = "(null)", "(empty)", "(blank)"
#: The cell a case's `(blank)` stands for: white space only, of three kinds .NET counts.
BLANK_CELL = " \t\u00a0"


class Blank:
    """An expected `(blank)`: any text of .NET white space only, not empty."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and other != "" and other.strip(WHITESPACE) == ""

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "(blank)"
_BARE = re.compile(r"[^\s\"`@,()\[\]{}|!$#.][^\s\"`@,()\[\]{}|]*")


#: Upstream cases whose expectation contradicts the operation's own documentation.
ERRATA = {
    "without-whitespaces.valid.text.value":
        "the empty text is expected to become 'MyLord!Mytaylorisrich' (two cases run together)",
}


class _ExactLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """YAML with decimals kept exact (`10.001` is Decimal, not a binary float)."""


_ExactLoader.add_constructor(
    "tag:yaml.org,2002:float",
    lambda loader, node: Decimal(loader.construct_scalar(node)))  # type: ignore[arg-type]


class Written(int):
    """A YAML integer that remembers how it was written: upstream writes texts of digits
    unquoted (`000`, `1234`), which a text operation reads as that text."""

    text: str

    def __new__(cls, value: int, text: str) -> Written:
        made = super().__new__(cls, value)
        made.text = text
        return made


def _integer(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Written:
    text = str(loader.construct_scalar(node))
    return Written(loader.construct_yaml_int(node), text)


_ExactLoader.add_constructor("tag:yaml.org,2002:int", _integer)


def _as_text(value: Any) -> str:
    return value.text if isinstance(value, Written) else str(value)


@dataclass(frozen=True)
class Case:
    path: str
    kind: str
    operator: str
    id: str
    value: Any
    parameters: tuple[Any, ...] | None
    expected: Any


def _documents() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted(CONFORMANCE.rglob("*.yaml")):
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=_ExactLoader)
        yield str(path.relative_to(CONFORMANCE)), document
    for document in yaml.load(OWN_CASES.read_text(encoding="utf-8"), Loader=_ExactLoader):
        yield OWN_CASES.name, document


def load_cases() -> list[Case]:
    cases = []
    for path, document in _documents():
        for test in document["tests"]:
            for case in test["cases"]:
                parameters = case.get("parameters", test.get("parameters"))
                cases.append(Case(path, document["kind"], document["operator"], case["id"],
                                  case["value"], None if parameters is None else tuple(parameters),
                                  case["expected"]))
    return cases


def operation(case: Case) -> Operation | None:
    table = {"predicate": PREDICATES, "function": FUNCTIONS, "accumulator": ACCUMULATORS}
    return table[case.kind].get(case.operator)


@dataclass(frozen=True)
class Prepared:
    case: Case
    program: Program
    subject: exp.Expr
    family: str
    expected: Any
    #: An accumulator's rows (the subject is then their column `v`).
    rows: tuple[Any, ...] | None = None
    #: A row-scope case's fields (upstream's record values), as typed literals.
    fields: tuple[tuple[str, exp.Expr], ...] = ()


@dataclass(frozen=True)
class Outside:
    case: Case
    reason: str


def _sentinel(value: Any) -> Any:
    if value in (_KEYWORD_NULL, None):
        return None
    if value == _KEYWORD_EMPTY:
        return ""
    return value


def _literal(value: Any) -> str | None:
    """A parameter as program text, or None when the program cannot write it."""
    if value is None or value == _KEYWORD_NULL:
        return _KEYWORD_NULL
    if value == _KEYWORD_BLANK:
        return None  # the program has no keyword for it
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | Decimal):
        return _as_text(value)
    if isinstance(value, date):
        return value.isoformat()  # a datetime as 2022-11-21T10:00:00
    if isinstance(value, str):
        if value in (_KEYWORD_EMPTY,):
            return value
        if _BARE.fullmatch(value):
            return value
        if "`" not in value:
            return f"`{value}`"
    return None


def value_family(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | Decimal):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, date | datetime):
        return "temporal"
    return "other"


def subject_literal(value: Any, family: str) -> exp.Expr:
    """The case's input as a typed SQL literal (NULL cast to the type the operation reads)."""
    if value is None:
        type_name = {"number": "DECIMAL(18, 4)", "text": "VARCHAR(400)",
                     "boolean": "BOOLEAN", "temporal": "TIMESTAMP"}.get(family, "VARCHAR(400)")
        return exp.cast(exp.Null(), exp.DataType.build(type_name))
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, datetime):
        return exp.cast(exp.Literal.string(value.isoformat(sep=" ")),
                        exp.DataType.build("TIMESTAMP"))
    if isinstance(value, date):
        return exp.cast(exp.Literal.string(value.isoformat()), exp.DataType.build("DATE"))
    if isinstance(value, int):
        return exp.Literal.number(value)
    if isinstance(value, Decimal):
        scale = max(-value.as_tuple().exponent, 0)  # type: ignore[operator]
        return exp.cast(exp.Literal.number(str(value)),
                        exp.DataType.build(f"DECIMAL(38, {min(scale, 18)})"))
    return exp.Literal.string(str(value))


def _rows(value: Any) -> tuple[Any, ...] | None:
    """An accumulator's input: a YAML list or upstream's `{a, b}` text; None for no dataset."""
    if isinstance(value, list):
        return tuple(_sentinel(item) for item in value)
    if value == _KEYWORD_EMPTY:
        return ()
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        items = [item.strip() for item in value[1:-1].split(",") if item.strip()]
        return tuple(yaml.safe_load(item) for item in items)
    return None


def _prepare_accumulator(case: Case, found: Operation) -> Prepared | Outside:
    rows = _rows(case.value)
    if rows is None:
        return Outside(case, "a dataset is never NULL")
    program = parse(Payload("1", "expression", "dataset", case.operator))
    families = {value_family(row) for row in rows} - {None}
    family = families.pop() if len(families) == 1 else found.reads
    result = family if found.returns == "same" else found.returns
    return Prepared(case, program, exp.column("v", quoted=True), result,
                    _sentinel(case.expected), rows)


def prepare(case: Case) -> Prepared | Outside:
    found = operation(case)
    if found is None:
        return Outside(case, "operation not supported")
    if case.kind == "accumulator":
        return _prepare_accumulator(case, found)
    if "value" in {kind.rstrip("?*") for kind in found.parameters}:
        return _prepare_expressions(case, found)
    value = BLANK_CELL if case.value == _KEYWORD_BLANK else _sentinel(case.value)
    family = value_family(value)
    if found.reads == "text" and family == "number":
        value, family = _as_text(value), "text"  # upstream's unquoted digits (`1234`)
    if family is not None and found.reads != "any" and family != found.reads:
        return Outside(case, f"implicit conversion of {family} to {found.reads}")
    if family == "other":
        return Outside(case, "arrays and records are no cell value")
    required = [p for p in found.parameters if not p.endswith("?")]
    parameters = case.parameters or ()
    if len(parameters) < len(required):
        return Outside(case, "upstream gives no parameters")
    written = [str(p) if kind.rstrip("?") == "interval" else _literal(p)
               for kind, p in zip(found.parameters, parameters, strict=False)]
    if any(w is None for w in written):
        return Outside(case, "a parameter the program cannot write")
    text = case.operator + (f"({', '.join(w for w in written if w)})" if written else "")
    kind = "predicate" if case.kind == "predicate" else "expression"
    try:
        program = parse(Payload("1", kind, "value", text))  # type: ignore[arg-type]
    except ExpressifError as error:
        return Outside(case, f"the program {text!r} does not parse: {error.message}")
    try:
        render(program, get_dialect("duckdb"), subject=subject_literal(value, found.reads),
               fields={}, variable=_variable)
    except UnsupportedOnEngine:
        pass
    except ExpressifError as error:
        return Outside(case, f"{error.code}: {error.message}")
    result_family = found.reads if found.returns == "same" else found.returns
    expected: Any = Blank() if case.expected == _KEYWORD_BLANK else _sentinel(case.expected)
    if result_family == "text" and isinstance(expected, int | Decimal):
        expected = _as_text(expected)  # YAML read the expected text `12345678` as a number
    if case.id in ERRATA:
        return Outside(case, f"upstream erratum: {ERRATA[case.id]}")
    if result_family == "boolean" and expected is None:
        expected = False  # two-valued
    return Prepared(case, program, subject_literal(value, found.reads), result_family, expected)


def _prepare_expressions(case: Case, found: Operation) -> Prepared | Outside:
    """An operation whose parameters are expressions (`coalesce`): upstream writes them as
    program text (`[name]`, `"Anonymous"`), read against a record value (row scope)."""
    record = case.value if isinstance(case.value, dict) else {}
    families = {value_family(_sentinel(item)) for item in record.values()} - {None}
    family = families.pop() if len(families) == 1 else "text"  # of the columns, NULLs too
    fields = tuple((name, subject_literal(_sentinel(item), family))
                   for name, item in record.items())
    text = f"{case.operator}({', '.join(str(p) for p in case.parameters or ())})"
    try:
        program = parse(Payload("1", "expression", "row" if record else "value", text))
        render(program, get_dialect("duckdb"), subject=subject_literal(None, "text"),
               fields=dict(fields), variable=_variable,
               field_families=_field_families(fields, family))
    except ExpressifError as error:
        return Outside(case, f"{error.code}: {error.message}")
    return Prepared(case, program, subject_literal(None, "text"), family,
                    _sentinel(case.expected), fields=fields)


def _field_families(fields: tuple[tuple[str, exp.Expr], ...],
                    family: str) -> dict[str, Family | None]:
    typed = {"text": Family.TEXT, "number": Family.NUMBER, "boolean": Family.BOOLEAN,
             "temporal": Family.TEMPORAL}.get(family)
    return {name: typed for name, _literal in fields}


def _variable(name: str) -> exp.Expr:
    raise AssertionError(f"no variable @{name} in a conformance case")


def expression(prepared: Prepared, dialect: Dialect) -> exp.Expr:
    if prepared.rows is None:
        return render(prepared.program, dialect, subject=prepared.subject,
                      fields=dict(prepared.fields), variable=_variable,
                      field_families=_field_families(prepared.fields, prepared.family))
    aggregate = render_accumulator(prepared.program, dialect, subject=prepared.subject,
                                   fields={}, variable=_variable)
    reads = ACCUMULATORS[prepared.case.operator].reads
    return exp.Subquery(this=exp.select(aggregate).from_(_rows_table(prepared.rows, reads)))


def _rows_table(rows: tuple[Any, ...], reads: str) -> exp.Expr:
    """The rows as a derived table of one column `v` (no rows: one filtered out)."""
    family = next((value_family(r) for r in rows if r is not None), None) or (
        reads if reads != "any" else "number")
    selects = [exp.select(exp.alias_(subject_literal(r, family), "v", quoted=True))
               for r in rows] or [exp.select(exp.alias_(subject_literal(None, family), "v",
                                                       quoted=True)).where(exp.false())]
    union: exp.Expr = selects[0]
    for select in selects[1:]:
        union = exp.union(union, select, distinct=False)
    return exp.Subquery(this=union, alias=exp.TableAlias(this=exp.to_identifier("t")))


def normalised(value: Any, family: str) -> Any:
    """An engine's cell as the language's value: MariaDB booleans are 0/1, numbers exact."""
    if value is None:
        return None
    if family == "boolean":
        return bool(value)
    if family == "temporal" and isinstance(value, datetime) and value == datetime(
            value.year, value.month, value.day):
        return value.date()  # a DATE cell some drivers hand back as midnight
    if family == "number" and not isinstance(value, bool):
        number = Decimal(str(value))
        return number.normalize() if number != 0 else Decimal(0)
    return value


@dataclass(frozen=True)
class Outcome:
    """What running the supported cases on one engine gave."""

    unsupported: dict[str, str]  # operator → message of UnsupportedOnEngine
    mismatches: list[str]
    compared: int


def run_cases(engine: str, execute: Callable[[str], tuple[Any, ...]],
              cases: list[Prepared]) -> Outcome:
    """Every case rendered for `engine` and compared with its expected value: all of them in
    one SELECT, and one SELECT per operation when that fails (so a failure names it)."""
    dialect = get_dialect(engine)
    unsupported: dict[str, str] = {}
    rendered: list[tuple[str, Prepared, exp.Expr]] = []
    for operator, group in _by_operator(cases):
        try:
            rendered += [(operator, p, expression(p, dialect)) for p in group]
        except UnsupportedOnEngine as error:
            unsupported[operator] = error.message
    mismatches: list[str] = []
    try:
        row = execute(_select(dialect, [column for _o, _p, column in rendered]))
    except Exception:  # found again, with its operation, below
        return _run_each(dialect, execute, rendered, unsupported)
    compared = _compare(dialect, [(p, c) for _o, p, c in rendered], row, mismatches)
    return Outcome(unsupported, mismatches, compared)


def _select(dialect: Dialect, columns: list[exp.Expr]) -> str:
    return dialect.render(exp.select(*[exp.alias_(c, f"c{i}", quoted=True)
                                       for i, c in enumerate(columns)]))


def _run_each(dialect: Dialect, execute: Callable[[str], tuple[Any, ...]],
              rendered: list[tuple[str, Prepared, exp.Expr]],
              unsupported: dict[str, str]) -> Outcome:
    mismatches: list[str] = []
    compared = 0
    groups: dict[str, list[tuple[Prepared, exp.Expr]]] = {}
    for operator, prepared, column in rendered:
        groups.setdefault(operator, []).append((prepared, column))
    for operator, group in groups.items():
        sql = _select(dialect, [column for _p, column in group])
        try:
            row = execute(sql)
        except Exception as error:  # the engine's message names what failed
            mismatches.append(f"{operator}: {type(error).__name__}: {error} in {sql}")
            continue
        compared += _compare(dialect, group, row, mismatches)
    return Outcome(unsupported, mismatches, compared)


def _compare(dialect: Dialect, group: list[tuple[Prepared, exp.Expr]], row: tuple[Any, ...],
             mismatches: list[str]) -> int:
    for (prepared, column), cell in zip(group, row, strict=True):
        got = normalised(cell, prepared.family)
        want = normalised(prepared.expected, prepared.family)
        if want != got:  # an expected Blank compares itself
            mismatches.append(f"{prepared.case.id}: expected {want!r}, got {got!r} "
                              f"from {dialect.render(column)}")
    return len(group)


def _by_operator(cases: list[Prepared]) -> Iterator[tuple[str, list[Prepared]]]:
    groups: dict[str, list[Prepared]] = {}
    for prepared in cases:
        groups.setdefault(f"{prepared.case.kind}:{prepared.case.operator}", []).append(prepared)
    yield from groups.items()


def expected_unsupported(engine: str) -> dict[str, str]:
    """operator → the reason expectations.yaml lists for this engine."""
    document = yaml.safe_load(EXPECTATIONS.read_text(encoding="utf-8"))
    listed: dict[str, str] = document.get(engine) or {}
    return listed


@functools.cache
def runnable() -> tuple[list[Prepared], list[Outside]]:
    prepared: list[Prepared] = []
    outside: list[Outside] = []
    for case in load_cases():
        result = prepare(case)
        (prepared if isinstance(result, Prepared) else outside).append(result)  # type: ignore[arg-type]
    return prepared, outside


def covered_operations(engine: str) -> set[str]:
    return set(supported(engine))

"""Expressif programs rendered as SQL and run on real DuckDB and SQLite tables
(docs/expressif.md): two-valued predicates, variables bound through the driver, row fields,
dataset accumulators, type findings and engine refusals. The language's own cases run on all
five engines in integration/test_expressif_conformance.py."""

from __future__ import annotations

import sqlite3
from typing import Any

import duckdb
import pytest
import sqlglot.expressions as exp

from packata_sql.authored.expressif import ExpressifError, Payload, Program, parse
from packata_sql.catalog.expressif import (
    UnsupportedOnEngine,
    input_family,
    render,
    render_accumulator,
    supported,
)
from packata_sql.dialects import Family, get_dialect

ENGINES = ("duckdb", "sqlite")
ROWS = [(10, 3, "a"), (-1, -2, "b"), (0, 0, ""), (None, 1, None)]


def program(text: str, kind: str = "predicate", scope: str = "value") -> Program:
    return parse(Payload("1", kind, scope, text))  # type: ignore[arg-type]


def table(engine: str) -> Any:
    connection: Any = duckdb.connect() if engine == "duckdb" else sqlite3.connect(":memory:")
    connection.execute('CREATE TABLE t ("amount" INTEGER, "other" INTEGER, "label" TEXT)')
    connection.executemany("INSERT INTO t VALUES (?, ?, ?)", ROWS)
    return connection


def column(name: str) -> exp.Expr:
    return exp.column(name, quoted=True)


def no_variable(name: str) -> exp.Expr:
    raise AssertionError(f"unexpected @{name}")


def violations(engine: str, predicate: exp.Expr, parameters: tuple[Any, ...] = ()) -> int:
    """What the fused scan counts for a value rule: rows where the predicate is not true."""
    dialect = get_dialect(engine)
    count = exp.Count(this=exp.Case(ifs=[exp.If(this=exp.Not(this=exp.paren(predicate)),
                                                  true=exp.Literal.number(1))]))
    sql = dialect.render(exp.select(count).from_("t"))
    result: int = table(engine).execute(sql, parameters).fetchone()[0]
    return result


@pytest.mark.parametrize("engine", ENGINES)
def test_a_null_cell_fails_positive_and_passes_its_negation(engine: str) -> None:
    """positive(null) is false (two-valued): amounts 10, -1, 0, NULL give 3 violations, and
    `!positive` gives 1 (only 10); three-valued SQL would count 2 and 1."""
    dialect = get_dialect(engine)
    positive = render(program("numeric-is-positive"), dialect, subject=column("amount"),
                      fields={}, variable=no_variable)
    assert violations(engine, positive) == 3
    negated = render(program("!positive"), dialect, subject=column("amount"), fields={},
                     variable=no_variable)
    assert violations(engine, negated) == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_a_combination_never_leaks_null(engine: str) -> None:
    dialect = get_dialect(engine)
    either = render(program("zero |OR positive"), dialect, subject=column("amount"),
                    fields={}, variable=no_variable)
    assert violations(engine, either) == 2  # -1 and NULL
    exclusive = render(program("null |XOR negative"), dialect, subject=column("amount"),
                       fields={}, variable=no_variable)
    assert violations(engine, exclusive) == 2  # 10 and 0


@pytest.mark.parametrize("engine", ENGINES)
def test_variables_bind_through_the_driver_never_as_text(engine: str) -> None:
    dialect = get_dialect(engine)
    names: list[str] = []

    def variable(name: str) -> exp.Expr:
        names.append(name)
        return exp.Placeholder()

    predicate = render(program("greater-than(@floor)"), dialect, subject=column("amount"),
                       fields={}, variable=variable)
    assert names == ["floor"]
    assert "floor" not in dialect.render(predicate)
    assert violations(engine, predicate, (0,)) == 3  # -1, 0 and NULL are not above 0
    assert violations(engine, predicate, (-5,)) == 1  # only NULL


@pytest.mark.parametrize("engine", ENGINES)
def test_row_fields_resolve_to_the_physical_columns(engine: str) -> None:
    dialect = get_dialect(engine)
    rooted = program("[amount] |? greater-than({[other] | increment})", scope="row")
    predicate = render(rooted, dialect, subject=None, variable=no_variable,
                       fields={"amount": column("amount"), "other": column("other")})
    assert violations(engine, predicate) == 3  # 10 > 4 holds; -1 > -1, 0 > 1, NULL do not


@pytest.mark.parametrize(("text", "expected"), [
    ("count", 4), ("sum", 9), ("absolute | sum", 11), ("min", -1), ("max", 10),
    ("positive | any", True), ("positive | every", False), ("null | any", True),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_dataset_accumulators_are_one_scalar_aggregate(engine: str, text: str,
                                                        expected: object) -> None:
    dialect = get_dialect(engine)
    aggregate = render_accumulator(program(text, kind="expression", scope="dataset"), dialect,
                                   subject=column("amount"), fields={}, variable=no_variable)
    cell = table(engine).execute(dialect.render(exp.select(aggregate).from_("t"))).fetchone()[0]
    assert (bool(cell) if isinstance(expected, bool) else cell) == expected


@pytest.mark.parametrize("engine", ENGINES)
def test_an_expression_renders_a_value(engine: str) -> None:
    dialect = get_dialect(engine)
    value = render(program("null-to-empty | prepend(x) | last-chars(2)", kind="expression"), dialect,
                   subject=column("label"), fields={}, variable=no_variable)
    cells = table(engine).execute(dialect.render(exp.select(value).from_("t"))).fetchall()
    assert [row[0] for row in cells] == ["xa", "xb", "x", "x"]


@pytest.mark.parametrize(("text", "family", "kind"), [
    ("positive", Family.TEXT, "predicate"),
    ("length", Family.NUMBER, "expression"),
    ("true", Family.NUMBER, "predicate"),
])
def test_no_silent_cast_between_text_and_numbers(text: str, family: Family, kind: str) -> None:
    with pytest.raises(ExpressifError) as caught:
        render(program(text, kind=kind), get_dialect("duckdb"), subject=column("x"), fields={},
               variable=no_variable, subject_family=family)
    assert caught.value.code == "expressif-type"


def test_a_pipe_into_the_wrong_type_is_a_finding() -> None:
    with pytest.raises(ExpressifError) as caught:
        render(program("length | lower", kind="expression"), get_dialect("duckdb"),
               subject=column("label"), fields={}, variable=no_variable)
    assert caught.value.code == "expressif-type"
    assert caught.value.operation == "lower"


def test_what_the_first_operation_reads() -> None:
    assert input_family(program("positive")) == "number"
    assert input_family(program("lower | length", kind="expression")) == "text"
    assert input_family(program("null")) == "any"


def test_an_engine_without_the_exact_meaning_refuses_the_operation() -> None:
    with pytest.raises(UnsupportedOnEngine) as caught:
        render(program("lower", kind="expression"), get_dialect("sqlite"),
               subject=column("label"), fields={}, variable=no_variable)
    assert caught.value.code == "expressif-unsupported-on-engine"
    assert caught.value.operation == "lower"
    assert isinstance(caught.value, ExpressifError)
    render(program("lower", kind="expression"), get_dialect("postgres"),
           subject=column("label"), fields={}, variable=no_variable)


@pytest.mark.parametrize(("engine", "collation"), [("postgres", '"C.utf8"'),
                                                   ("mysql", "utf8mb4_uca1400_as_cs")])
def test_a_server_without_the_case_collation_refuses_lower_and_upper(
        engine: str, collation: str) -> None:
    """The session says whether the server has the collation the rendering names
    (integration/test_expressif_server_facts.py); without it the case functions are a finding
    and nothing else is."""
    dialect: Any = get_dialect(engine)
    assert collation in dialect.render(render(program("lower", kind="expression"), dialect,
                                              subject=column("label"), fields={},
                                              variable=no_variable))
    dialect.case_collation = False
    for text in ("lower", "upper"):
        with pytest.raises(UnsupportedOnEngine) as caught:
            render(program(text, kind="expression"), dialect, subject=column("label"),
                   fields={}, variable=no_variable)
        assert collation.strip('"') in caught.value.message
    render(program("trim", kind="expression") if engine == "postgres" else
           program("length", kind="expression"), dialect, subject=column("label"), fields={},
           variable=no_variable)


@pytest.mark.parametrize(("text", "scope", "code"), [
    ("[missing] |? positive", "row", "expressif-scope"),
    ("positive", "row", "expressif-scope"),
    ("round(@digits)", "value", "expressif-argument"),
    ("greater-than(ten)", "value", "expressif-argument"),
    ("within-interval(3)", "value", "expressif-argument"),
    ("modulo(2, 1, 0)", "value", "expressif-argument"),
    ("sorted-before(b)", "value", "expressif-unsupported"),
])
def test_render_findings(text: str, scope: str, code: str) -> None:
    kind = "expression" if text.startswith("round") else "predicate"
    with pytest.raises(ExpressifError) as caught:
        render(program(text, kind=kind, scope=scope), get_dialect("duckdb"),
               subject=None if scope == "row" else column("amount"),
               fields={"amount": column("amount")}, variable=lambda n: exp.Placeholder())
    assert caught.value.code == code


@pytest.mark.parametrize(("text", "code", "phrase"), [
    ("coalesce([amount])", "expressif-argument", "2 or more"),
    ("coalesce([amount], [label])", "expressif-type", "number and text"),
    ("coalesce([raw], 0)", "expressif-type", "logicalType"),
    ("[label] | pad-left(3, ab)", "expressif-argument", "one character"),
    ("[label] | pad-left(3, @fill)", "expressif-argument", "one character"),
    ("[label] | pad-left(@width, 0)", "expressif-argument", "not a variable"),
    ("[label] | pad-right(-1, 0)", "expressif-argument", "0 or more"),
])
def test_expression_findings(text: str, code: str, phrase: str) -> None:
    """Arguments SQL cannot give the language's meaning are findings, never guesses: one
    type for coalesce, a width and one character written in the program for padding."""
    with pytest.raises(ExpressifError) as caught:
        render(program(text, kind="expression", scope="row"), get_dialect("duckdb"),
               subject=None, fields={"amount": column("amount"), "label": column("label"),
                                     "raw": column("raw")},
               variable=lambda n: exp.Placeholder(),
               field_families={"amount": Family.NUMBER, "label": Family.TEXT, "raw": None})
    assert caught.value.code == code
    assert phrase in caught.value.message


@pytest.mark.parametrize("engine", ENGINES)
def test_coalesce_reads_the_row_not_the_piped_value(engine: str) -> None:
    dialect = get_dialect(engine)
    rendered = render(program("coalesce([amount], [other], 7)", kind="expression", scope="row"),
                      dialect, subject=None,
                      fields={"amount": column("amount"), "other": column("other")},
                      variable=no_variable,
                      field_families={"amount": Family.NUMBER, "other": Family.NUMBER})
    sql = dialect.render(exp.select(rendered).from_("t"))
    assert [row[0] for row in table(engine).execute(sql).fetchall()] == [10, -1, 0, 1]


@pytest.mark.parametrize(("pattern", "phrase"), [
    ("^[A-Z]+$", "host culture"),  # .NET ignores case by the host's culture (i/İ, Kelvin)
    ("^[!-~]+$", "host culture"),  # a range holding letters
    ("^\\d+$", "escape \\d"),  # Unicode digits in .NET
    ("^[0-9].$", "'.'"),  # one UTF-16 code unit in .NET
    ("^[^0-9]+$", "negated class"),
    ("^[0-9]$|^-$", "'$' anywhere"),  # before a final new line in .NET: only rewritten last
    ("(?=1)[0-9]", "(?"),
])
def test_matches_regex_outside_the_exact_subset_is_a_finding(pattern: str, phrase: str) -> None:
    with pytest.raises(ExpressifError) as caught:
        render(program(f"matches-regex(`{pattern}`)"), get_dialect("duckdb"),
               subject=column("label"), fields={}, variable=no_variable)
    assert caught.value.code == "expressif-argument"
    assert phrase in caught.value.message


def test_matches_regex_goes_through_the_backtracking_guard() -> None:
    """A backtracking matcher (MariaDB's PCRE, Spark's Java) refuses a nested repetition;
    RE2 (DuckDB) and PostgreSQL run it."""
    text = "matches-regex(`^(?:[0-9]+)+$`)"
    for engine in ("mysql", "spark"):
        with pytest.raises(UnsupportedOnEngine) as caught:
            render(program(text), get_dialect(engine), subject=column("label"), fields={},
                   variable=no_variable)
        assert "backtracking" in caught.value.message
    for engine in ("duckdb", "postgres"):
        render(program(text), get_dialect(engine), subject=column("label"), fields={},
               variable=no_variable)
    with pytest.raises(ExpressifError) as variable:
        render(program("matches-regex(@pattern)"), get_dialect("duckdb"),
               subject=column("label"), fields={}, variable=lambda n: exp.Placeholder())
    assert "not a variable" in variable.value.message


def test_supported_lists_what_renders_on_each_engine() -> None:
    duckdb_ops, sqlite_ops = supported("duckdb"), supported("sqlite")
    assert duckdb_ops["positive"] == "portable"
    assert duckdb_ops["round"] == "per-dialect"
    assert "round" not in sqlite_ops and "lower" not in sqlite_ops
    assert duckdb_ops["predicate:integer"] == "portable"  # the function has the same name
    assert "accumulator:sum" in sqlite_ops
    assert len(duckdb_ops) >= 75

"""Members and bounds checked against the column's native type (catalog/holding.py): what each
engine's catalog calls a type, what it holds, and the SQL the scan gets for a member it cannot
hold. Each engine's own behaviour on these members is measured in integration/."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
import sqlglot.expressions as exp

from packata_sql.catalog.base import MeasureContext
from packata_sql.catalog.holding import column_type, exact_bound, number_problem, temporal_text
from packata_sql.dialects import Family, get_dialect

MAX = Fraction(Decimal("99999999999999999999.999999999999999999"))


CENTS = Fraction(Decimal("99999999.99"))


@pytest.mark.parametrize("engine,native,step,low,high", [
    ("spark", "decimal(38,18)", Fraction(1, 10**18), -MAX, MAX),
    ("postgres", "numeric(10,2)", Fraction(1, 100), -CENTS, CENTS),
    ("mysql", "decimal(10,2) unsigned", Fraction(1, 100), 0, CENTS),
    ("duckdb", "DECIMAL(18,3)", Fraction(1, 1000), Fraction(1 - 10**18, 1000),
     Fraction(10**18 - 1, 1000)),
    ("mysql", "bigint(20) unsigned", 1, 0, 2**64 - 1),
    ("postgres", "smallint", 1, -32768, 32767),
    ("spark", "int", 1, -(2**31), 2**31 - 1),
    ("duckdb", "HUGEINT", 1, -(2**127), 2**127 - 1),
])
def test_number_types_read_from_each_catalog(engine, native, step, low, high):
    held = column_type(native, get_dialect(engine))
    assert held is not None
    assert (held.kind, held.step, held.low, held.high) == ("number", step, low, high)


@pytest.mark.parametrize("engine,native", [
    ("postgres", "numeric"), ("postgres", "double precision"), ("spark", "string"),
    ("duckdb", "VARCHAR"), ("spark", "interval day"), ("mysql", "not a type (x")])
def test_types_that_bound_no_member(engine, native):
    assert column_type(native, get_dialect(engine)) is None


def test_a_decimal_holds_only_its_scale_and_range():
    held = column_type("decimal(38,18)", get_dialect("spark"))
    assert held is not None
    assert number_problem(MAX, held) is None and number_problem(-MAX, held) is None
    assert number_problem(Fraction(Decimal("1e-19")), held) == "it has more than 18 decimal places"
    assert number_problem(Fraction(10**20), held) == "it is outside the type's range"
    integer = column_type("bigint", get_dialect("postgres"))
    assert integer is not None
    assert number_problem(Fraction(11, 2), integer) == "it is not an integer"
    assert number_problem(Fraction(2**63), integer) == "it is outside the type's range"
    unsigned = column_type("int unsigned", get_dialect("mysql"))
    assert unsigned is not None and number_problem(Fraction(-1), unsigned) is not None


@pytest.mark.parametrize("engine,native,member,text,why", [
    ("duckdb", "DATE", "2024-01-01", "2024-01-01", None),
    ("postgres", "date", "2024-01-01 00:00:00", "2024-01-01", None),
    ("spark", "date", "2024-01-01T00:00", "2024-01-01", None),
    ("spark", "date", "2024-01-01 10:00:00", None, "it has a time of day"),
    ("postgres", "date", "2024-01-01 00:00:00.5", None, "it has a time of day"),
    ("duckdb", "DATE", "10:00:00", None, "it is a time of day, not a date"),
    ("postgres", "timestamp(0) without time zone", "2024-01-01 10:00:00.5", None,
     "it has more than 0 fractional-second digits"),
    ("postgres", "timestamp(3) with time zone", "2024-01-01 10:00:00.500", "2024-01-01 10:00:00.500",
     None),
    ("mysql", "datetime", "2024-01-01 10:00:00.1", None, "it has more than 0 fractional-second digits"),
    ("mysql", "datetime(3)", "2024-01-01 10:00:00.123", "2024-01-01 10:00:00.123", None),
    ("spark", "timestamp", "2024-01-01", "2024-01-01", None),
    ("spark", "timestamp_ntz", "12:00", None, "it is a time of day without a date"),
    ("postgres", "time without time zone", "2024-01-01 10:00:00", None, "it has a date"),
    ("postgres", "time(2) without time zone", "10:00:00.25", "10:00:00.25", None),
    ("duckdb", "DATE", "2024-02-30", None, "it is not a valid date or time"),
])
def test_temporal_members_against_the_column_kind(engine, native, member, text, why):
    held = column_type(native, get_dialect(engine))
    assert held is not None
    assert temporal_text(member, held) == (text, why)


# (op, bound) on DECIMAL(38,18): the bound on the type's step, or the constant it amounts to.
@pytest.mark.parametrize("op,bound,expected", [
    (exp.GTE, Fraction(Decimal("1e-19")), Fraction(1, 10**18)),
    (exp.GT, Fraction(Decimal("1e-19")), Fraction(0)),
    (exp.LTE, Fraction(Decimal("1e-19")), Fraction(0)),
    (exp.LT, Fraction(Decimal("1e-19")), Fraction(1, 10**18)),
    (exp.LTE, Fraction(Decimal("-1e-19")), Fraction(-1, 10**18)),
    (exp.GTE, Fraction(10**40), False), (exp.LTE, Fraction(10**40), True),
    (exp.GT, MAX, False), (exp.GTE, MAX, MAX), (exp.LT, -MAX, False), (exp.GTE, -MAX, True),
    (exp.GT, -MAX - 1, True), (exp.LT, Fraction(10**20), True),
])
def test_bounds_move_onto_the_step_or_become_constants(op, bound, expected):
    held = column_type("decimal(38,18)", get_dialect("spark"))
    assert held is not None
    assert exact_bound(op, bound, held) == expected


def context(engine: str, native: str, family: Family) -> MeasureContext:
    dialect = get_dialect(engine)
    return MeasureContext(dialect, dialect.table(("t",)), {"c": family}, {"c": native})


def test_a_member_the_column_cannot_hold_is_false_with_a_note():
    measured = context("spark", "decimal(38,18)", Family.NUMBER)
    matched = measured.any_member("c", (Decimal("1e-19"), MAX.numerator, Decimal(
        "99999999999999999999.999999999999999999"), None))
    sql = measured.dialect.render(matched)
    assert sql == ("(FALSE) OR (FALSE) OR (`c` = 99999999999999999999.999999999999999999) "
                   "OR (`c` IS NULL)")
    assert measured.take_notes() == [
        "the member '0.0000000000000000001' cannot be held by column 'c' (decimal(38,18)): it "
        "has more than 18 decimal places; it matches no cell",
        f"the member '{MAX.numerator}' cannot be held by column 'c' (decimal(38,18)): it is "
        "outside the type's range; it matches no cell"]
    assert measured.take_notes() == []


def test_a_date_column_compares_dates_and_refuses_times():
    measured = context("postgres", "date", Family.TEMPORAL)
    sql = measured.dialect.render(measured.any_member(
        "c", ("2024-01-01 00:00:00", "2024-01-01 10:00:00", "10:00")))
    assert sql == "(\"c\" = '2024-01-01') OR (FALSE) OR (FALSE)"
    assert len(measured.take_notes()) == 2


def test_bounds_render_exactly_and_sqlite_is_not_checked():
    measured = context("spark", "decimal(38,18)", Family.NUMBER)
    rendered = measured.dialect.render(measured.number_compare("c", exp.GTE, Fraction(Decimal("1e-19"))))
    assert rendered == "`c` >= 0.000000000000000001"
    assert measured.number_compare("c", exp.LTE, Fraction(10**40)) == exp.true()
    loose = context("sqlite", "DECIMAL(38,18)", Family.DYNAMIC)  # cells ignore the declared type
    assert loose.held("c") is None
    assert loose.dialect.render(loose.number_compare("c", exp.GTE, Fraction(Decimal("1e-19")))) == \
        '"c" >= 0.0000000000000000001'


def _compiled_with(tmp_path, engine: str, physical: str | None) -> dict:
    """`compile`'s plan document for one decimal column with members it cannot all hold."""
    import yaml

    from packata_sql.contracts.odcs import load_odcs
    from packata_sql.plans.compiler import compile_contract
    from packata_sql.plans.document import plan_document

    prop = {"name": "amount", "logicalType": "number",
            "logicalTypeOptions": {"validValues": [1.5, 1.005, 99999999999]},
            "quality": [{"metric": "invalidValues",
                         "arguments": {"validValues": [2.25, 3.125]}, "mustBe": 0}]}
    if physical:
        prop["physicalType"] = physical
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "m", "version": "1",
        "status": "active", "schema": [{"name": "amounts", "properties": [prop]}]}))
    contract = load_odcs(str(path))
    dialect = get_dialect(engine)
    return plan_document(contract, compile_contract(contract, dialect), dialect)


@pytest.mark.parametrize("engine", ["duckdb", "postgres", "mysql", "spark", "sqlserver",
                                    "snowflake", "bigquery", "trino", "databricks"])
def test_compile_checks_members_against_a_declared_physical_type(tmp_path, engine):
    """Without a database, the declared physicalType stands in for the catalog's type: the
    members a decimal(10,2) cannot hold are findings at compile time and match nothing."""
    document = _compiled_with(tmp_path, engine, "decimal(10,2)")
    flagged = {(f["rule_key"].rsplit(".", 1)[-1], f["message"].split("'")[1])
               for f in document["findings"] if f["code"] == "member-not-representable"}
    assert flagged == {("quality[0]", "3.125"), ("validValues", "1.005"),
                       ("validValues", "99999999999")}
    sql = document["scans"][0]["sql"]
    assert "3.125" not in sql and "1.005" not in sql and "1.5" in sql and "2.25" in sql


@pytest.mark.parametrize("engine", ["duckdb", "postgres"])
def test_compile_without_a_physical_type_leaves_members_to_the_run(tmp_path, engine):
    document = _compiled_with(tmp_path, engine, None)
    assert not [f for f in document["findings"] if f["code"] == "member-not-representable"]
    assert "3.125" in document["scans"][0]["sql"]


def test_a_member_message_names_where_the_member_is_written(tmp_path):
    """ODCS 3.2's `enum` sits on the property; `validValues` under logicalTypeOptions."""
    import yaml

    from packata_sql.contracts.odcs import load_odcs
    from packata_sql.plans.compiler import compile_contract
    from packata_sql.plans.document import plan_document

    path = tmp_path / "e.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "e", "version": "1",
        "status": "active", "schema": [{"name": "t", "properties": [
            {"name": "a", "logicalType": "date", "enum": [{"value": "2024-02-30"}]},
            {"name": "b", "logicalType": "date",
             "logicalTypeOptions": {"validValues": ["2024-02-31"]}}]}]}))
    contract = load_odcs(str(path))
    dialect = get_dialect("duckdb")
    document = plan_document(contract, compile_contract(contract, dialect), dialect)
    named = sorted(f["message"].split("'")[1] for f in document["findings"]
                   if f["code"] == "member-not-representable")
    assert named == ["logicalTypeOptions.validValues[0]", "property.enum[0]"]

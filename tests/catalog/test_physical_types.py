"""A declared physicalType read as each engine reads type names (issue 19.7), without a
database: the catalog's spelling is given (integration/test_physical_types.py takes it from the
live engines)."""

from __future__ import annotations

import pytest

from packata_sql.contracts.model import Category, Constraint, Rule, Target
from packata_sql.dialects import Family, get_dialect
from packata_sql.dialects.facts import ColumnFact, physical_matches, type_base, unknown_type
from packata_sql.plans.compiler import CatalogPlan
from packata_sql.run.catalog_checks import answer


@pytest.mark.parametrize(("engine", "native", "declared", "matches"), [
    ("duckdb", "DECIMAL(10,2)", "decimal", True),  # sqlglot gives DuckDB's decimal (18,3)
    ("duckdb", "DECIMAL(10,2)", "decimal(18,3)", False),
    ("duckdb", "VARCHAR", "str", False),
    ("postgres", "text", "STRING", False),
    ("postgres", "character varying(20)", "varchar", True),
    ("postgres", "mood", "mood", True),  # a user-defined type, as the catalog spells it
    ("mysql", "datetime(6)", "datetime", True),
    ("mysql", "bigint(20) unsigned", "bigint unsigned", True),
    ("spark", "varchar(20)", "varchar", True),
    ("sqlite", "str", "STR", True),
    ("sqlite", "TEXT", "str", False),
])
def test_declared_names_as_the_engine_reads_them(engine, native, declared, matches):
    fact = ColumnFact("c", 1, native, Family.OTHER, True)
    assert physical_matches(declared, fact, get_dialect(engine)) is matches


@pytest.mark.parametrize(("engine", "text", "base"), [
    ("postgres", "timestamp(3) without time zone", "timestamp without time zone"),
    ("postgres", "integer[]", "integer"),
    ("duckdb", "STRUCT(x INTEGER, y DECIMAL(10, 2))", "struct"),
    ("spark", "array<decimal(10,2)>", "array"),
    ("mysql", "bigint(20) unsigned zerofill", "bigint"),
    ("duckdb", "signed", "signed"),  # a name of its own, not a modifier
])
def test_type_base(engine, text, base):
    assert type_base(text, get_dialect(engine)) == base


def test_sqlite_knows_every_name():
    assert not unknown_type("anything at all", get_dialect("sqlite"))


def test_the_failure_says_the_engine_has_no_such_type():
    rule = Rule("k", "schema[0].properties[0].physicalType", Category.CONSTRAINT,
                Target("t", "t", ("c",), "c", None),
                Constraint("physicalType", ("c",), (("physicalType", "str"),)), ())
    plan = CatalogPlan(rule, rule.definition, ("t",))
    found = answer(plan, [ColumnFact("c", 1, "text", Family.TEXT, True)], get_dialect("postgres"))
    assert found.failed == ("physicalType str, but PostgreSQL has no type named 'str' "
                            "(found text)",)

"""The ODCS logicalType a starter contract declares for a column (`facts.logical_type_of`): the
one ODCS logical type that describes the engine's type, never one its own catalog check would
refuse; none, with the reason, where ODCS has no such type."""

from __future__ import annotations

import pytest

from packata_sql.dialects import Family, get_dialect
from packata_sql.dialects.facts import ColumnFact, logical_compatible, logical_type_of

CASES = {
    "duckdb": {"INTEGER": "integer", "HUGEINT": "integer", "UTINYINT": "integer",
               "DECIMAL(10,2)": "number", "DOUBLE": "number", "VARCHAR": "string",
               "ENUM('a', 'b')": "string", "BOOLEAN": "boolean", "DATE": "date",
               "TIMESTAMP": "timestamp", "TIMESTAMP WITH TIME ZONE": "timestamp",
               "TIMESTAMP_NS": "timestamp", "TIME": "time", "TIME WITH TIME ZONE": "time",
               "INTEGER[]": "array", "VARCHAR[]": "array", "DECIMAL(10,2)[]": "array",
               "STRUCT(a INTEGER, b VARCHAR)": "object", "MAP(VARCHAR, INTEGER)": None,
               "JSON": None, "UUID": None, "INTERVAL": None, "BLOB": None},
    "postgres": {"integer": "integer", "bigint": "integer", "smallint": "integer",
                 "numeric(10,2)": "number", "double precision": "number",
                 "character varying(20)": "string", "text": "string", "boolean": "boolean",
                 "date": "date", "timestamp without time zone": "timestamp",
                 "timestamp with time zone": "timestamp", "time without time zone": "time",
                 "time with time zone": "time", "integer[]": "array", "text[]": "array",
                 "json": None, "jsonb": None, "uuid": None, "interval": None, "bytea": None},
    "mysql": {"int(11)": "integer", "int(10) unsigned": "integer", "bigint(20)": "integer",
              "decimal(10,2)": "number", "double": "number", "tinyint(1)": "boolean",
              "varchar(20)": "string", "enum('a','b')": "string", "datetime(6)": "timestamp",
              "timestamp": "timestamp", "time": "time", "date": "date", "year": None,
              "json": None, "blob": None},
    "sqlite": {"INTEGER": "integer", "NUMERIC(10,2)": "number", "REAL": "number",
               "TEXT": "string", "VARCHAR(20)": "string", "BOOLEAN": "boolean",
               "DATETIME": "timestamp", "DATE": "date", "TIME": "time", "JSON": None,
               "BLOB": None, "": None},
}


# PostgreSQL's family comes from the type's catalog name (pg_type.typname), as its session reads it.
TYPNAMES = {"integer": "int4", "bigint": "int8", "smallint": "int2", "numeric(10,2)": "numeric",
            "double precision": "float8", "character varying(20)": "varchar", "text": "text",
            "boolean": "bool", "date": "date", "timestamp without time zone": "timestamp",
            "timestamp with time zone": "timestamptz", "time without time zone": "time",
            "time with time zone": "timetz", "integer[]": "_int4", "text[]": "_text",
            "json": "json", "jsonb": "jsonb", "uuid": "uuid", "interval": "interval",
            "bytea": "bytea"}


def _fact(engine: str, native: str) -> ColumnFact:
    dialect = get_dialect(engine)
    family = dialect.family(TYPNAMES[native]) if engine == "postgres" \
        else dialect.type_family(native)
    return ColumnFact("c", 1, native, family, True)


@pytest.mark.parametrize("engine", sorted(CASES))
def test_each_type_gets_the_logical_type_its_catalog_check_accepts(engine):
    dialect = get_dialect(engine)
    found = {native: logical_type_of(_fact(engine, native), dialect)[0] for native in CASES[engine]}
    assert found == CASES[engine]
    for native, logical in found.items():
        if logical is not None:
            assert logical_compatible(logical, _fact(engine, native), dialect) is True, native


def test_no_logical_type_says_why():
    duckdb = get_dialect("duckdb")
    assert logical_type_of(_fact("duckdb", "JSON"), duckdb) == (
        None, "JSON holds any JSON value (object, array or scalar)")
    assert logical_type_of(_fact("duckdb", "UUID"), duckdb) == (
        None, "no ODCS logicalType describes UUID")
    sqlite = get_dialect("sqlite")
    assert logical_type_of(_fact("sqlite", ""), sqlite) == (
        None, "no declared type: any cell may hold any type")


def test_a_duckdb_list_is_no_text_number_or_time_column():
    duckdb = get_dialect("duckdb")
    for native in ("VARCHAR[]", "ENUM('a', 'b')[]", "DECIMAL(10,2)[]", "TIMESTAMP[]", "INTEGER[3]"):
        assert duckdb.family(native) is Family.OTHER, native
    assert duckdb.family("VARCHAR") is Family.TEXT

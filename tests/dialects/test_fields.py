"""A nested property's path as SQL (dialects/fields.py): each segment is its own identifier or
JSON key, so a field name that looks like SQL or like a JSON path addresses exactly that field.
Executed on DuckDB (STRUCT) and SQLite (JSON1) in-process; the servers in
integration/test_nested_fields.py."""

from __future__ import annotations

import json
import sqlite3

import duckdb
import pytest
import sqlglot.expressions as exp

from packata_sql.dialects import Family, Layout, get_dialect
from packata_sql.dialects.fields import field_reference, json_path, struct_field

#: Names that break a path built by concatenation: quotes of every engine, brackets, a dot,
#: a JSON path's own syntax, SQL that would end the statement, and non-ASCII text.
HOSTILE = ["a.b", "it's", 'say "hi"', "`tick`", "x']['y", "$.z", "*", "[0]",
           "1')) OR 1=1 --", "naïve ☃ 名", " lead"]


def _select(dialect_name: str, column: str, fields: list[str]) -> str:
    dialect = get_dialect(dialect_name)
    reference = field_reference(dialect, column, fields, leaf=Family.TEXT)
    return dialect.render(exp.select(reference).from_(dialect.table(["t"])))


@pytest.mark.parametrize("name", HOSTILE)
def test_duckdb_reads_exactly_the_named_struct_field(name):
    """The struct has the hostile field and a decoy named like what the hostile name would
    become if it were read as a path or as SQL; only the named field is read."""
    connection = duckdb.connect()
    quoted = get_dialect("duckdb").quote_identifier
    connection.execute(f"CREATE TABLE t (c STRUCT({quoted(name)} VARCHAR, a VARCHAR, "
                       f"{quoted('x')} VARCHAR))")
    connection.execute("INSERT INTO t VALUES (?)", [{name: "hit", "a": "decoy", "x": "decoy"}])
    assert connection.execute(_select("duckdb", "c", [name])).fetchall() == [("hit",)]


@pytest.mark.parametrize("name", [n for n in HOSTILE if '"' not in n])
def test_sqlite_reads_exactly_the_named_json_key(name):
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE t (c TEXT)")
    document = {"outer": {name: "hit", "a": "decoy", "b": "decoy", "x": "decoy", "z": "decoy"}}
    connection.execute("INSERT INTO t VALUES (?)", [json.dumps(document, ensure_ascii=False)])
    assert connection.execute(_select("sqlite", "c", ["outer", name])).fetchall() == [("hit",)]


def test_sqlite_refuses_a_key_it_cannot_quote():
    """JSON1 matches a key as written in the document, undecoded; a `"` or `\\` is always
    written escaped there, so such a name could never match: it is refused, not guessed."""
    sqlite = get_dialect("sqlite")
    assert sqlite.field_problem('say "hi"') is not None
    assert sqlite.field_problem("back\\slash") is not None
    assert sqlite.field_problem("it's") is None


def test_json_paths_escape_quotes_and_backslashes_for_mariadb():
    assert json_path(["a b", 'q"t', "b\\s"]) == '$."a b"."q\\"t"."b\\\\s"'
    assert json_path(["a b", "it's"], escapes=False) == '$."a b"."it\'s"'


def test_postgres_passes_each_key_as_its_own_literal():
    sql = _select("postgres", "doc", ["a'b", "c.d"])
    assert sql == "SELECT JSONB_EXTRACT_PATH_TEXT(\"doc\", 'a''b', 'c.d') FROM \"t\""
    composite = get_dialect("postgres").nested_field(
        exp.column("rec", quoted=True), ("a\"b", "c"), Layout.STRUCT, None)
    assert get_dialect("postgres").render(composite) == '("rec")."a""b"."c"'


def test_postgres_reads_a_json_leaf_as_its_declared_type():
    """A number or boolean property reads only JSON numbers or booleans (others are NULL);
    any other leaf compares as its text."""
    postgres = get_dialect("postgres")
    number = postgres.render(field_reference(postgres, "doc", ["n"], leaf=Family.NUMBER))
    assert number == ("CASE WHEN JSONB_TYPEOF(JSONB_EXTRACT_PATH(\"doc\", 'n')) = 'number' "
                      "THEN CAST(JSONB_EXTRACT_PATH_TEXT(\"doc\", 'n') AS DECIMAL) END")
    plain = field_reference(postgres, "doc", ["n"], layout=Layout.JSON_TEXT, leaf=Family.TEMPORAL)
    assert postgres.render(plain) == "JSON_EXTRACT_PATH_TEXT(\"doc\", 'n')"


def test_an_engine_without_structured_columns_has_no_reference():
    with pytest.raises(ValueError, match="sqlserver"):
        field_reference(get_dialect("sqlserver"), "c", ["a"])


def test_struct_types_are_read_from_the_catalog_spelling():
    duckdb_dialect = get_dialect("duckdb")
    native = 'STRUCT("a b" STRUCT("x""y" INTEGER, city VARCHAR), flag BOOLEAN)'
    assert struct_field(native, ["a b", 'x"y'], duckdb_dialect).family is Family.NUMBER
    assert struct_field(native, ["A B", "CITY"], duckdb_dialect).family is Family.TEXT
    missing = struct_field(native, ["a b", "citi"], duckdb_dialect)
    assert (missing.found, missing.missing, missing.siblings) == (False, "citi", ('x"y', "city"))
    assert not struct_field(native, ["flag", "deeper"], duckdb_dialect).found
    spark = get_dialect("spark")
    assert struct_field("struct<address:struct<city:string>>", ["address", "city"],
                        spark).family is Family.TEXT


def test_a_type_that_spells_out_no_struct_says_nothing_about_its_fields():
    """A PostgreSQL composite is named, not spelt out, in the catalog: its fields are not
    judged missing from the name."""
    postgres = get_dialect("postgres")
    assert struct_field("nf_address", ["street"], postgres) is None
    assert struct_field("point", ["x"], postgres) is None


def test_a_composite_types_attributes_are_a_struct_matched_exactly():
    """PostgreSQL's catalog rows for a composite (a nested composite after its own row) make
    the STRUCT the STRUCT judgement reads; a quoted attribute name binds exactly on
    PostgreSQL, so `City` is not `city` there (DuckDB folds case)."""
    from packata_sql.dialects.postgres import Postgres

    dialect = Postgres()
    dialect.read_composite("nf_doc", [
        (["name"], "text", "text"), (["addr"], "nf_place", "nf_place"),
        (["addr", "city"], "character varying(20)", "varchar"),
        (["addr", "mood"], "public.mood", "enum")])
    city = struct_field("nf_doc", ["addr", "city"], dialect)
    assert city is not None and (city.found, city.family, city.native) == (
        True, Family.TEXT, "VARCHAR(20)")
    mood = struct_field("nf_doc", ["addr", "mood"], dialect)  # an enum: kept by name, text
    assert mood is not None and (mood.found, mood.family, mood.native) == (
        True, Family.TEXT, "public.mood")
    upper = struct_field("nf_doc", ["addr", "City"], dialect)
    assert upper is not None and (upper.found, upper.siblings) == (False, ("city", "mood"))
    assert struct_field("other_type", ["name"], dialect) is None  # not read: not judged
    folded = struct_field("STRUCT(city VARCHAR)", ["City"], get_dialect("duckdb"))
    assert folded is not None and folded.found

"""DuckDB: statically typed, RE2 regular expressions, collation-aware `=` on VARCHAR."""

from __future__ import annotations

import re

import sqlglot.expressions as exp

from packata_sql.dialects import (
    Dialect,
    DistinctPlan,
    Family,
    Layout,
    call,
    data_type,
    temporal_kind,
)
from packata_sql.dialects.fields import bracket_path, json_path
from packata_sql.dialects.lexical import POSTGRES_FAMILY, DenyList
from packata_sql.dialects.regex import re2_refuses

_NUMBER = re.compile(
    r"^(?:U?(?:TINY|SMALL|BIG|HUGE)?INT(?:EGER)?|U?INT\d+|DECIMAL.*|NUMERIC.*|FLOAT|REAL|DOUBLE)$"
)

DENY = DenyList(
    functions=frozenset({
        # files, globs and other databases
        "read_*", "parquet_*", "sniff_csv", "glob", "delta_scan", "iceberg_*", "sqlite_scan",
        "sqlite_attach", "postgres_*", "mysql_*",
        # network (http_client) and secrets
        "http_*", "load_aws_credentials", "duckdb_secrets", "which_secret",
        # SQL text run from a string, where the lexer cannot see it
        "query", "query_table", "json_execute_serialized_sql",
        # sequences, time, the database file and settings
        "nextval", "setval", "pg_sleep", "sleep_ms", "checkpoint", "force_checkpoint",
        "copy_database", "write_log", "enable_profile", "disable_profile",
        "enable_checkpoint_on_shutdown", "disable_checkpoint_on_shutdown",
    }),
    statements=frozenset({"attach", "detach", "install", "load", "copy", "export", "import",
                          "checkpoint", "force"}),
    string_tables=True,
)


#: DuckDB's type names and aliases (its `duckdb_types()`, the ones DuckDB 1.x and 2.x share).
TYPE_NAMES = frozenset({
    "array", "bigint", "binary", "bit", "bitstring", "blob", "bool", "boolean", "bpchar",
    "bytea", "char", "date", "datetime", "dec", "decimal", "double", "enum", "float", "float4",
    "float8", "guid", "hugeint", "int", "int1", "int128", "int16", "int2", "int32", "int4",
    "int64", "int8", "integer", "interval", "json", "list", "logical", "long", "map", "numeric",
    "nvarchar", "real", "row", "short", "signed", "smallint", "string", "struct", "text", "time",
    "time with time zone", "timestamp", "timestamp with time zone", "timestamp_ms",
    "timestamp_ns", "timestamp_s", "timestamp_us", "timestamptz", "timetz", "tinyint",
    "ubigint", "uhugeint", "uint128", "uint16", "uint32", "uint64", "uint8", "uinteger",
    "union", "usmallint", "utinyint", "uuid", "varbinary", "varchar",
})

#: Every character up to U+FFFF, in RE2 (and PCRE, Java) syntax.
_NOT_ASTRAL_RE2 = r"[^\x{10000}-\x{10FFFF}]"


class DuckDB(Dialect):
    name = "duckdb"
    sqlglot_name = "duckdb"
    type_names = TYPE_NAMES
    type_aliases = {"guid": "uuid", "list": "array", "nvarchar": "varchar",  # noqa: RUF012
                    "timestamp_us": "timestamp", "uint8": "utinyint", "uint16": "usmallint",
                    "uint32": "uinteger", "uint64": "ubigint"}
    case_insensitive_names = True
    library_metrics = True
    regex_backtracks = False  # RE2: linear time
    lexical = POSTGRES_FAMILY
    deny = DENY

    @property
    def distinct_plan(self) -> DistinctPlan:
        return DistinctPlan.SCALAR_SUBQUERIES

    def case_kept(self, upper: bool) -> dict[str, str]:
        # UPPER maps 'ß' to 'ẞ' (U+1E9E); .NET's invariant mapping keeps 'ß'.
        return {**super().case_kept(upper), **({"ß": "ß"} if upper else {})}

    def case_mapped(self, text: exp.Expr) -> exp.Expr:
        return self.binary_key(text)  # REPLACE and the case functions see the text itself

    def utf16_length(self, text: exp.Expr) -> exp.Expr | None:
        astral = exp.func("REGEXP_REPLACE", text.copy(), exp.Literal.string(_NOT_ASTRAL_RE2),
                          exp.Literal.string(""), exp.Literal.string("g"))
        return self._astral_plus_characters(text, astral)

    def text_equals(self, column: exp.Expr, text: str) -> exp.Expr:
        return exp.EQ(this=self.binary_key(column), expression=exp.Literal.string(text))

    def binary_key(self, column: exp.Expr) -> exp.Expr:
        # The cast turns ENUM values into text (a no-op on VARCHAR); "binary" overrides a
        # column collation such as NOCASE.
        as_text = exp.Cast(this=column, to=data_type("VARCHAR"))
        return exp.Collate(this=as_text, expression=exp.Identifier(this="binary", quoted=True))

    def render(self, expression: exp.Expr, *, pretty: bool = False, copy: bool = True) -> str:
        # sqlglot's generic generator writes the standard SQL of the catalog in a form DuckDB
        # reads as is, and spares each run the import of sqlglot's DuckDB generator (~20 ms).
        return expression.sql(pretty=pretty, copy=copy)

    def regex_search(self, column: exp.Expr, pattern: str) -> exp.Expr:
        return exp.Anonymous(this="REGEXP_MATCHES", expressions=[column, exp.Literal.string(pattern)])

    def pattern_problem(self, pattern: str) -> str | None:
        if re2_refuses(pattern):
            return "DuckDB (RE2) has no lookaround, backreferences or possessive quantifiers"
        return None

    def epoch_micros(self, newest: exp.Expr, native_type: str | None) -> exp.Expr | None:
        return None if temporal_kind(native_type) is None else call("epoch_us", newest)

    def holds_instants(self, native_type: str | None) -> bool:
        name = (native_type or "").upper()
        return "WITH TIME ZONE" in name or name.startswith("TIMESTAMPTZ")
    nested_layout = Layout.STRUCT

    def field_layout(self, native_type: str | None) -> Layout | None:
        if native_type is None or native_type.upper().startswith("STRUCT("):
            return Layout.STRUCT
        if native_type.upper() == "JSON":
            return Layout.JSON
        return None

    def nested_field(self, column: exp.Expr, fields: tuple[str, ...], layout: Layout,
                     leaf: Family | None) -> exp.Expr:
        if layout is Layout.STRUCT:
            return bracket_path(column, fields)
        path = exp.Literal.string(json_path(fields))
        text = exp.Anonymous(this="json_extract_string", expressions=[column, path])
        # DuckDB reads a JSON number as BIGINT, UBIGINT or DOUBLE: compared as DOUBLE.
        typed = {Family.NUMBER: (("BIGINT", "UBIGINT", "DOUBLE"), "DOUBLE"),
                 Family.BOOLEAN: (("BOOLEAN",), "BOOLEAN")}
        if leaf not in typed:
            return text  # any other leaf compares as its text (a JSON string unquoted)
        json_types, sql_type = typed[leaf]
        kind = exp.Anonymous(this="json_type", expressions=[column.copy(), path.copy()])
        return exp.Case().when(
            exp.In(this=kind, expressions=[exp.Literal.string(t) for t in json_types]),
            exp.Cast(this=text, to=data_type(sql_type)))

    def nested_object(self, column: exp.Expr, fields: tuple[str, ...],
                      layout: Layout) -> exp.Expr:
        if layout is Layout.STRUCT:
            return bracket_path(column, fields)  # a NULL struct is NULL
        kind = exp.Anonymous(this="json_type", expressions=[
            column, exp.Literal.string(json_path(fields))])
        return exp.Case().when(exp.EQ(this=kind, expression=exp.Literal.string("OBJECT")),
                               exp.Literal.number(1))

    json_type_names = {  # noqa: RUF012 (read only)
                       "string": ("VARCHAR",), "number": ("BIGINT", "UBIGINT", "DOUBLE"),
                       "boolean": ("BOOLEAN",), "object": ("OBJECT",), "array": ("ARRAY",),
                       "null": ("NULL",)}

    def json_type(self, column: exp.Expr, fields: tuple[str, ...], layout: Layout) -> exp.Expr:
        return exp.Anonymous(this="json_type", expressions=[
            column, exp.Literal.string(json_path(fields))])

    def family(self, type_name: str) -> Family:
        name = type_name.upper()
        if name.endswith("]"):
            return Family.OTHER  # a list or array (`VARCHAR[]`, `INTEGER[3]`), whatever it holds
        if name == "VARCHAR" or name.startswith(("VARCHAR", "ENUM(")):
            return Family.TEXT
        if name == "BOOLEAN":
            return Family.BOOLEAN
        if _NUMBER.match(name):
            return Family.NUMBER
        if name.startswith(("DATE", "TIME", "TIMESTAMP", "INTERVAL")):
            return Family.TEMPORAL
        return Family.OTHER


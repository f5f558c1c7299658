"""Spark SQL (Apache Spark 4 over Spark Connect, and Databricks, which runs the same SQL).

What differs from the other engines, each measured on Spark 4.3 (research/spark):
- regular expressions are java.util.regex: `$` also matches before a final line break, `.`
  excludes `\\r`, U+0085 and U+2028, and `\\b` follows Unicode letters, so patterns get the
  ICU/PCRE spelling (`\\z`, `[^\\n]`, an ASCII look-around boundary);
- a column may carry a case-insensitive collation (`UTF8_LCASE`) that `=`, `DISTINCT` and
  `RLIKE` obey, so text comparisons, keys and regex subjects force `COLLATE UTF8_BINARY`
  (Spark 4 / Databricks Runtime 16.1; a session on an older server turns it off);
- string literals read backslash escapes (the session pins
  `spark.sql.parser.escapedStringLiterals=false`), `"…"` is a string, `/* */` comments nest;
- a decimal literal with more fractional digits than the column is rounded to the column's
  scale before comparing (`DECIMAL(38,18) 0 = 0.0000000000000000001` is true): members and
  bounds are checked against the column's type first (catalog/holding.py, on every engine).
"""

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
from packata_sql.dialects.fields import bracket_path
from packata_sql.dialects.lexical import DenyList, LexicalRules
from packata_sql.dialects.regex import Flavor

_TEXT = ("string", "varchar", "char")
_NUMBER = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "byte", "short",
           "long", "integer", "real")
_TEMPORAL = ("date", "timestamp", "timestamp_ntz", "timestamp_ltz", "interval")

#: Calls that reach Java, the file system or other sessions from inside one SELECT.
DENY = DenyList(
    functions=frozenset({
        "reflect", "java_method", "try_reflect", "read_files", "input_file_name",
        "input_file_block_start", "input_file_block_length", "read_kafka", "read_pubsub",
        "read_kinesis", "read_pulsar", "read_statestore", "http_request", "ai_query", "secret",
        "try_secret",
    }),
    statements=frozenset({"set", "reset", "add", "use", "refresh", "cache", "uncache", "clear",
                          "create", "insert", "drop", "alter", "msck", "load", "analyze"}),
    phrases=(("insert", "overwrite"), ("insert", "into")),
)


#: Spark SQL's data type names and aliases.
TYPE_NAMES = frozenset({
    "array", "bigint", "binary", "boolean", "byte", "char", "character", "date", "dec",
    "decimal", "double", "float", "int", "integer", "interval", "long", "map", "numeric",
    "real", "short", "smallint", "string", "struct", "timestamp", "timestamp_ltz",
    "timestamp_ntz", "tinyint", "varchar", "variant", "void",
})

#: Every character up to U+FFFF (Java regex syntax).
_NOT_ASTRAL = r"[^\x{10000}-\x{10FFFF}]"


class Spark(Dialect):
    name = "spark"
    sqlglot_name = "databricks"
    type_names = TYPE_NAMES
    type_aliases = {"timestamp_ltz": "timestamp"}  # noqa: RUF012 (read only)
    # spark.sql.caseSensitive=false (pinned by the session): names resolve case-insensitively.
    case_insensitive_names = True
    library_metrics = True
    regex_flavor = Flavor.ICU_PCRE  # java.util.regex: a backtracking matcher
    # `spark.sql(sql, args={name: value})`: the value is bound server-side as data.
    named_parameters = True
    lexical = LexicalRules(
        strings={"'": True, '"': True},
        raw_string_prefixes=frozenset("rR"),
        identifiers={"`": "`"},
        nested_block_comments=True,
    )
    deny = DENY
    #: Whether the server has collations (Spark 4); the session turns it off on older servers.
    collations: bool = True

    def binary_key(self, column: exp.Expr) -> exp.Expr:
        if not self.collations:
            return column
        return exp.paren(exp.Collate(this=column, expression=exp.Var(this="UTF8_BINARY")))

    @property
    def distinct_plan(self) -> DistinctPlan:
        # Several COUNT(DISTINCT) in one aggregate copy every input row once per key (Expand).
        return DistinctPlan.APART

    def character(self, code: int) -> exp.Expr:
        # chr(n) is chr(n % 256): the character's UTF-8 bytes, decoded.
        return exp.Anonymous(this="decode", expressions=[exp.Anonymous(
            this="unhex", expressions=[exp.Literal.string(chr(code).encode("utf-8").hex())]),
            exp.Literal.string("UTF-8")])

    def case_mapping_problem(self, upper: bool) -> str | None:
        if upper:
            return ("UPPER maps 'ß' to 'SS' (Java's full case mapping: about a hundred "
                    "characters become two or three); .NET's invariant mapping keeps 'ß'")
        return None

    def case_kept(self, upper: bool) -> dict[str, str]:
        # LOWER is Java's full mapping: 'Σ' at the end of a word becomes 'ς' and 'İ' becomes
        # 'i̇' (two characters); .NET maps each character alone ('σ', and 'İ' kept).
        return {**super().case_kept(upper), **({} if upper else {"Σ": "σ"})}

    def case_mapped(self, text: exp.Expr) -> exp.Expr:
        return self.binary_key(text)  # under UTF8_LCASE, REPLACE would ignore case

    def utf16_length(self, text: exp.Expr) -> exp.Expr | None:
        astral = exp.func("REGEXP_REPLACE", text.copy(), exp.Literal.string(_NOT_ASTRAL),
                          exp.Literal.string(""))
        return self._astral_plus_characters(text, astral)

    def text_equals(self, column: exp.Expr, text: str) -> exp.Expr:
        return exp.EQ(this=self.binary_key(column), expression=exp.Literal.string(text))

    def regex_search(self, column: exp.Expr, pattern: str) -> exp.Expr:
        # RLIKE / REGEXP_LIKE is Matcher.find(): an unanchored search, as docs/semantics.md 3.3 wants.
        return exp.RegexpLike(this=self.binary_key(column), expression=exp.Literal.string(pattern))

    def epoch_micros(self, newest: exp.Expr, native_type: str | None) -> exp.Expr | None:
        kind = temporal_kind(native_type)
        if kind == "date":
            return exp.Mul(this=call("unix_date", newest), expression=exp.Literal.number(86400000000))
        if kind is None:
            return None
        if self.holds_instants(native_type):
            return call("unix_micros", newest)
        return call("timestampdiff", exp.var("MICROSECOND"),
                    exp.cast(exp.Literal.string("1970-01-01 00:00:00"), data_type("TIMESTAMP_NTZ"),
                             copy=False), newest)

    def holds_instants(self, native_type: str | None) -> bool:
        name = (native_type or "").strip().lower()
        return name.startswith("timestamp") and not name.startswith("timestamp_ntz")

    def temporal_parameter(self, value: exp.Expr, kind: str) -> exp.Expr:
        # TIMESTAMP is Spark's instant; a zone-less bound is a TIMESTAMP_NTZ.
        to = {"instant": "TIMESTAMP", "timestamp": "TIMESTAMP_NTZ", "date": "DATE"}[kind]
        return exp.Cast(this=value, to=data_type(to, "spark"))
    nested_layout = Layout.STRUCT

    def field_layout(self, native_type: str | None) -> Layout | None:
        if native_type is None or native_type.strip().lower().startswith("struct<"):
            return Layout.STRUCT
        return None

    def nested_field(self, column: exp.Expr, fields: tuple[str, ...], layout: Layout,
                     leaf: Family | None) -> exp.Expr:
        return bracket_path(column, fields)

    def nested_object(self, column: exp.Expr, fields: tuple[str, ...],
                      layout: Layout) -> exp.Expr:
        return bracket_path(column, fields)

    def family(self, type_name: str) -> Family:
        name = type_name.strip().lower()
        head = re.split(r"[(<\s]", name, maxsplit=1)[0]
        if head in _TEXT:
            return Family.TEXT
        if head in _NUMBER:
            return Family.NUMBER
        if head == "boolean":
            return Family.BOOLEAN
        if head in _TEMPORAL:
            return Family.TEMPORAL
        return Family.OTHER


class Databricks(Spark):
    """Databricks SQL: the same language. Compiled only; a live session reaches Databricks
    compute through the `spark` engine (Spark Connect)."""

    name = "databricks"

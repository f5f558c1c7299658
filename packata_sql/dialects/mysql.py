"""MySQL and MariaDB in their default SQL mode: backslash escapes, `"` strings, backticks,
`#` and `-- ` comments, executable `/*! */` comments. NO_BACKSLASH_ESCAPES and ANSI_QUOTES
are not supported."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

import sqlglot.expressions as exp

from packata_sql.dialects import Dialect, DistinctPlan, Family, Layout, call, temporal_kind
from packata_sql.dialects.boolean_result import projection_is_boolean
from packata_sql.dialects.fields import json_path
from packata_sql.dialects.lexical import DenyList, LexicalRules
from packata_sql.dialects.regex import Flavor

_BINARY_COLLATION = exp.Var(this="utf8mb4_bin")
#: The collation whose LOWER and UPPER are Unicode's simple case mapping (`case_mapped`).
CASE_COLLATION = "utf8mb4_uca1400_as_cs"
#: Not 0 when the server has it, asked once per run: MariaDB 10.10 and later list the UCA
#: 14.0 collations once for every character set, without its prefix; MySQL has none.
CASE_COLLATION_SQL = ("(SELECT COUNT(*) FROM information_schema.COLLATIONS"
                      " WHERE COLLATION_NAME = 'uca1400_as_cs')")
# pymysql field type codes
_TEXT = {15, 253, 254, 249, 250, 251, 252}
_NUMBER = {0, 246, 1, 2, 3, 8, 9, 4, 5}
_TEMPORAL = {7, 10, 11, 12, 13}
_TINY = 1
_NAMED = {
    Family.NUMBER: {"tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal",
                    "dec", "numeric", "fixed", "float", "double", "real"},
    Family.TEXT: {"char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"},
    Family.TEMPORAL: {"date", "datetime", "timestamp", "time", "year"},
    Family.BOOLEAN: {"bool", "boolean"},
}


def _named_family(type_name: str) -> Family:
    name = type_name.strip().lower()
    if name.startswith("tinyint(1)"):
        return Family.BOOLEAN  # MySQL's BOOLEAN
    base = name.split("(")[0].split()[0] if name else ""
    return next((family for family, names in _NAMED.items() if base in names), Family.OTHER)


_INTEGER = {1, 2, 3, 8, 9}

DENY = DenyList(
    functions=frozenset({
        "sleep", "benchmark", "get_lock", "release_lock", "release_all_locks",
        "master_pos_wait", "master_gtid_wait", "source_pos_wait", "wait_for_executed_gtid_set",
        "wait_until_sql_thread_after_gtids", "load_file", "sys_exec", "sys_eval", "sys_get",
        "sys_set", "nextval", "setval",
        # optimizer hints (`/*+ … */`) that change the statement's limits
        "set_var", "max_execution_time",
    }),
    statements=frozenset({"shutdown", "flush", "lock", "prepare", "execute", "handler"}),
    # KILL is reserved, so it is a statement wherever it stands (also after SET STATEMENT … FOR).
    phrases=(("kill",), ("next", "value", "for"), ("into", "outfile"), ("into", "dumpfile"),
             ("load", "data"), ("load", "xml"), ("execute", "immediate"), ("for", "update"),
             ("lock", "in", "share", "mode")),
)


#: The data type names MariaDB and MySQL accept in a column definition.
TYPE_NAMES = frozenset({
    "bigint", "binary", "bit", "blob", "bool", "boolean", "char", "character", "date",
    "datetime", "dec", "decimal", "double", "double precision", "enum", "fixed", "float",
    "float4", "float8", "geometry", "geometrycollection", "int", "int1", "int2", "int3",
    "int4", "int8", "integer", "json", "linestring", "long", "long varchar", "longblob",
    "longtext", "mediumblob", "mediumint", "mediumtext", "middleint", "multilinestring",
    "multipoint", "multipolygon", "national char", "national varchar", "nchar", "numeric",
    "nvarchar", "point", "polygon", "real", "set", "smallint", "text", "time", "timestamp",
    "tinyblob", "tinyint", "tinytext", "varbinary", "varchar", "year",
})

#: Every character up to U+FFFF (PCRE and ICU syntax).
_NOT_ASTRAL = r"[^\x{10000}-\x{10FFFF}]"


class MySQL(Dialect):
    name = "mysql"
    sqlglot_name = "mysql"
    type_names = TYPE_NAMES
    type_modifiers = frozenset({"unsigned", "signed", "zerofill"})
    # BOOLEAN is TINYINT(1); REAL is DOUBLE (unless sql_mode REAL_AS_FLOAT); MariaDB's JSON
    # is LONGTEXT (MySQL's catalog says json, which matches as spelt).
    type_aliases = {  # noqa: RUF012 (read only)
        "bool": "tinyint(1)", "boolean": "tinyint(1)", "int3": "mediumint", "int8": "bigint",
        "middleint": "mediumint", "json": "longtext", "long": "mediumtext",
        "long varchar": "mediumtext", "national char": "char", "nchar": "char",
        "national varchar": "varchar", "nvarchar": "varchar", "real": "double",
    }
    identifier_limit = 64  # characters
    case_insensitive_names = True
    library_metrics = True
    regex_flavor = Flavor.ICU_PCRE
    lexical = LexicalRules(
        strings={"'": True, '"': True},
        identifiers={"`": "`"},
        hash_comments=True,
        dash_comment_needs_space=True,
        executable_comments=True,
    )
    deny = DENY
    parameter_marker = "%s"
    time_fraction_digits = 0  # DATETIME, TIMESTAMP and TIME without (n)
    percent_escapes = True
    #: Whether the server has CASE_COLLATION; a session sets it from what the server says,
    #: rendering without a server (`compile`) assumes it.
    case_collation = True

    def character(self, code: int) -> exp.Expr:
        # CHAR(n) reads bytes: the character's UTF-8 bytes, as utf8mb4.
        return exp.var(f"CONVERT(X'{chr(code).encode('utf-8').hex().upper()}' USING utf8mb4)")

    def case_mapping_problem(self, upper: bool) -> str | None:
        if self.case_collation:
            return None
        return (f"the server has no {CASE_COLLATION} collation (MariaDB 10.10 and later), and "
                "LOWER and UPPER under the others map case by older Unicode tables (no 'ẞ', "
                "nothing beyond U+FFFF)")

    def case_mapped(self, text: exp.Expr) -> exp.Expr:
        # LOWER and UPPER follow the collation: utf8mb4_general_ci (the default) and
        # utf8mb4_unicode_ci map by Unicode 4 tables and leave characters beyond U+FFFF alone;
        # the UCA 14.0 collations map as Unicode's simple mapping does (every code point
        # measured equal to glibc's C.utf8). CONVERT first: a latin1 column has no such
        # collation.
        return exp.Collate(this=exp.Anonymous(this="CONVERT", expressions=[exp.var(
            f"{self.render(text)} USING utf8mb4")]), expression=exp.var(CASE_COLLATION))

    def trim_set_problem(self) -> str | None:
        return ("TRIM removes one string, not a set of characters: tabs, new lines and "
                "Unicode spaces would stay")

    def instant(self, moment: datetime) -> object:
        """DATETIME holds no zone: the UTC wall time (the driver writes an aware value's
        offset into the literal, which MariaDB rejects or reads in the session's zone)."""
        return moment.astimezone(UTC).replace(tzinfo=None)

    def utf16_length(self, text: exp.Expr) -> exp.Expr | None:
        # MariaDB's REGEXP_REPLACE is PCRE in UTF-8 mode (MySQL 8's is ICU): both read \x{…}.
        astral = exp.func("REGEXP_REPLACE", text.copy(), exp.Literal.string(_NOT_ASTRAL),
                          exp.Literal.string(""))
        return self._astral_plus_characters(text, astral)

    def text_equals(self, column: exp.Expr, text: str) -> exp.Expr:
        # utf8mb4_bin is PAD SPACE on some servers: the length check keeps trailing spaces exact.
        # The introducer makes the literal utf8mb4 whatever the connection's character set;
        # the column (latin1, utf8mb3, …) is converted to it for the comparison.
        literal = exp.Introducer(this="_utf8mb4", expression=exp.Literal.string(text))
        same = exp.EQ(this=column, expression=exp.Collate(
            this=literal, expression=_BINARY_COLLATION.copy()
        ))
        length = exp.EQ(this=exp.func("CHAR_LENGTH", column.copy()),
                        expression=exp.Literal.number(len(text)))
        return exp.and_(same, length)

    def binary_key(self, column: exp.Expr) -> exp.Expr:
        # Bytes compare without padding on every server and character set ('a', 'A', 'á' and
        # 'a ' stay four keys). Inside COUNT(DISTINCT) the cast costs what COLLATE
        # utf8mb4_nopad_bin costs (1M rows: 1.03×, benchmarks/README.md), and that collation
        # is MariaDB's only (MySQL 8: utf8mb4_0900_bin; 5.7: none) and refused on latin1 and
        # utf8mb3 columns; utf8mb4_bin is PAD SPACE on both.
        return exp.Cast(this=column, to=exp.DataType.build("BINARY"))

    @property
    def distinct_plan(self) -> DistinctPlan:
        # A SELECT DISTINCT subquery is materialised, on disk once it outgrows tmp_table_size:
        # 1M rows, 28.8 s against the floor's 6.0 s; in the aggregate 1.10× (benchmarks/README.md).
        return DistinctPlan.IN_AGGREGATE

    def char_length(self, column: exp.Expr) -> exp.Expr:
        # CHAR_LENGTH counts characters; PAD SPACE collations pad comparisons, not lengths.
        return exp.Anonymous(this="CHAR_LENGTH", expressions=[column])

    def regex_search(self, column: exp.Expr, pattern: str) -> exp.Expr:
        # sqlglot writes REGEXP_LIKE, which MariaDB lacks; REGEXP works on both. CONVERT first:
        # COLLATE utf8mb4_bin is invalid on a latin1 column.
        subject = f"CONVERT({self.render(column)} USING utf8mb4) COLLATE utf8mb4_bin"
        return exp.paren(exp.Var(this=f"{subject} REGEXP {self.render(exp.Literal.string(pattern))}"))

    def objects_sql(self) -> str:
        return ("SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = COALESCE(%s, DATABASE()) ORDER BY 1")

    def epoch_micros(self, newest: exp.Expr, native_type: str | None) -> exp.Expr | None:
        if temporal_kind(native_type) is None:
            return None
        if self.holds_instants(native_type):  # the stored UTC instant, whatever time_zone
            return exp.cast(exp.Mul(this=call("UNIX_TIMESTAMP", newest),
                                    expression=exp.Literal.number(1000000)), "BIGINT")
        return call("TIMESTAMPDIFF", exp.var("MICROSECOND"),
                    exp.Literal.string("1970-01-01 00:00:00"), newest)

    def instant_literal(self, instant: datetime) -> exp.Expr:
        """FROM_UNIXTIME reads epoch seconds in the session's time_zone, as a TIMESTAMP column
        shows its cells: both are the same instant whatever time_zone is (MariaDB reads no
        offset in a literal)."""
        return call("FROM_UNIXTIME", exp.Literal.number(str(self.bound_instant(instant))))

    def holds_instants(self, native_type: str | None) -> bool:
        return (native_type or "").strip().lower().startswith("timestamp")

    def bound_instant(self, instant: datetime) -> object:
        """Epoch seconds as exact text: FROM_UNIXTIME reads them as the instant, in the
        session's time_zone as a TIMESTAMP column shows its cells (see `instant_literal`)."""
        from packata_sql.values import format_value

        since = instant - datetime(1970, 1, 1, tzinfo=UTC)
        micros = (since.days * 86400 + since.seconds) * 1_000_000 + since.microseconds
        return format_value(Fraction(micros, 1_000_000))

    def temporal_parameter(self, value: exp.Expr, kind: str) -> exp.Expr:
        if kind == "instant":
            return call("FROM_UNIXTIME", exp.Cast(this=value,
                                                  to=exp.DataType.build("DECIMAL(20, 6)")))
        # DATETIME(6): a bound's microseconds are kept (a bare DATETIME drops them).
        return exp.Cast(this=value, to=exp.DataType.build(
            "DATETIME(6)" if kind == "timestamp" else "DATE", dialect="mysql"))
    nested_layout = Layout.JSON

    def field_layout(self, native_type: str | None) -> Layout | None:
        if native_type is None or native_type.lower() == "json" \
                or self.family(native_type) is Family.TEXT:
            return Layout.JSON  # MariaDB's JSON is LONGTEXT: any text column may hold JSON
        return None

    def nested_field(self, column: exp.Expr, fields: tuple[str, ...], layout: Layout,
                     leaf: Family | None) -> exp.Expr:
        path = exp.Literal.string(json_path(fields))
        text = exp.Anonymous(this="JSON_VALUE", expressions=[column, path])
        if leaf not in (Family.NUMBER, Family.BOOLEAN, Family.OTHER):
            return text  # any other leaf compares as its text (a JSON string unquoted)
        kind = _json_type(column.copy(), path.copy())
        if leaf is Family.OTHER:  # an object or array: JSON_VALUE reads scalars only
            document = exp.Anonymous(this="JSON_EXTRACT", expressions=[column.copy(),
                                                                       path.copy()])
            return exp.Case().when(exp.NEQ(this=kind, expression=exp.Literal.string("NULL")),
                                   document)
        if leaf is Family.NUMBER:
            json_types: tuple[str, ...] = ("INTEGER", "UNSIGNED INTEGER", "DOUBLE", "DECIMAL")
            value: exp.Expr = exp.Cast(this=text, to=exp.DataType.build("DECIMAL(65, 30)"))
        else:  # MariaDB's JSON_VALUE reads true as '1', MySQL's as 'true'
            json_types = ("BOOLEAN",)
            value = exp.In(this=text, expressions=[exp.Literal.string("1"),
                                                   exp.Literal.string("true")])
        return exp.Case().when(exp.In(this=kind, expressions=[
            exp.Literal.string(t) for t in json_types]), value)

    def nested_object(self, column: exp.Expr, fields: tuple[str, ...],
                      layout: Layout) -> exp.Expr:
        kind = _json_type(column, exp.Literal.string(json_path(fields)))
        return exp.Case().when(exp.EQ(this=kind, expression=exp.Literal.string("OBJECT")),
                               exp.Literal.number(1))

    json_type_names = {"string": ("STRING",),  # noqa: RUF012 (read only)
                       "number": ("INTEGER", "UNSIGNED INTEGER", "DOUBLE", "DECIMAL"),
                       "boolean": ("BOOLEAN",), "object": ("OBJECT",), "array": ("ARRAY",),
                       "null": ("NULL",)}

    def json_type(self, column: exp.Expr, fields: tuple[str, ...], layout: Layout) -> exp.Expr:
        return _json_type(column, exp.Literal.string(json_path(fields)))

    def family(self, type_name: str) -> Family:
        """From a result column (pymysql's `code:size`) or a catalog type (`int(11) unsigned`)."""
        code, _, size = type_name.partition(":")
        if not code.isdigit():
            return _named_family(type_name)
        number = int(code)
        if number == _TINY and size == "1":
            return Family.BOOLEAN
        if number in _TEXT:
            return Family.TEXT
        if number in _NUMBER:
            return Family.NUMBER
        if number in _TEMPORAL:
            return Family.TEMPORAL
        return Family.OTHER

    def boolean_valued(self, sql: str, column_type: str) -> bool:
        # MariaDB 10.11 reports comparisons, NOT, AND/OR, EXISTS, IS, LIKE and IN as LONG of
        # display width 1, MySQL 8 as LONGLONG of width 1, a BOOLEAN column as TINY(1); COUNT
        # and SUM are wider. A one-digit literal looks the same, so the text may veto.
        code, _, size = column_type.partition(":")
        if not code.isdigit() or int(code) not in _INTEGER or size != "1":
            return False
        return projection_is_boolean(sql, self.sqlglot_name) is not False


def _json_type(column: exp.Expr, path: exp.Expr) -> exp.Expr:
    """`JSON_TYPE(JSON_EXTRACT(col, path))`: OBJECT, ARRAY, STRING, INTEGER, … (NULL where
    the path is absent)."""
    found = exp.Anonymous(this="JSON_EXTRACT", expressions=[column, path])
    return exp.Anonymous(this="JSON_TYPE", expressions=[found])

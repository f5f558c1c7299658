"""PostgreSQL: standard strings, E'' escapes, dollar quotes, nested comments, `~` regex."""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError

from packata_sql.dialects import Dialect, Family, Layout, data_type, temporal_kind
from packata_sql.dialects.facts import type_base
from packata_sql.dialects.lexical import POSTGRES_FAMILY, DenyList
from packata_sql.dialects.regex import Flavor, skeleton

_UNSUPPORTED = re.compile(r"\(\?>|[*+?}]\+")
_TEXT = {"text", "varchar", "bpchar", "char", "name", "citext", "enum"}
_NUMBER = {"int2", "int4", "int8", "numeric", "float4", "float8", "oid", "money"}
_TEMPORAL = {"date", "time", "timetz", "timestamp", "timestamptz", "interval"}

DENY = DenyList(
    functions=frozenset({
        # other sessions
        "pg_terminate_backend", "pg_cancel_backend", "pg_log_backend_memory_contexts",
        # locks, settings, notifications, statistics
        "pg_advisory_*", "pg_try_advisory_*", "set_config", "pg_notify", "pg_reload_conf",
        "pg_rotate_logfile", "pg_stat_reset*", "pg_stat_statements_reset",
        # sequences and large objects
        "nextval", "setval", "lo_*", "loread", "lowrite",
        # WAL, replication slots and origins, backups
        "pg_logical_emit_message", "pg_logical_slot_*", "pg_create_*", "pg_drop_replication_slot",
        "pg_copy_*", "pg_replication_*", "pg_switch_wal", "pg_backup_*", "pg_start_backup",
        "pg_stop_backup", "pg_promote", "pg_wal_replay_*",
        # time
        "pg_sleep*",
        # server files (core and adminpack)
        "pg_read_file", "pg_read_binary_file", "pg_ls_*", "pg_stat_file", "pg_file_*",
        "pg_logdir_ls",
        # other servers
        "dblink*", "postgres_fdw_*",
        # SQL text run from a string, where the lexer cannot see it
        "query_to_xml*", "ts_stat", "ts_rewrite",
    }),
    statements=frozenset({"notify", "load", "copy", "lock"}),
    phrases=(("for", "update"), ("for", "no", "key", "update"), ("for", "share"),
             ("for", "key", "share")),
)


#: PostgreSQL's built-in type names and the SQL-standard spellings its grammar reads; a
#: user-defined type (an enum, a domain, citext) matches only as the catalog spells it.
TYPE_NAMES = frozenset({
    "bigint", "bit", "bit varying", "bool", "boolean", "box", "bpchar", "bytea", "char",
    "character", "character varying", "cidr", "circle", "date", "daterange", "dec", "decimal",
    "double precision", "float", "float4", "float8", "inet", "int", "int2", "int4",
    "int4range", "int8", "int8range", "integer", "interval", "json", "jsonb", "jsonpath",
    "line", "lseg", "macaddr", "macaddr8", "money", "name", "numeric", "numrange", "oid",
    "path", "pg_lsn", "point", "polygon", "real", "smallint", "text", "time",
    "time with time zone", "time without time zone", "timestamp", "timestamp with time zone",
    "timestamp without time zone", "timestamptz", "timetz", "tsquery", "tsrange", "tstzrange",
    "tsvector", "uuid", "varbit", "varchar", "xml",
})

#: glibc's collation with Unicode's simple case mapping (`Postgres.case_mapped`).
CASE_COLLATION = "C.utf8"
#: Whether the current database can use it: a database encoded in UTF8 where the collation
#: exists for that encoding (pg_collation lists it only where `initdb` found the locale).
CASE_COLLATION_SQL = (
    "pg_catalog.getdatabaseencoding() = 'UTF8' AND EXISTS (SELECT 1 FROM"
    " pg_catalog.pg_collation WHERE collname = '" + CASE_COLLATION + "'"
    " AND collnamespace = 'pg_catalog'::pg_catalog.regnamespace"
    " AND collencoding IN (-1, pg_catalog.pg_char_to_encoding('UTF8')))")

#: Every character up to U+FFFF, in PostgreSQL's ARE syntax.
_NOT_ASTRAL = r"[^\U00010000-\U0010FFFF]"


class Postgres(Dialect):
    name = "postgres"
    sqlglot_name = "postgres"
    type_names = TYPE_NAMES
    type_aliases = {"float": "double precision", "varbit": "bit varying"}  # noqa: RUF012
    library_metrics = True
    unquoted_case = "lower"
    regex_backtracks = False  # Spencer's hybrid DFA/NFA engine: no exponential backtracking
    lexical = POSTGRES_FAMILY
    deny = DENY
    regex_flavor = Flavor.POSTGRES
    parameter_marker = "%s"
    # psycopg runs statements through the extended protocol only when parameters are passed,
    # so the session always passes a list and `%` is always written `%%`.
    percent_escapes = True
    always_parameters = True
    identifier_limit = 63  # NAMEDATALEN - 1, in bytes
    identifier_limit_in_bytes = True
    #: Whether the database can name glibc's "C.utf8" collation (`case_mapped`): it exists
    #: only where `initdb` found a C.UTF-8 locale, and only for a database encoded in UTF8.
    #: A session sets it from what the server says (CASE_COLLATION_SQL); rendering without
    #: a server (`compile`) assumes it.
    case_collation = True

    def __init__(self) -> None:
        #: Each composite type a session's column facts met (by its format_type name) as the
        #: STRUCT of its attributes (`composite_struct`); rendering without a server has none.
        self.composites: dict[str, exp.DataType] = {}

    def catalog_struct(self, native_type: str) -> exp.DataType | None:
        return self.composites.get(native_type)

    def read_composite(self, native_type: str,
                       attributes: Sequence[tuple[Sequence[str], str, str]]) -> None:
        """Records the composite type `native_type` as the STRUCT its attributes make, from
        the catalog's (path, format_type, family type name) rows in attribute order, a nested
        composite's attributes after its own row (path: attribute names from the outermost).
        A type sqlglot does not read (an enum, a domain, citext) is kept by name, of the
        family its catalog type name maps to (`family`), as a column of that type is."""
        children: dict[tuple[str, ...], list[tuple[str, str, str]]] = {}
        for path, native, type_name in attributes:
            children.setdefault(tuple(path[:-1]), []).append((path[-1], native, type_name))

        def struct(prefix: tuple[str, ...]) -> exp.DataType:
            members = []
            for name, native, type_name in children.get(prefix, []):
                inner = (*prefix, name)
                kind = struct(inner) if inner in children else self._leaf_type(native, type_name)
                members.append(exp.ColumnDef(this=exp.to_identifier(name, quoted=True),
                                             kind=kind))
            return exp.DataType(this=exp.DataType.Type.STRUCT, expressions=members, nested=True)

        self.composites[native_type] = struct(())

    def _leaf_type(self, native: str, type_name: str) -> exp.DataType:
        try:
            return data_type(native, "postgres")
        except (SqlglotError, ValueError):
            kind = data_type(native, udt=True)
            kind.meta["family"] = self.family(type_name)  # fields.struct_field reads it
            return kind

    def utf16_length(self, text: exp.Expr) -> exp.Expr | None:
        # sqlglot writes the global flag ('g') for PostgreSQL itself.
        astral = exp.RegexpReplace(this=text.copy(), expression=exp.Literal.string(_NOT_ASTRAL),
                                   replacement=exp.Literal.string(""))
        return self._astral_plus_characters(text, astral)

    def text_equals(self, column: exp.Expr, text: str) -> exp.Expr:
        return exp.EQ(this=self.binary_key(column), expression=exp.Literal.string(text))

    def case_mapping_problem(self, upper: bool) -> str | None:
        if self.case_collation:
            return None
        return (f'the database has no "{CASE_COLLATION}" collation for its encoding (one that '
                "is not UTF8, or a server initialised without a C.UTF-8 locale), and under "
                "any other collation LOWER and UPPER map ASCII letters only or map in full "
                "(ß to SS), not Unicode's simple mapping as .NET does")

    def case_mapped(self, text: exp.Expr) -> exp.Expr:
        # UPPER/LOWER follow the input's collation: the database's LC_CTYPE by default, and
        # under "C" or POSIX they map ASCII letters only ('É' stays 'É'); ICU collations map
        # in full ('ß' to 'SS'). glibc's "C.utf8" is Unicode's simple mapping, .NET's.
        as_text = exp.Cast(this=text, to=data_type("TEXT"))
        return exp.Collate(this=as_text, expression=exp.Identifier(this=CASE_COLLATION,
                                                                   quoted=True))

    def binary_key(self, column: exp.Expr) -> exp.Expr:
        # "C" compares bytes, whatever the column's (possibly nondeterministic) collation; the
        # cast to text first, because citext's own operators ignore case under any collation.
        as_text = exp.Cast(this=column, to=data_type("TEXT"))
        return exp.Collate(this=as_text, expression=exp.Identifier(this="C", quoted=True))

    def char_length(self, column: exp.Expr) -> exp.Expr:
        return exp.Anonymous(this="CHAR_LENGTH", expressions=[column])

    def regex_search(self, column: exp.Expr, pattern: str) -> exp.Expr:
        return exp.RegexpLike(this=self.binary_key(column), expression=exp.Literal.string(pattern))

    def pattern_problem(self, pattern: str) -> str | None:
        if _UNSUPPORTED.search(skeleton(pattern)):
            return "PostgreSQL regular expressions have no atomic groups or possessive quantifiers"
        return None

    def epoch_micros(self, newest: exp.Expr, native_type: str | None) -> exp.Expr | None:
        if temporal_kind(native_type) is None:
            return None
        # EXTRACT(EPOCH) is exact numeric (PostgreSQL 14+) and reads a timestamp without
        # zone as its wall clock, whatever the session's TimeZone.
        seconds = exp.Extract(this=exp.var("EPOCH"), expression=newest)
        return exp.cast(exp.Mul(this=exp.paren(seconds), expression=exp.Literal.number(1000000)),
                        data_type("BIGINT"))

    def holds_instants(self, native_type: str | None) -> bool:
        name = (native_type or "").lower()
        return "with time zone" in name or name.startswith("timestamptz")
    nested_layout = Layout.JSON

    def field_layout(self, native_type: str | None) -> Layout | None:
        if native_type is None or native_type == "jsonb":
            return Layout.JSON
        if native_type == "json":
            return Layout.JSON_TEXT
        if native_type.endswith("]") or type_base(native_type, self) in TYPE_NAMES:
            return None  # an array or a scalar built-in type
        return Layout.STRUCT  # a user-defined type: read as a composite type's attributes

    def nested_field(self, column: exp.Expr, fields: tuple[str, ...], layout: Layout,
                     leaf: Family | None) -> exp.Expr:
        if layout is Layout.STRUCT:
            return _attributes(column, fields)
        prefix = "json" if layout is Layout.JSON_TEXT else "jsonb"
        keys = [exp.Literal.string(name) for name in fields]
        text = exp.Anonymous(this=f"{prefix}_extract_path_text", expressions=[column, *keys])
        typed = {Family.NUMBER: ("number", "NUMERIC"), Family.BOOLEAN: ("boolean", "BOOLEAN")}
        if leaf not in typed:
            return text  # any other leaf compares as its text (a JSON string unquoted)
        json_type, sql_type = typed[leaf]
        value = exp.Anonymous(this=f"{prefix}_extract_path", expressions=[column.copy(), *keys])
        is_typed = exp.EQ(this=exp.Anonymous(this=f"{prefix}_typeof", expressions=[value]),
                          expression=exp.Literal.string(json_type))
        return exp.Case().when(is_typed, exp.Cast(this=text, to=data_type(sql_type)))

    def nested_object(self, column: exp.Expr, fields: tuple[str, ...],
                      layout: Layout) -> exp.Expr:
        if layout is Layout.STRUCT:
            return _attributes(column, fields) if fields else column
        prefix = "json" if layout is Layout.JSON_TEXT else "jsonb"
        value = exp.Anonymous(this=f"{prefix}_extract_path", expressions=[
            column, *(exp.Literal.string(name) for name in fields)]) if fields else column
        is_object = exp.EQ(this=exp.Anonymous(this=f"{prefix}_typeof", expressions=[value]),
                           expression=exp.Literal.string("object"))
        return exp.Case().when(is_object, exp.Literal.number(1))

    json_type_names = {kind: (kind,) for kind in  # noqa: RUF012 (read only)
                       ("string", "number", "boolean", "object", "array", "null")}

    def json_type(self, column: exp.Expr, fields: tuple[str, ...], layout: Layout) -> exp.Expr:
        prefix = "json" if layout is Layout.JSON_TEXT else "jsonb"
        value = exp.Anonymous(this=f"{prefix}_extract_path", expressions=[
            column, *(exp.Literal.string(name) for name in fields)])
        return exp.Anonymous(this=f"{prefix}_typeof", expressions=[value])

    def family(self, type_name: str) -> Family:
        name = type_name.lower()
        if name in _TEXT:
            return Family.TEXT
        if name in _NUMBER:
            return Family.NUMBER
        if name == "bool":
            return Family.BOOLEAN
        if name in _TEMPORAL:
            return Family.TEMPORAL
        return Family.OTHER


def _attributes(column: exp.Expr, fields: tuple[str, ...]) -> exp.Expr:
    """`("col")."a"."b"`: a composite type's attributes, each name quoted on its own."""
    found: exp.Expr = exp.paren(column, copy=False)
    for name in fields:
        found = exp.Dot(this=found, expression=exp.Identifier(this=name, quoted=True))
    return found

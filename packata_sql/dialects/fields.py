"""Nested properties: a field inside a structured column, as SQL and as the catalog types it.

`field_reference` is the one way a nested property's path becomes an expression on every
engine (library metrics, constraints and value rules all use it); each engine's spelling is
its dialect's `nested_field`. Every path segment is its own quoted identifier or string
literal, so a field name never reaches SQL or a JSON path as code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError

from packata_sql.dialects import Dialect, Family, Layout, data_type

_DT = exp.DataType
#: A leaf type's family, from the sqlglot type a struct field declares.
_TYPE_FAMILIES = (
    (_DT.TEXT_TYPES | {_DT.Type.UUID}, Family.TEXT),
    (_DT.NUMERIC_TYPES, Family.NUMBER),
    ({_DT.Type.BOOLEAN}, Family.BOOLEAN),
    (_DT.TEMPORAL_TYPES, Family.TEMPORAL),
)


def field_reference(dialect: Dialect, column: str, fields: Sequence[str], *,
                    layout: Layout | None = None, leaf: Family | None = None) -> exp.Expr:
    """The value of the field `fields` (outermost first, physical names) of the top-level
    column `column`: `"customer"['address']['city']` on DuckDB, `jsonb_extract_path_text(
    "customer", 'address', 'city')` on PostgreSQL. `layout`: how the column holds fields (the
    dialect's default when not read from a catalog); `leaf`: the family a JSON leaf is read
    as. Raises ValueError where the engine has no structured columns."""
    chosen = layout or dialect.nested_layout
    if chosen is None:
        raise ValueError(f"{dialect.name} has no structured columns packata-sql reads")
    return dialect.nested_field(dialect.column(column), tuple(fields), chosen, leaf)


def bracket_path(column: exp.Expr, fields: Sequence[str]) -> exp.Expr:
    """`column['a']['b']`: DuckDB and Spark read a struct field by a string key, which no
    table or alias of the same name can capture (as `customer.address` could)."""
    found = column
    for name in fields:
        found = exp.Bracket(this=found, expressions=[exp.Literal.string(name)])
    return found


def json_path(fields: Sequence[str], *, escapes: bool = True) -> str:
    """`$."a b"."c"`: each key in double quotes (MariaDB and SQLite read `$."…"`), with `\\`
    and `"` escaped where the engine reads escapes (SQLite reads none: its dialect refuses a
    name with `"`); the whole path becomes one string literal."""
    def quoted(name: str) -> str:
        if escapes:
            name = name.replace("\\", "\\\\").replace('"', '\\"')
        return f'."{name}"'

    return "$" + "".join(quoted(name) for name in fields)


@dataclass(frozen=True)
class FieldType:
    """What a struct column's catalog type says of one nested field."""

    found: bool
    family: Family | None = None  # None: found, of a type packata-sql does not compare
    #: The names next to the first missing segment, for a did-you-mean hint.
    siblings: tuple[str, ...] = ()
    missing: str = ""
    #: The field's own type as the engine spells it (`TIMESTAMPTZ`), where found.
    native: str | None = None


def struct_field(native_type: str, fields: Sequence[str], dialect: Dialect) -> FieldType | None:
    """Where the catalog's struct type holds the field; None when the type is no struct it
    spells out or cannot be read (then the engine itself reports a missing field). Names
    match as the engine binds them: exactly, else case-insensitively where quoted names
    match so (DuckDB and Spark; a PostgreSQL composite's `("c")."Name"` is exact)."""
    kind = dialect.catalog_struct(native_type)
    if kind is None:
        try:
            kind = data_type(native_type, dialect.sqlglot_name)
        except (SqlglotError, ValueError):
            return None
    if kind.this != _DT.Type.STRUCT:
        return None  # not a struct the catalog spells out
    for name in fields:
        if kind.this != _DT.Type.STRUCT:
            return FieldType(False, missing=name)
        members = {str(d.name): d.args.get("kind") for d in kind.expressions
                   if isinstance(d, exp.ColumnDef)}
        match = name if name in members or not dialect.case_insensitive_names else next(
            (m for m in members if m.casefold() == name.casefold()), None)
        found = members.get(match) if match is not None else None
        if not isinstance(found, exp.DataType):
            return FieldType(False, siblings=tuple(members), missing=name)
        kind = found
    family = kind.meta.get("family")  # a type the catalog maps (Dialect.catalog_struct)
    if not isinstance(family, Family):
        family = next((f for types, f in _TYPE_FAMILIES if kind.this in types), Family.OTHER)
    return FieldType(True, family, native=kind.sql(dialect=dialect.sqlglot_name or None))

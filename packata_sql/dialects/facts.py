"""What the engine's catalog says about an object's columns, and the questions a schema asks
of it without reading rows: is a declared column present, is its type compatible with the
declared logicalType, is it the declared physicalType."""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError

from packata_sql.dialects import Dialect, Family, data_type

_DT = exp.DataType.Type
#: Integer widths, narrowest first, for "integer widened" (signed and unsigned alike).
_INTEGER_ORDER = (
    (_DT.TINYINT, _DT.UTINYINT), (_DT.SMALLINT, _DT.USMALLINT),
    (_DT.MEDIUMINT, _DT.UMEDIUMINT), (_DT.INT, _DT.UINT), (_DT.BIGINT, _DT.UBIGINT),
    (_DT.INT128, _DT.UINT128, _DT.INT256, _DT.UINT256),
)
_TIMES = {_DT.TIME, _DT.TIMETZ}
_DATES = {_DT.DATE, _DT.DATE32}
_LISTS = {_DT.ARRAY, _DT.LIST}
_RECORDS = {_DT.STRUCT, _DT.OBJECT}
#: Types no single ODCS logicalType describes, and why (for a starter contract's comment).
_UNTYPED = {
    _DT.JSON: "JSON holds any JSON value (object, array or scalar)",
    _DT.JSONB: "JSON holds any JSON value (object, array or scalar)",
    _DT.MAP: "a map has no fixed properties (ODCS 3.2 adds logicalType map)",
    _DT.INTERVAL: "an interval is a duration, not a point in time",
    _DT.YEAR: "a year is neither a date nor an integer column",
}


@dataclass(frozen=True)
class ColumnFact:
    """One column as the engine's catalog describes it (no data)."""

    name: str
    position: int  # 1-based, in the object's column order
    native_type: str
    family: Family
    nullable: bool | None  # None when the catalog does not say
    #: 1-based position in the object's primary key; None when not part of it (or not known).
    key_position: int | None = None


def parsed_type(native: str, dialect: Dialect) -> exp.DataType | None:
    """The engine's type name read by sqlglot, so aliases compare equal (int4 = integer)."""
    try:
        return data_type(native, dialect.sqlglot_name)
    except (SqlglotError, ValueError):
        return None


def integer_rank(native: str, dialect: Dialect) -> int | None:
    """Position of an integer type in `_INTEGER_ORDER`; None for anything else."""
    parsed = parsed_type(native, dialect)
    if parsed is None or parsed.this is None:
        return None
    return next((rank for rank, kinds in enumerate(_INTEGER_ORDER) if parsed.this in kinds), None)


def logical_compatible(logical_type: str, fact: ColumnFact, dialect: Dialect) -> bool | None:
    """Whether the column can hold the declared logicalType; None for a logicalType packata-sql
    does not know."""
    wanted = logical_type.strip().lower()
    family = fact.family
    if family is Family.DYNAMIC:
        return True  # any cell may hold any type
    if dialect.dynamic_typing and family in (Family.NUMBER, Family.TEXT) and (
        (wanted == "boolean" and family is Family.NUMBER) or wanted in ("date", "timestamp", "time")
    ):
        return True  # SQLite keeps booleans as integers and dates as text or numbers
    if wanted == "string":
        return family is Family.TEXT
    if wanted == "integer":
        return family is Family.NUMBER and integer_rank(fact.native_type, dialect) is not None
    if wanted == "number":
        return family is Family.NUMBER
    if wanted == "boolean":
        return family is Family.BOOLEAN
    if wanted in ("date", "timestamp", "time"):
        if family is not Family.TEMPORAL:
            return False
        parsed = parsed_type(fact.native_type, dialect)
        kind = parsed.this if parsed is not None else None
        if wanted == "time":
            return kind in _TIMES
        return kind not in _TIMES and (wanted == "timestamp" or kind in _DATES or kind is None)
    if wanted in ("object", "array"):
        return family is Family.OTHER
    return None


def declared_family(native: str, dialect: Dialect) -> Family:
    """The family of a type as written in DDL or a dbt manifest, where no catalog answers:
    the engine's own reading of the name where it has one (MySQL's `tinyint(1)` is a boolean,
    SQLite's affinities), else sqlglot's type groups."""
    named = dialect.type_family(native)
    if named is not Family.OTHER:
        return named
    parsed = parsed_type(native, dialect)
    kind = parsed.this if parsed is not None else None
    if kind in exp.DataType.TEXT_TYPES or kind is _DT.ENUM:
        return Family.TEXT
    if kind is _DT.BOOLEAN:
        return Family.BOOLEAN
    if kind in exp.DataType.NUMERIC_TYPES:
        return Family.NUMBER
    if kind in exp.DataType.TEMPORAL_TYPES or kind is _DT.INTERVAL:
        return Family.TEMPORAL
    return Family.OTHER


def logical_type_of(fact: ColumnFact, dialect: Dialect) -> tuple[str | None, str]:
    """The ODCS logicalType that describes the column, such that `logical_compatible` holds
    for it; or None, and why no logicalType fits."""
    parsed = parsed_type(fact.native_type, dialect) if fact.native_type.strip() else None
    kind = parsed.this if parsed is not None else None
    if kind in _UNTYPED:
        return None, _UNTYPED[kind]
    family = fact.family
    if family is Family.DYNAMIC:
        return None, "no declared type: any cell may hold any type"
    if family is Family.TEXT:
        return "string", ""
    if family is Family.BOOLEAN:
        return "boolean", ""
    if family is Family.NUMBER:
        integral = integer_rank(fact.native_type, dialect) is not None
        return ("integer" if integral else "number"), ""
    if family is Family.TEMPORAL:
        if kind in _TIMES:
            return "time", ""
        if kind in _DATES:
            return "date", ""
        return ("timestamp", "") if kind is not None else (None, "an unknown temporal type")
    if kind in _LISTS:
        return "array", ""
    if kind in _RECORDS:
        return "object", ""
    return None, f"no ODCS logicalType describes {fact.native_type}"


def physical_matches(declared: str, fact: ColumnFact, dialect: Dialect) -> bool:
    """Same type once both spellings are read the engine's way. A name written without
    parameters (`decimal`, `varchar`, `datetime`) matches the type with any parameters; written
    parameters must match; a name the engine has no type for never matches."""
    written, native = _spelling(declared), _spelling(fact.native_type)
    if written == native:  # as the catalog spells it (also an engine's user-defined type)
        return True
    if unknown_type(declared, dialect):
        return False
    bare = _BARE.fullmatch(written) is not None
    if dialect.literal_type_names:  # SQLite keeps the declared text and has no aliases
        return bare and type_base(written, dialect) == type_base(native, dialect)
    written = dialect.type_aliases.get(written, written)
    left, right = parsed_type(written, dialect), parsed_type(native, dialect)
    if left is None or right is None:
        return False
    if bare and _BARE.fullmatch(written):
        return bool(left.this == right.this)
    return left.sql() == right.sql()


def unknown_type(declared: str, dialect: Dialect) -> bool:
    """Whether the engine has no type of the declared name (`str` on DuckDB and PostgreSQL,
    `STRING` on PostgreSQL), though sqlglot, which reads every dialect's aliases, would read
    one. Engines without a list (SQLite takes any name) know every name."""
    names = dialect.type_names
    return names is not None and type_base(declared, dialect) not in names


def type_base(text: str, dialect: Dialect) -> str:
    """A type's name without parameters, element types, array brackets or modifiers:
    `timestamp(3) without time zone` → `timestamp without time zone`, `integer[]` →
    `integer`, `array<int>` → `array`, MySQL `bigint(20) unsigned` → `bigint`."""
    text = _spelling(text).split("<", 1)[0]
    while True:
        shorter = _PARAMETERS.sub(" ", text)
        if shorter == text:
            break
        text = shorter
    words = _ARRAY.sub(" ", text).split()
    while len(words) > 1 and words[-1] in dialect.type_modifiers:
        words.pop()
    return " ".join(words)


def _spelling(text: str) -> str:
    """Lower case, single spaces, none beside punctuation: `DECIMAL(10, 2)` = `decimal(10,2)`."""
    return _PUNCTUATION.sub(r"\1", " ".join(text.lower().split()))


_BARE = re.compile(r"[a-z_][a-z0-9_ ]*")
_PARAMETERS = re.compile(r"\([^()]*\)")
_ARRAY = re.compile(r"(\[\d*\])+")
_PUNCTUATION = re.compile(r"\s*([(),<>:\[\]])\s*")

"""Everything that makes one engine different lives in its module here; nothing else asks
"which engine am I?". Which engines exist, and which class renders each, is the registry's
(packata_sql/engines.py); `get_dialect` reads it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from enum import Enum
from fractions import Fraction
from functools import lru_cache

import sqlglot.expressions as exp

from packata_sql import engines as _engines
from packata_sql.dialects.lexical import DenyList, LexicalRules
from packata_sql.dialects.regex import Flavor

#: The type a bound parameter is cast to, per kind of column (Dialect.temporal_parameter).
_BOUND_TYPES = {"instant": "TIMESTAMPTZ", "timestamp": "TIMESTAMP", "date": "DATE"}
#: The characters a line-oriented reader breaks a line at (Python's `str.splitlines`).
LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def data_type(name: str, dialect: str | None = None, *, udt: bool = False) -> exp.DataType:
    """`name` as a sqlglot type tree, fresh on every call. sqlglot parses a type name each
    time it builds one (a 1,000-rule contract built VARCHAR ~8,000 times); the parse of a
    spelling is a pure function of its text, so it is kept, and each caller gets its own copy
    of the one- or few-node tree: a tree placed in a cast is mutated (its parent is set), so
    the kept one is never handed out."""
    return _parsed_type(name, dialect or None, udt).copy()


@lru_cache(maxsize=1024)
def _parsed_type(name: str, dialect: str | None, udt: bool) -> exp.DataType:
    return exp.DataType.build(name, dialect=dialect, udt=udt)


class Family(Enum):
    """What kind of cell a column holds, as far as typed comparison is concerned."""

    TEXT = "text"
    NUMBER = "number"
    BOOLEAN = "boolean"
    TEMPORAL = "temporal"
    OTHER = "other"
    DYNAMIC = "dynamic"  # any cell may hold any type (SQLite): guard each comparison at run time


class Layout(Enum):
    """How a column holds named fields, for a nested property (docs/formats.md, "Nested
    properties"): typed fields (DuckDB and Spark STRUCT, PostgreSQL composite types) or a JSON
    document (PostgreSQL jsonb/json, MariaDB JSON, SQLite JSON1)."""

    STRUCT = "struct"
    JSON = "json"
    JSON_TEXT = "json-text"  # PostgreSQL `json` (not `jsonb`): the same paths, json_ functions


class DistinctPlan(Enum):
    """How the fused scan counts distinct keys: the fastest exact form measured per engine
    (benchmarks/README.md, "Distinct keys per engine"); the planner and the key counts ask
    `Dialect.distinct_plan`, never the engine's name."""

    #: A composite key's distinct rows in a `SELECT DISTINCT` subquery of the scan: DuckDB's
    #: and PostgreSQL's hash aggregates are at their best there.
    SUBQUERY = "subquery"
    #: Every key inside the scan's one aggregate, `COUNT(DISTINCT k1, k2, …)`: MariaDB and
    #: MySQL materialise the subquery (3.6× the floor at 1M rows).
    IN_AGGREGATE = "in-aggregate"
    #: As SUBQUERY, and each single-column COUNT(DISTINCT) of the fused scan in a scalar
    #: subquery of its own over the same table, still one statement: DuckDB feeds several
    #: distinct counts of one aggregate from one fanned-out scan, 10-20 % more CPU at 10M rows
    #: (benchmarks/README.md, "The last second").
    SCALAR_SUBQUERIES = "scalar-subqueries"
    #: As SUBQUERY, and from planner.SPLIT_FROM single-column keys on one object each key in a
    #: statement of its own: Spark's Expand copies every row once per COUNT(DISTINCT).
    APART = "apart"


class Dialect:
    """Base rendering rules; one subclass per engine overrides what differs."""

    name: str = ""
    sqlglot_name: str = ""
    #: Whether the engine matches quoted identifiers case-insensitively (DuckDB, SQLite).
    case_insensitive_names: bool = False
    #: How the engine reads an unquoted identifier: "lower" (PostgreSQL), "upper" (Snowflake),
    #: or None when quoting does not change the case an object is found by (MySQL per
    #: lower_case_table_names, DuckDB and SQLite case-insensitive).
    unquoted_case: str | None = None
    #: Whether any cell may hold any type, so typed comparisons are guarded per cell.
    dynamic_typing: bool = False
    #: Whether the library metrics are rendered for this engine yet.
    library_metrics: bool = False
    #: Whether authored SQL can be bound for it (its lexical rules are pinned by vectors).
    authored_sql: bool = True
    #: How authored SQL is split into code, strings, identifiers and comments.
    lexical: LexicalRules = LexicalRules()
    #: Side-effect calls and statements refused in authored SQL (a second wall behind the session).
    deny: DenyList = DenyList()
    #: The driver's positional parameter marker.
    parameter_marker: str = "?"
    #: Fractional-second digits a timestamp or time column keeps when its type names none
    #: (MySQL's DATETIME keeps none).
    time_fraction_digits: int = 6
    #: The engine binds `{param:NAME}` by name (`:NAME`, each name once) instead of by position.
    named_parameters: bool = False
    #: The driver reads `%` as the start of a marker, so literal `%` is written `%%`.
    percent_escapes: bool = False
    #: The session always passes a parameter list (so `%` is always escaped).
    always_parameters: bool = False
    #: The longest identifier segment the engine keeps, in UTF-8 bytes or in characters
    #: (PostgreSQL silently truncates longer names to another object's name).
    identifier_limit: int | None = None
    identifier_limit_in_bytes: bool = False
    #: The type names (without parameters, lower case) the engine accepts in a column
    #: definition, for a declared physicalType; None when not listed (any name sqlglot reads).
    type_names: frozenset[str] | None = None
    #: Words after a type name that are not part of it (MySQL `unsigned`, `zerofill`).
    type_modifiers: frozenset[str] = frozenset()
    #: Declared names the engine reads as another type than sqlglot does (PostgreSQL `float`
    #: is `double precision`), as the catalog spells that type.
    type_aliases: dict[str, str] = {}  # noqa: RUF012 (read only)
    #: The catalog reports the declared type text itself and any name is accepted (SQLite).
    literal_type_names: bool = False
    #: The database's text encoding as a Python codec, where it is not Unicode (a
    #: PostgreSQL database in LATIN1, set by the session); None: any character.
    text_encoding: str | None = None

    def instant(self, moment: datetime) -> object:
        """The driver value `{observation_time}` binds for an aware UTC instant: a typed
        timestamp (PostgreSQL timestamptz, DuckDB TIMESTAMPTZ, Spark TIMESTAMP)."""
        return moment

    def identifier_problem(self, name: str) -> str | None:
        """Why the engine cannot name this identifier segment as written, if it cannot."""
        if self.identifier_limit is None:
            return None
        size = len(name.encode("utf-8")) if self.identifier_limit_in_bytes else len(name)
        if size <= self.identifier_limit:
            return None
        unit = "bytes" if self.identifier_limit_in_bytes else "characters"
        return (f"the name '{name}' is {size} {unit} long; {self.name} identifiers hold at "
                f"most {self.identifier_limit} {unit} (a longer name would read another object)")

    def quote_identifier(self, name: str) -> str:
        """One identifier segment, quoted with the dialect's quote and its escape."""
        return self.render(self.identifier(name))

    def quote_path(self, segments: Sequence[str]) -> str:
        return ".".join(self.quote_identifier(segment) for segment in segments)

    def identifier(self, name: str) -> exp.Identifier:
        return exp.Identifier(this=name, quoted=True)

    def column(self, name: str) -> exp.Column:
        return exp.Column(this=self.identifier(name))

    def table(self, segments: Sequence[str]) -> exp.Table:
        parts = [self.identifier(segment) for segment in segments]
        if len(parts) == 1:
            return exp.Table(this=parts[0])
        if len(parts) == 2:
            return exp.Table(this=parts[1], db=parts[0])
        return exp.Table(this=parts[-1], db=parts[-2], catalog=parts[-3])

    def probe_sql(self, segments: Sequence[str]) -> str:
        """A statement that returns an object's columns and reads no rows."""
        return f"SELECT * FROM {self.render(self.table(segments))} LIMIT 0"

    def render(self, expression: exp.Expr, *, pretty: bool = False, copy: bool = True) -> str:
        """The engine's SQL text; `pretty` lays it out for reading (whitespace only).
        `copy=False`: the caller hands the tree over and never reads it again, so sqlglot's
        generator, which may rewrite the tree it renders, spares copying it first (copying a
        large statement costs more than generating its text)."""
        return expression.sql(dialect=self.sqlglot_name, pretty=pretty, copy=copy)

    def unquoted(self, name: str) -> str:
        """The name an unquoted identifier written `name` refers to."""
        if self.unquoted_case == "lower":
            return name.lower()
        if self.unquoted_case == "upper":
            return name.upper()
        return name

    def objects_sql(self) -> str:
        """Names of the tables and views the session may read in a schema (parameter: the
        schema, NULL for the session's current one)."""
        marker = self.parameter_marker
        return ("SELECT table_name FROM information_schema.tables "
                f"WHERE table_schema = COALESCE({marker}, current_schema()) ORDER BY 1")

    def same_name(self, left: str, right: str) -> bool:
        if self.case_insensitive_names:
            return left.casefold() == right.casefold()
        return left == right

    # Typed comparisons (docs/semantics.md 3.2): text is compared binary, never through a cast.
    def text_equals(self, column: exp.Expr, text: str) -> exp.Expr:
        raise NotImplementedError

    def number_equals(self, column: exp.Expr, number: Fraction) -> exp.Expr:
        return exp.EQ(this=column, expression=number_literal(number))

    def boolean_equals(self, column: exp.Expr, value: bool) -> exp.Expr:
        return exp.EQ(this=column, expression=exp.Boolean(this=value))

    def is_text(self, column: exp.Expr) -> exp.Expr | None:
        """A run-time guard that the cell holds text, for dynamically typed engines."""
        return None

    def is_number(self, column: exp.Expr) -> exp.Expr | None:
        """A run-time guard that the cell holds a number, for dynamically typed engines."""
        return None

    def sample_text(self, cell: exp.Expr) -> exp.Expr:
        """A cell as text for `--samples`, typed again from its column's family; NULL stays
        NULL. An engine where any cell may hold any type writes it as its own literal."""
        return exp.cast(cell, data_type("TEXT"))

    def char_length(self, column: exp.Expr) -> exp.Expr:
        """Characters (not bytes) in a text cell, a trailing space counted as one."""
        return exp.Length(this=column)

    def binary_key(self, column: exp.Expr) -> exp.Expr:
        """The column as a key compared byte for byte (duplicates ignore the collation)."""
        return column

    @property
    def distinct_plan(self) -> DistinctPlan:
        """How this engine's scans count distinct and composite keys."""
        return DistinctPlan.SUBQUERY

    def case_mapping_problem(self, upper: bool) -> str | None:
        """Why the engine's UPPER (or LOWER) differs from .NET's invariant simple case
        mapping (Expressif's), if it does."""
        return None

    def case_mapped(self, text: exp.Expr) -> exp.Expr:
        """The argument to hand UPPER and LOWER so that they map case as Unicode's simple
        mapping does, whatever the column's collation or the database's locale."""
        return text

    def holdable(self, characters: str) -> str:
        """The characters of a set that a text cell can hold: all of them, unless the
        session found a database whose encoding is not Unicode (`text_encoding`), where the
        others are in no cell and writing one fails the statement. An encoding Python does
        not know keeps ASCII only (every server encoding holds it)."""
        if self.text_encoding is None:
            return characters
        kept = []
        for char in characters:
            try:
                char.encode(self.text_encoding)
            except UnicodeEncodeError:
                continue
            except LookupError:
                if ord(char) >= 128:
                    continue
            kept.append(char)
        return "".join(kept)

    def character(self, code: int) -> exp.Expr:
        """One character by its code point, for those generated SQL never writes raw."""
        return exp.Anonymous(this="CHR", expressions=[exp.Literal.number(code)])

    def text_literal(self, text: str) -> exp.Expr:
        """`text` as SQL, the characters that break a line (`LINE_BREAKS`) written with
        `character` and concatenated: a statement stays one line in a golden file, a log or
        a file read with universal newlines, and means the same text."""
        pieces: list[exp.Expr] = []
        run = ""
        for char in text:
            if char not in LINE_BREAKS:
                run += char
                continue
            if run:
                pieces.append(exp.Literal.string(run))
                run = ""
            pieces.append(self.character(ord(char)))
        if run or not pieces:
            pieces.append(exp.Literal.string(run))
        joined = pieces[0]
        for piece in pieces[1:]:
            joined = exp.DPipe(this=joined, expression=piece, safe=False)
        return joined

    def case_kept(self, upper: bool) -> dict[str, str]:
        """The characters the engine's UPPER (or LOWER) maps otherwise than .NET's invariant
        culture, with what .NET makes of them: rendered around the function, never through
        it (catalog/expressif_functions.py). .NET keeps 'İ' (U+0130) in lower case and 'ı'
        (U+0131) in upper case, as Windows' invariant table does; Unicode maps them to 'i'
        and 'I', and so does every engine."""
        return {"\u0131": "\u0131"} if upper else {"\u0130": "\u0130"}

    def decimal_rounding_problem(self) -> str | None:
        """Why the engine cannot round a decimal half to even as .NET does, if it cannot."""
        return None

    def temporal_problem(self) -> str | None:
        """Why dates and times cannot be compared as Expressif compares them, if they cannot."""
        return None

    def trim_set_problem(self) -> str | None:
        """Why the engine cannot trim a set of characters (.NET's white space), if it cannot."""
        return None

    def utf16_length(self, text: exp.Expr) -> exp.Expr | None:
        """.NET's `String.Length`: UTF-16 code units, so a character beyond U+FFFF counts
        two; None where the engine cannot count them."""
        return None

    def _astral_plus_characters(self, text: exp.Expr, astral: exp.Expr) -> exp.Expr:
        """Characters plus the characters beyond U+FFFF, given `astral` (the text with every
        other character removed)."""
        return exp.Add(this=self.char_length(text), expression=self.char_length(astral))

    #: How the engine reads a regular expression; `portable` spells patterns for it.
    regex_flavor: Flavor = Flavor.RE2
    #: Whether the engine's matcher backtracks (PCRE, ICU, Java, .NET, Python `re`), so that
    #: patterns get the catastrophic-backtracking guard; unknown matchers are assumed to.
    regex_backtracks: bool = True

    def regex_search(self, column: exp.Expr, pattern: str) -> exp.Expr:
        """`column` contains a match of `pattern` (already spelled for `regex_flavor`)."""
        raise NotImplementedError

    def pattern_problem(self, pattern: str) -> str | None:
        """Why the engine cannot run this (already guarded) pattern, or None."""
        return None

    def family(self, type_name: str) -> Family:
        return Family.OTHER

    def type_family(self, native_type: str) -> Family:
        """The family of a column's declared type in the catalog; the same as `family` except
        where cells do not follow the declared type (SQLite)."""
        return self.family(native_type)

    def epoch_micros(self, newest: exp.Expr, native_type: str | None) -> exp.Expr | None:
        """`newest` (a date or timestamp) as integer microseconds since 1970-01-01 00:00, for
        an SLA latency (docs/semantics.md 1.1): the instant's for a type that `holds_instants`,
        the wall clock's read as UTC otherwise, so Python applies the declared zone. None for a
        type (or an engine) that holds no date or timestamp."""
        return None

    def instant_literal(self, instant: datetime) -> exp.Expr:
        """An aware instant as a value a column of instants compares with (ISO text with its
        UTC offset, which the engine reads as that instant)."""
        return exp.Literal.string(instant.astimezone(UTC).isoformat(sep=" "))

    def holds_instants(self, native_type: str | None) -> bool:
        """Whether the column's cells are instants (`timestamp with time zone`), not wall-clock
        readings that need a zone."""
        return False

    def bound_instant(self, instant: datetime) -> object:
        """The driver value a date or timestamp bound binds for a column of instants (an
        aware instant): ISO text with its UTC offset, which `temporal_parameter` casts."""
        return instant.astimezone(UTC).isoformat(sep=" ")

    def temporal_parameter(self, value: exp.Expr, kind: str) -> exp.Expr:
        """A bound parameter (driver-bound ISO text) as a value of the column's `kind`:
        `instant` (a column of instants), `timestamp` (a zone-less one) or `date`."""
        return exp.Cast(this=value, to=data_type(_BOUND_TYPES[kind]))

    def temporal_bound(self, column: exp.Expr, op: type[exp.Binary], kind: str,
                       values: Mapping[str, exp.Expr]) -> exp.Expr:
        """`column op bound` for a date or timestamp bound (docs/semantics.md 3.2): `values`
        holds the bound's parameters by form (`instant`, `wall`, `date`, as
        catalog/temporal.py computes them); `kind` says which the column compares with."""
        form = {"instant": "instant", "timestamp": "wall", "date": "date"}[kind]
        return op(this=column, expression=self.temporal_parameter(values[form], kind))
    #: How a nested property's column holds its fields when no catalog has said (`compile`);
    #: None: the engine has no structured columns packata-sql reads.
    nested_layout: Layout | None = None

    def field_layout(self, native_type: str | None) -> Layout | None:
        """How a column of this catalog type holds named fields; None when it holds none (a
        nested property on it cannot be measured). `None` type: not read, the default."""
        return self.nested_layout if native_type is None else None

    def catalog_struct(self, native_type: str) -> exp.DataType | None:
        """The STRUCT a catalog type names without spelling it out (a PostgreSQL composite
        type's attributes, read with the session's column facts); None: the type's own text
        is all there is (`fields.struct_field` reads it)."""
        return None

    def field_problem(self, name: str) -> str | None:
        """Why a field of this name cannot be addressed exactly on this engine, if it cannot."""
        return None

    def nested_field(self, column: exp.Expr, fields: tuple[str, ...], layout: Layout,
                     leaf: Family | None) -> exp.Expr:
        """The value of the field at `fields` inside `column` (fields.field_reference); NULL
        where the column or an object on the way is NULL or lacks the field. `leaf`: the
        family a JSON leaf is read as (typed extraction)."""
        raise NotImplementedError

    def nested_object(self, column: exp.Expr, fields: tuple[str, ...],
                      layout: Layout) -> exp.Expr:
        """Non-NULL exactly where the object at `fields` inside `column` (the column itself
        for no fields) exists: a JSON null, scalar or array is no object."""
        raise NotImplementedError

    #: The names `json_type` gives each JSON kind (`string`, `number`, `boolean`, `object`,
    #: `array`, `null`), on engines that read JSON documents.
    json_type_names: Mapping[str, tuple[str, ...]] = {}

    def json_type(self, column: exp.Expr, fields: tuple[str, ...], layout: Layout) -> exp.Expr:
        """The engine's name for the JSON type of the value at `fields` in the document
        `column` (one of `json_type_names`); NULL where the path is absent."""
        raise NotImplementedError

    def boolean_valued(self, sql: str, column_type: str) -> bool:
        """Whether an authored query's one column, although its cell arrives as an integer, is
        the value of a boolean expression; `column_type` is what the driver reports of it.
        Only engines without a boolean result type say yes."""
        return False


def call(name: str, *arguments: exp.Expr) -> exp.Expr:
    """An engine function by its own name, rendered as written (sqlglot translates none)."""
    return exp.Anonymous(this=name, expressions=list(arguments))


def case(*whens: tuple[exp.Expr, exp.Expr], default: exp.Expr | None = None) -> exp.Case:
    """CASE WHEN … THEN … [ELSE …] END over the caller's own fresh trees, taken as they are:
    sqlglot's `Case().when().else_()` copies the CASE and its condition at every step (three
    copies of a rule's predicate for one CASE with an ELSE)."""
    node = exp.Case(ifs=[exp.If(this=condition, true=then) for condition, then in whens])
    if default is not None:
        node.set("default", default)
    return node


def temporal_kind(native_type: str | None) -> str | None:
    """`date`, `timestamp` or None (a time, an interval, anything else), from the start of a
    catalog type name (`timestamp(6) with time zone`, `TIMESTAMP_NTZ`, `datetime(3)`)."""
    name = (native_type or "").strip().lower()
    if name.startswith(("timestamp", "datetime")):
        return "timestamp"
    if name.startswith("date"):
        return "date"
    return None


def number_literal(number: Fraction) -> exp.Expr:
    """An exact numeric literal: integers as integers, terminating decimals in plain notation."""
    from packata_sql.values import format_value

    return exp.Literal.number(format_value(number))


def get_dialect(name: str) -> Dialect:
    """Raises KeyError for an engine packata-sql cannot render (aliases are not names here)."""
    dialect: Dialect = _engines.load(_engines.spec(name).dialect)()
    return dialect


#: Engines whose authored SQL the template binder understands, each pinned by its own vectors.
BINDER_DIALECTS = tuple(spec.name for spec in _engines.ENGINES
                        if spec.authored_sql and spec.variant_of is None)
#: Engines `compile` renders for: the above plus warehouses reached through generated SQL.
COMPILE_DIALECTS = _engines.names()

"""SQLite: dynamic typing (every comparison is guarded by `typeof`), a registered REGEXP that
runs RE2 (linear time, the meaning DuckDB gives a pattern)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from fractions import Fraction

import sqlglot.expressions as exp

from packata_sql.dialects import Dialect, Family, Layout, call, data_type, number_literal
from packata_sql.dialects.boolean_result import projection_is_boolean
from packata_sql.dialects.fields import json_path
from packata_sql.dialects.lexical import DenyList, LexicalRules
from packata_sql.dialects.regex import Flavor, re2_refuses

DENY = DenyList(
    functions=frozenset({"load_extension", "readfile", "writefile", "edit", "fsdir", "zipfile",
                         "fts3_tokenizer"}),
    statements=frozenset({"attach", "detach", "vacuum"}),
)


def _typeof_in(column: exp.Expr, *storage_classes: str) -> exp.Expr:
    typeof = exp.Anonymous(this="typeof", expressions=[column])
    if len(storage_classes) == 1:
        return exp.EQ(this=typeof, expression=exp.Literal.string(storage_classes[0]))
    return exp.In(this=typeof, expressions=[exp.Literal.string(s) for s in storage_classes])


class SQLite(Dialect):
    name = "sqlite"
    sqlglot_name = "sqlite"
    case_insensitive_names = True
    library_metrics = True
    regex_backtracks = False  # the registered function matches with RE2
    dynamic_typing = True
    # Any name is a column type (its affinity follows from the name) and the catalog reports
    # the text as declared: no name is unknown, and no two names are aliases.
    literal_type_names = True
    regex_flavor = Flavor.RE2
    lexical = LexicalRules(
        identifiers={'"': '"', "`": "`", "[": "]"},
        undoubled_identifiers=frozenset("["),
    )
    deny = DENY

    def instant(self, moment: datetime) -> object:
        """SQLite has no timestamp type: the text its date functions write and compare
        (`datetime('now')` reads `YYYY-MM-DD HH:MM:SS`), in UTC."""
        return moment.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ")

    def character(self, code: int) -> exp.Expr:
        return exp.Anonymous(this="CHAR", expressions=[exp.Literal.number(code)])

    def case_mapping_problem(self, upper: bool) -> str | None:
        return "LOWER and UPPER fold ASCII letters only ('É' stays 'É')"

    def temporal_problem(self) -> str | None:
        # No date or time type: '2022-11-21' sorts before '2022-11-21 00:00:00', one instant.
        return ("dates and times are text there, so a date and the same instant written as a "
                "date and time do not compare equal")

    def decimal_rounding_problem(self) -> str | None:
        return ("numbers are binary floating point (REAL), so a decimal half-way value such "
                "as 2.675 is not one and .NET's half-even rounding of decimals cannot be kept")

    def text_equals(self, column: exp.Expr, text: str) -> exp.Expr:
        equals = exp.EQ(this=column, expression=exp.Collate(
            this=exp.Literal.string(text), expression=exp.Var(this="BINARY")
        ))
        return exp.and_(_typeof_in(column, "text"), equals)

    def number_equals(self, column: exp.Expr, number: Fraction) -> exp.Expr:
        equals = exp.EQ(this=column, expression=number_literal(number))
        return exp.and_(_typeof_in(column, "integer", "real"), equals)

    def boolean_equals(self, column: exp.Expr, value: bool) -> exp.Expr:
        equals = exp.EQ(this=column, expression=exp.Literal.number(1 if value else 0))
        return exp.and_(_typeof_in(column, "integer"), equals)

    def sample_text(self, cell: exp.Expr) -> exp.Expr:
        """The cell as SQLite writes it as a literal (`42`, `'it''s'`): its storage class is
        its type."""
        return exp.Case().when(exp.Is(this=cell, expression=exp.Null()), exp.Null()).else_(
            exp.Anonymous(this="quote", expressions=[cell.copy()]))

    def is_text(self, column: exp.Expr) -> exp.Expr:
        return _typeof_in(column, "text")

    def is_number(self, column: exp.Expr) -> exp.Expr:
        return _typeof_in(column, "integer", "real")

    def binary_key(self, column: exp.Expr) -> exp.Expr:
        return exp.Collate(this=column, expression=exp.Var(this="BINARY"))

    def regex_search(self, column: exp.Expr, pattern: str) -> exp.Expr:
        # `x REGEXP p` calls the `regexp(p, x)` function that the session registers.
        return exp.RegexpLike(this=column, expression=exp.Literal.string(pattern))

    def pattern_problem(self, pattern: str) -> str | None:
        if re2_refuses(pattern):
            return "SQLite's REGEXP (RE2) has no lookaround, backreferences or possessive quantifiers"
        return None

    def epoch_micros(self, newest: exp.Expr, native_type: str | None) -> exp.Expr | None:
        """ISO text (`2024-01-01 08:00:00`, `T`, a `Z` or `+02:00` suffix, which SQLite's
        date functions convert to UTC), to the second; not-a-date text gives NULL."""
        seconds = exp.cast(call("strftime", exp.Literal.string("%s"), newest), data_type("INTEGER"))
        return exp.Mul(this=seconds, expression=exp.Literal.number(1000000))

    def bound_instant(self, instant: datetime) -> object:
        # The UTC reading with no suffix: the text SQLite's date functions convert cells to.
        return instant.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ")

    def temporal_bound(self, column: exp.Expr, op: type[exp.Binary], kind: str,
                       values: Mapping[str, exp.Expr]) -> exp.Expr:
        """Cells are text: one with a `Z` or `±HH:MM` suffix is an instant (SQLite's date
        functions read it as UTC), compared with the bound's instant; one without is a wall
        clock in the declared zone, compared with the bound's wall clock there. Both as
        `YYYY-MM-DD HH:MM:SS.SSS` (milliseconds); text that is no date reads as NULL."""
        def normal(value: exp.Expr) -> exp.Expr:
            return call("strftime", exp.Literal.string("%Y-%m-%d %H:%M:%f"), value)

        zoned = exp.or_(*(exp.Glob(this=column.copy(), expression=exp.Literal.string(shape))
                          for shape in ("*[Zz]", "*[+-][0-9][0-9]:[0-9][0-9]")))
        compared = exp.Case().when(
            zoned, op(this=normal(column.copy()), expression=normal(values["instant"]))).else_(
            op(this=normal(column.copy()), expression=normal(values["wall"])))
        return exp.and_(_typeof_in(column, "text"), compared)
    nested_layout = Layout.JSON

    def field_layout(self, native_type: str | None) -> Layout | None:
        return Layout.JSON  # JSON1 reads JSON text in any column

    def field_problem(self, name: str) -> str | None:
        # JSON1 compares a path key with the key's text as the document writes it, escapes
        # undecoded: a key holding `"` or `\` is always written escaped, so it never matches.
        if '"' in name or "\\" in name:
            return "SQLite's JSON paths cannot name a key containing a double quote or a backslash"
        return None

    def nested_field(self, column: exp.Expr, fields: tuple[str, ...], layout: Layout,
                     leaf: Family | None) -> exp.Expr:
        # json_extract returns the leaf's own SQL type (cells are guarded per type anyway).
        path = exp.Literal.string(json_path(fields, escapes=False))
        return exp.Anonymous(this="json_extract", expressions=[column, path])

    def nested_object(self, column: exp.Expr, fields: tuple[str, ...],
                      layout: Layout) -> exp.Expr:
        path = exp.Literal.string(json_path(fields, escapes=False))
        kind = exp.Anonymous(this="json_type", expressions=[column, path])
        return exp.Case().when(exp.EQ(this=kind, expression=exp.Literal.string("object")),
                               exp.Literal.number(1))

    json_type_names = {  # noqa: RUF012 (read only)
                       "string": ("text",), "number": ("integer", "real"),
                       "boolean": ("true", "false"), "object": ("object",), "array": ("array",),
                       "null": ("null",)}

    def json_type(self, column: exp.Expr, fields: tuple[str, ...], layout: Layout) -> exp.Expr:
        return exp.Anonymous(this="json_type", expressions=[
            column, exp.Literal.string(json_path(fields, escapes=False))])

    def family(self, type_name: str) -> Family:
        return Family.DYNAMIC

    def type_family(self, native_type: str) -> Family:
        """SQLite's affinity rules (datatype3.html 3.1) on the declared type, with BOOL and
        DATE/TIME names read as what they say; no declared type holds anything."""
        name = native_type.upper()
        if not name.strip():
            return Family.DYNAMIC
        if "INT" in name:
            return Family.NUMBER
        if any(word in name for word in ("CHAR", "CLOB", "TEXT")):
            return Family.TEXT
        if "BLOB" in name:
            return Family.OTHER
        if "BOOL" in name:
            return Family.BOOLEAN
        if "DATE" in name or "TIME" in name:
            return Family.TEMPORAL
        return Family.NUMBER  # REAL, FLOAT, DOUBLE and NUMERIC affinity

    def objects_sql(self) -> str:
        # The main database only: attached schemas are not resolved by name.
        return "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND ? IS NULL"

    def boolean_valued(self, sql: str, column_type: str) -> bool:
        # SQLite has no boolean type and reports no column type: only the query's text tells
        # a comparison from a count that happens to be 0 or 1.
        return projection_is_boolean(sql, self.sqlglot_name) is True

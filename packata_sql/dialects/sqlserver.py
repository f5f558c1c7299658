"""SQL Server (T-SQL): `[…]` identifiers with `]]`, N'' strings, nested block comments.

`=` ignores trailing spaces under every collation, so exact text equality adds a length check
that counts them; there is no regular expression before SQL Server 2025.
"""

from __future__ import annotations

import sqlglot.expressions as exp

from packata_sql.dialects import Dialect, data_type
from packata_sql.dialects.lexical import DenyList, LexicalRules

_BIN2 = exp.Var(this="Latin1_General_100_BIN2")
# Reserved words in T-SQL, so denied wherever they stand.
DENY = DenyList(
    functions=frozenset({"openrowset", "opendatasource", "openquery", "xp_*"}),
    phrases=(("kill",), ("waitfor",), ("shutdown",), ("exec",), ("execute",), ("reconfigure",),
             ("dbcc",), ("bulk", "insert"), ("next", "value", "for")),
)


class SQLServer(Dialect):
    name = "sqlserver"
    sqlglot_name = "tsql"
    identifier_limit = 128  # characters
    case_insensitive_names = True
    library_metrics = True
    lexical = LexicalRules(
        identifiers={'"': '"', "[": "]"},
        nested_block_comments=True,
    )
    deny = DENY

    def character(self, code: int) -> exp.Expr:
        return exp.Anonymous(this="NCHAR", expressions=[exp.Literal.number(code)])

    def text_equals(self, column: exp.Expr, text: str) -> exp.Expr:
        same = exp.EQ(this=exp.Collate(this=column, expression=_BIN2.copy()),
                      expression=exp.National(this=text))
        length = exp.EQ(this=self.char_length(column), expression=exp.Literal.number(len(text)))
        return exp.and_(same, length)

    def char_length(self, column: exp.Expr) -> exp.Expr:
        # LEN ignores trailing spaces; one appended character makes it count them.
        padded = exp.Add(this=column.copy(), expression=exp.National(this="."))
        return exp.Sub(this=exp.func("LEN", exp.paren(padded)), expression=exp.Literal.number(1))

    def boolean_equals(self, column: exp.Expr, value: bool) -> exp.Expr:
        return exp.EQ(this=column, expression=exp.Literal.number(1 if value else 0))

    def binary_key(self, column: exp.Expr) -> exp.Expr:
        return exp.Cast(this=column, to=data_type("VARBINARY(MAX)", "tsql"))

    def regex_search(self, column: exp.Expr, pattern: str) -> exp.Expr:
        raise NotImplementedError("guarded by pattern_problem")

    def pattern_problem(self, pattern: str) -> str | None:
        return "SQL Server has no regular expressions before SQL Server 2025"

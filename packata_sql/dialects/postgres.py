"""PostgreSQL: standard strings, E'' escapes, dollar quotes, nested comments, `~` regex."""

from __future__ import annotations

import sqlglot.expressions as exp

from packata_sql.dialects import Dialect
from packata_sql.dialects.lexical import LexicalRules


class Postgres(Dialect):
    name = "postgres"
    sqlglot_name = "postgres"
    lexical = LexicalRules(
        escape_string_prefixes=frozenset("Ee"),
        cr_ends_line_comment=True,
        nested_block_comments=True,
        dollar_quotes=True,
    )
    parameter_marker = "%s"
    percent_escapes = True

    def text_equals(self, column: exp.Expr, text: str) -> exp.Expr:
        return exp.EQ(this=self.binary_key(column), expression=exp.Literal.string(text))

    def binary_key(self, column: exp.Expr) -> exp.Expr:
        return exp.Collate(this=column, expression=exp.Identifier(this="C", quoted=True))

    def regex_search(self, column: exp.Expr, pattern: str) -> exp.Expr:
        return exp.RegexpLike(this=column, expression=exp.Literal.string(pattern))

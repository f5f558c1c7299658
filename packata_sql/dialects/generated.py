"""Warehouses packata-sql renders library SQL for but does not connect to (yet): Snowflake,
BigQuery and Trino (Databricks is the Spark dialect, dialects/spark.py). Their SQL is checked
by parsing it back and by golden files. Text is compared with the engines' default binary
semantics; a column declared with a case-insensitive collation is not overridden here."""

from __future__ import annotations

import sqlglot.expressions as exp

from packata_sql.dialects import Dialect
from packata_sql.dialects.regex import re2_refuses


class _Generated(Dialect):
    library_metrics = True
    authored_sql = False

    def text_equals(self, column: exp.Expr, text: str) -> exp.Expr:
        return exp.EQ(this=column, expression=exp.Literal.string(text))

    def regex_search(self, column: exp.Expr, pattern: str) -> exp.Expr:
        return exp.RegexpLike(this=column, expression=exp.Literal.string(pattern))


class Snowflake(_Generated):
    name = "snowflake"
    sqlglot_name = "snowflake"
    unquoted_case = "upper"

    def text_equals(self, column: exp.Expr, text: str) -> exp.Expr:
        return exp.EQ(this=self.binary_key(column), expression=exp.Literal.string(text))

    def binary_key(self, column: exp.Expr) -> exp.Expr:
        # 'utf8' is Snowflake's binary collation, whatever the column declares.
        return exp.Collate(this=column, expression=exp.Literal.string("utf8"))

    def regex_search(self, column: exp.Expr, pattern: str) -> exp.Expr:
        # REGEXP_LIKE anchors the pattern in Snowflake; REGEXP_INSTR searches.
        found = exp.Anonymous(this="REGEXP_INSTR", expressions=[column, exp.Literal.string(pattern)])
        return exp.GT(this=found, expression=exp.Literal.number(0))


class BigQuery(_Generated):
    name = "bigquery"
    sqlglot_name = "bigquery"
    regex_backtracks = False  # RE2

    def pattern_problem(self, pattern: str) -> str | None:
        if re2_refuses(pattern):
            return "BigQuery (RE2) has no lookaround, backreferences or possessive quantifiers"
        return None


class Trino(_Generated):
    name = "trino"
    sqlglot_name = "trino"
    # Trino's default regex library is Joni (backtracking); re2j is an option, not the default.

"""Is an authored query's one column a boolean expression? For engines that return booleans
as integers 0/1: SQLite has no boolean type at all, and MySQL/MariaDB report a comparison as an
integer of display width 1, exactly like the literal `1`.

The query is only read here (parsed by sqlglot), never rewritten or sent elsewhere."""

from __future__ import annotations

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError

#: Expressions whose value is a truth value on every engine.
_BOOLEAN = (exp.Predicate, exp.Not, exp.Connector, exp.Boolean)
#: Expressions whose value is a number on every engine, whatever it holds.
_NUMERIC = (exp.Literal, exp.Neg, exp.Count, exp.Sum, exp.Avg, exp.Case, exp.If, exp.Add,
            exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv, exp.Length, exp.Abs, exp.Cast)


def projection_is_boolean(sql: str, read: str) -> bool | None:
    """True when the query's single projection is a comparison, NOT, AND/OR, EXISTS, IS, IN,
    LIKE, BETWEEN or a boolean literal; False when it is plainly numeric (a number literal,
    COUNT/SUM/AVG, arithmetic, CASE/IF, a cast); None when the text does not tell (a column, a
    function, a set operation, or text sqlglot cannot parse)."""
    try:
        statement = sqlglot.parse_one(sql, read=read)
    except SqlglotError:
        return None
    return _kind(statement)


def _kind(node: exp.Expr | None) -> bool | None:
    if isinstance(node, exp.Select):
        return _kind(node.expressions[0]) if len(node.expressions) == 1 else None
    while isinstance(node, exp.Alias | exp.Paren | exp.Subquery):
        node = node.this
        if isinstance(node, exp.Select):
            return _kind(node)
    if isinstance(node, _BOOLEAN):
        return True
    if isinstance(node, _NUMERIC):
        return False
    return None

"""SQL Server (T-SQL): `[…]` identifiers with `]]`, N'' strings, nested block comments."""

from __future__ import annotations

from packata_sql.dialects import Dialect
from packata_sql.dialects.lexical import LexicalRules


class SQLServer(Dialect):
    name = "sqlserver"
    sqlglot_name = "tsql"
    case_insensitive_names = True
    lexical = LexicalRules(
        identifiers={'"': '"', "[": "]"},
        nested_block_comments=True,
    )

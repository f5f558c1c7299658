"""MySQL and MariaDB in their default SQL mode: backslash escapes, `"` strings, backticks,
`#` and `-- ` comments, executable `/*! */` comments. NO_BACKSLASH_ESCAPES and ANSI_QUOTES
are not supported."""

from __future__ import annotations

from packata_sql.dialects import Dialect
from packata_sql.dialects.lexical import LexicalRules


class MySQL(Dialect):
    name = "mysql"
    sqlglot_name = "mysql"
    case_insensitive_names = True
    lexical = LexicalRules(
        strings={"'": True, '"': True},
        identifiers={"`": "`"},
        hash_comments=True,
        dash_comment_needs_space=True,
        executable_comments=True,
    )
    parameter_marker = "%s"
    percent_escapes = True

"""Server settings that change how SQL text reads are taken out of the session (the server
half runs in integration/test_differential_metrics.py)."""

from __future__ import annotations

from packata_sql.sessions.mysql import session_sql_mode


def test_mysql_modes_that_change_how_text_reads_are_dropped():
    configured = ("STRICT_TRANS_TABLES,ANSI_QUOTES,NO_BACKSLASH_ESCAPES,ONLY_FULL_GROUP_BY,"
                  "HIGH_NOT_PRECEDENCE,PIPES_AS_CONCAT,EMPTY_STRING_IS_NULL,ORACLE")
    assert session_sql_mode(configured) == "STRICT_TRANS_TABLES,ONLY_FULL_GROUP_BY"


def test_mysql_modes_without_foreign_ones_are_kept_as_they_are():
    assert session_sql_mode("") == ""
    assert session_sql_mode("NO_ENGINE_SUBSTITUTION") == "NO_ENGINE_SUBSTITUTION"

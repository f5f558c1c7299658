"""Which authored projections are boolean expressions, for engines that return 0/1 integers
(issue 10.5). The MySQL/MariaDB column metadata is checked on the live server
(integration/test_boolean_results.py)."""

from __future__ import annotations

import pytest

from packata_sql.dialects import get_dialect
from packata_sql.dialects.boolean_result import projection_is_boolean


@pytest.mark.parametrize("sql,kind", [
    ("SELECT COUNT(*) = 0 FROM t", True),
    ("SELECT (COUNT(*) <> 0) AS ok FROM t", True),
    ("SELECT NOT EXISTS (SELECT 1 FROM t)", True),
    ("SELECT a IS NULL FROM t", True),
    ("SELECT a > 1 AND b < 2 FROM t", True),
    ("SELECT (SELECT COUNT(*) = 1 FROM t)", True),
    ("SELECT TRUE", True),
    ("WITH c AS (SELECT 1 AS x) SELECT MAX(x) = 1 FROM c", True),
    ("SELECT 1", False),
    ("SELECT COUNT(*) FROM t", False),
    ("SELECT SUM(a = 1) FROM t", False),
    ("SELECT CASE WHEN a = 1 THEN 1 ELSE 0 END FROM t", False),
    ("SELECT (COUNT(*) - 1) FROM t", False),
    ("SELECT a FROM t", None),
    ("SELECT MAX(a) FROM t", None),
    ("SELECT a = 1, b FROM t", None),
    ("SELECT a = 1 FROM t UNION SELECT 0", None),
    ("SELEC broken (", None),
])
def test_projection_kinds(sql: str, kind: bool | None) -> None:
    assert projection_is_boolean(sql, "sqlite") is kind


def test_only_engines_without_a_boolean_result_type_read_integers_as_booleans() -> None:
    comparison = "SELECT COUNT(*) = 0 FROM t"
    assert get_dialect("sqlite").boolean_valued(comparison, "")
    assert get_dialect("mysql").boolean_valued(comparison, "3:1")  # MariaDB: LONG, width 1
    assert get_dialect("mysql").boolean_valued(comparison, "8:1")  # MySQL 8: LONGLONG, width 1
    assert not get_dialect("mysql").boolean_valued(comparison, "8:21")  # COUNT(*)
    assert not get_dialect("mysql").boolean_valued("SELECT 1", "3:1")  # a literal: the text vetoes
    assert get_dialect("mysql").boolean_valued("SELECT flag FROM t", "1:1")  # a BOOLEAN column
    assert not get_dialect("duckdb").boolean_valued(comparison, "INTEGER")
    assert not get_dialect("postgres").boolean_valued(comparison, "int4")

"""What dbt's final message says of a failed gate (issue 24 item 7): each failing rule's key, the
value measured and the expectation it missed, rendered with plain jinja2 from the generated
runtime as dbt would call it. The run through real dbt is integration/test_dbt_hook.py."""

from __future__ import annotations

from typing import Any

import pytest

from packata_sql.dbt.generate import runtime_text

from .jinja_macros import load_macros


@pytest.fixture(scope="module")
def failure() -> Any:
    names = {"packata_sql_failure", "packata_sql_value", "packata_sql_expected"}
    return load_macros(runtime_text(), names)["packata_sql_failure"]


def result(**fields: Any) -> dict[str, Any]:
    return {"key": "k", "unit": None, "shown": None, "failed": [], "latency": False, **fields}


@pytest.mark.parametrize(("fields", "said"), [
    ({"unit": "rows", "shown": "1", "failed": ["= 0"]}, "k (value 1 row, expected = 0)"),
    ({"unit": "rows", "shown": "12", "failed": ["= 0"]}, "k (value 12 rows, expected = 0)"),
    ({"unit": "percent", "shown": "33.333333", "failed": ["< 10"]},
     "k (value 33.333333 %, expected < 10 %)"),
    ({"unit": "percent", "shown": "50", "failed": ["> 1", "< 10"]},
     "k (value 50 %, expected > 1 and < 10 %)"),
    ({"shown": "3"}, "k (value 3)"),  # an SQL rule's number has no unit
    ({"unit": "rows", "shown": "false", "failed": ["= true"]}, "k (value false, expected = true)"),
    ({"latency": True, "shown": "90061", "failed": ["no older than 1 d"]},
     "k (value 90061 s old, expected no older than 1 d)"),
    ({"unit": "rows"}, "k (no value)"),
])
def test_a_failed_rule_is_named_with_its_value_and_expectation(failure: Any,
                                                               fields: dict[str, Any],
                                                               said: str) -> None:
    assert failure(result(**fields)) == said


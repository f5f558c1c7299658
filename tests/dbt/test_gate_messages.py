"""What dbt's final message says of a failed gate (issue 24 item 7): each failing rule's key, the
value measured and the expectation it missed, rendered with plain jinja2 from the generated
runtime as dbt would call it. The run through real dbt is integration/test_dbt_hook.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from packata_sql.cli.main import main
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



#: A property name and a unit the contract controls: a line break and a workflow command, an
#: escape sequence, a bidirectional override and Jinja.
HOSTILE = "x\n::error file=a::pwn\x1b[2J\u202e{{ 7 * 7 }}{% raw %}#}"


def test_a_hostile_name_or_unit_cannot_break_the_gate_s_lines(tmp_path: Path) -> None:
    """dbt prints the log lines and the final message as they are, so a key or unit holding a
    line break would start a workflow command in a CI log: the plan carries each key `said`
    inert (the exact key stays for matching) and its unit inert."""
    (tmp_path / "dbt_project.yml").write_text("name: p\n", encoding="utf-8")
    contract = tmp_path / "c.yaml"
    contract.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "x", "version": "1.0.0",
        "status": "active", "schema": [{"name": "t", "quality": [
            {"id": "fresh", "type": "sql", "query": "SELECT 2 FROM {object}", "unit": HOSTILE,
             "mustBeLessThan": 1}], "properties": [{"name": HOSTILE, "quality": [
                 {"metric": "nullValues", "mustBe": 0}]}]}]}), encoding="utf-8")
    assert main(["dbt", "generate", str(contract), "--project-dir", str(tmp_path)]) == 0
    plan = (tmp_path / "macros" / "packata_sql" / "t.sql").read_text(encoding="utf-8")
    block = plan.split("{% set plan_json %}")[1].split("{% endset %}")[0]
    assert not re.search(r"\{\{|\{%|\{#|%\}", block)  # Jinja reads the JSON as plain text
    rules = {r["key"]: r for r in json.loads(block)["rules"]}
    column = f"schema[t].properties[{HOSTILE}].quality[0]"
    assert rules[column]["said"] == "schema[t].properties[x \\::error file=a::pwn{{ 7 * 7 }}" \
        "{% raw %}#}].quality[0]"
    logged: list[str] = []
    macros = load_macros(runtime_text(), {"packata_sql_result", "packata_sql_display",
                                          "packata_sql_value", "packata_sql_expected",
                                          "packata_sql_failure"},
                         {"log": lambda text, info=False: logged.append(text),
                          "model": {"name": "t", "unique_id": "model.p.t"},
                          "tojson": json.dumps})
    state = {"read_only": "enforced"}
    said = [macros["packata_sql_failure"](macros["packata_sql_result"](
        rule, state, "failed", value=[2, 1], failed=["< 1"])) for rule in rules.values()]
    assert sorted(said) == sorted([
        f"{rules[column]['said']} (value 2 rows, expected < 1)",
        "fresh (value 2 x \\::error file=a::pwn{{ 7 * 7 }}{% raw %}#}, expected < 1)"])
    for text in [*said, *(line for line in logged if not line.startswith("PACKATA_SQL_"))]:
        assert "\n" not in text and "\x1b" not in text and "\u202e" not in text, text
    # The machine-read result keeps the exact key, so `check --dbt-project` matches it.
    results = [json.loads(line.removeprefix("PACKATA_SQL_RESULT "))["result"]["key"]
               for line in logged if line.startswith("PACKATA_SQL_RESULT ")]
    assert column in results

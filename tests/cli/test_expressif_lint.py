"""`packata-sql lint` and Expressif rules: `--expressif` lists what each engine runs (from the
renderer's own table, so the list cannot claim more than runs), an Expressif rule's
expectations and arguments are not schema errors, and a bad payload is an error at its line."""

from __future__ import annotations

import json
from pathlib import Path

from packata_sql import api

from .test_check_command import HEAD, packata

LIVE = ["duckdb", "mysql", "postgres", "spark", "sqlite"]


def _rule(implementation: str, more: str = "") -> str:
    return (f"          - id: r\n            type: custom\n            engine: expressif\n"
            f"            implementation: '{implementation}'\n{more}")


def _contract(tmp_path: Path, rules: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(HEAD + "schema:\n  - name: orders\n    properties:\n      - name: amount\n"
                    "        logicalType: number\n        quality:\n" + rules, encoding="utf-8")
    return path


def test_lint_lists_the_operations_every_live_engine_runs() -> None:
    done = packata("lint", "--expressif")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["operation", *LIVE]
    table = api.expressif_support()
    assert lines[-1].startswith(f"{len(table)} operation(s);")
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:-1]}
    assert set(rows) == set(table)
    assert rows["positive"] == [table["positive"][e] for e in LIVE]
    assert "size" not in rows  # IO is never supported


def test_expectations_and_arguments_of_an_expressif_rule_are_not_schema_errors(
        tmp_path: Path) -> None:
    implementation = json.dumps({"version": "1", "kind": "predicate", "scope": "value",
                                 "program": "greater-than(@min)"})
    path = _contract(tmp_path, _rule(implementation, "            arguments: {min: 0}\n"
                                     "            mustBeLessOrEqualTo: 2\n"))
    done = packata("lint", str(path))
    assert done.returncode == 0, done.stdout
    assert "0 error(s), 0 warning(s), 2 rule(s) of which 2 executable" in done.stdout
    soda = path.read_text("utf-8").replace("engine: expressif", "engine: soda")
    path.write_text(soda, encoding="utf-8")
    other = packata("lint", str(path))  # another engine's custom rule keeps the schema's word
    assert "odcs-schema" in other.stdout and other.returncode == 3


def test_a_bad_payload_is_an_error_at_its_line(tmp_path: Path) -> None:
    implementation = json.dumps({"version": "1", "kind": "predicate", "scope": "value",
                                 "program": "positive | file-to-size"})
    path = _contract(tmp_path, _rule(implementation))
    done = packata("lint", str(path))
    assert done.returncode == 3
    line = next(i for i, text in enumerate(path.read_text("utf-8").splitlines(), 1)
                if "id: r" in text)
    assert f"{path}:{line}: error expressif-" in done.stdout
    assert "schema[0].properties[0].quality[0]" in done.stdout

"""A large contract costs one statement per object, built once (issue 26.3): `check` builds
no statement per rule and measures each rule once; `compile`'s per-rule SQL is built from the
rule's own plan and never leaves a tree another build reads; type names are parsed once and
each caller gets its own tree. Counts, not times: they do not depend on the machine's load."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
import sqlglot.expressions as exp
import yaml

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import COMPILE_DIALECTS, Family, data_type, get_dialect
from packata_sql.plans import planner
from packata_sql.plans.compiler import Plan, compile_contract
from packata_sql.plans.document import plan_document
from packata_sql.report import Status
from packata_sql.run import object_run
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "contract.yaml"
COLUMNS = 10
#: Ten row-reading rules on each of ten text columns (a hundred rules, one object).
QUALITY: list[dict[str, Any]] = [
    {"metric": "nullValues", "mustBe": 0},
    {"metric": "missingValues", "arguments": {"missingValues": ["", None]}, "mustBe": 0},
    {"metric": "invalidValues", "arguments": {"validValues": ["a", "b"]}, "mustBe": 0},
    {"metric": "invalidValues", "arguments": {"pattern": "^[ab]$"}, "mustBe": 0},
    {"metric": "duplicateValues", "mustBeGreaterThan": 0},
]
CONSTRAINTS = {"required": True, "logicalTypeOptions": {"minLength": 1, "maxLength": 1,
                                                         "pattern": "^[ab]$"}}
ROW_RULES = COLUMNS * (len(QUALITY) + 4)  # required, minLength, maxLength, pattern


def _counting(calls: list[int], real: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(real)
    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)
    return counted


def _wide(tmp_path: Path) -> tuple[Path, Path]:
    database = tmp_path / "wide.duckdb"
    connection = duckdb.connect(str(database))
    names = [f"c{i}" for i in range(COLUMNS)]
    connection.execute(f"CREATE TABLE wide ({', '.join(f'{n} VARCHAR' for n in names)})")
    connection.executemany(f"INSERT INTO wide VALUES ({', '.join('?' * COLUMNS)})",
                           [["a"] * COLUMNS, ["b"] * COLUMNS, ["a"] * COLUMNS])
    connection.close()
    properties = [{"name": name, "quality": [{"id": f"{name}_q{j}", **rule}
                                            for j, rule in enumerate(QUALITY)], **CONSTRAINTS}
                  for name in names]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "c", "version": "1",
        "status": "active", "schema": [{"name": "wide", "properties": properties}]}))
    return path, database


def test_a_100_rule_check_builds_one_statement_and_measures_each_rule_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path, database = _wide(tmp_path)
    contract = load_odcs(str(path))
    compiled = compile_contract(contract, get_dialect("duckdb"))
    assert len(compiled.plans) == ROW_RULES == 90
    scans: list[int] = []
    counts: list[int] = []
    monkeypatch.setattr(planner, "build_scan", _counting(scans, planner.build_scan))
    monkeypatch.setattr(object_run, "build_scan", _counting(scans, object_run.build_scan))
    monkeypatch.setattr(Plan, "count", _counting(counts, Plan.count))
    report = run(contract, compiled, Endpoint("duckdb", str(database)), RunOptions())
    assert {r.status for r in report.results} == {Status.PASSED}
    assert len(report.results) == 100  # the 90 row rules and the 10 columns' presence
    assert len(scans) == 1  # the object's fused scan, no statement per rule
    assert len(counts) == ROW_RULES  # each rule's count built once


def test_the_plan_document_is_the_same_when_built_again():
    """Nothing a build caches or rewrites in place (parsed types, the fused statement's
    aggregates) changes what the next build renders, on every engine, laid out or not."""
    contract = load_odcs(str(GOLDEN))
    for name in COMPILE_DIALECTS:
        dialect = get_dialect(name)
        compiled = compile_contract(contract, dialect)
        built = [plan_document(contract, compiled, dialect, pretty=pretty)
                 for pretty in (False, True, False, True)]
        assert built[0] == built[2] and built[1] == built[3], name
        assert built[0] != built[1]  # the laid-out SQL is another text of the same plans


def test_each_caller_gets_its_own_type_tree():
    first = data_type("DECIMAL(20, 6)")
    first.set("expressions", None)  # as a generator may, on the tree it renders
    first.set("this", exp.DataType.Type.TEXT)
    assert data_type("DECIMAL(20, 6)").sql() == "DECIMAL(20, 6)"
    assert data_type("VARCHAR") is not data_type("VARCHAR")
    assert data_type("VARCHAR") == exp.DataType.build("VARCHAR")


def test_repeated_aggregates_are_found_without_comparing_every_pair(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fused statement compares aggregates only where two share their shape: 80 rules
    none of whose aggregates repeat make a few hundred comparisons, not the ~25,000 of
    comparing every aggregate with every other."""
    path, _ = _wide(tmp_path)
    plans = [p for p in compile_contract(load_odcs(str(path)), get_dialect("duckdb")).plans
             if p.measure != "required"]  # required repeats nullValues' COUNT(column)
    compared: list[int] = []
    monkeypatch.setattr(exp.Expression, "__eq__", _counting(compared, exp.Expression.__eq__))
    families: dict[str, Family | None] = {f"c{i}": Family.TEXT for i in range(COLUMNS)}
    scan = planner.build_scan(("wide",), plans, get_dialect("duckdb"), families)
    assert len(scan.plans) == 80 and "packata_aggregates" not in scan.sql
    assert len(compared) < 1000
    shared = planner.build_scan(("wide",), plans + [p for p in compile_contract(
        load_odcs(str(path)), get_dialect("duckdb")).plans if p.measure == "required"],
        get_dialect("duckdb"), families)
    assert shared.sql.count('COUNT("c0")') == 1  # and a repeat is still found


def test_the_statement_handed_to_rendering_holds_each_node_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Rendering with copy=False takes the tree as it is: a node a handler placed twice (an
    invalidValues pattern reads its column three times) is split first, and every node's
    parent link is the place it is at, as a generator rewriting the tree expects."""
    path, _ = _wide(tmp_path)
    dialect = get_dialect("duckdb")
    plans = list(compile_contract(load_odcs(str(path)), dialect).plans)
    handed: list[exp.Expr] = []
    real = type(dialect).render

    def kept(self: Any, expression: exp.Expr, **options: Any) -> str:
        handed.append(expression)
        return real(self, expression, **options)

    monkeypatch.setattr(type(dialect), "render", kept)
    planner.build_scan(("wide",), plans, dialect, {f"c{i}": Family.TEXT for i in range(COLUMNS)})
    [statement] = handed
    places = [(node, parent) for parent in statement.walk()
              for node in parent.iter_expressions()]
    assert len({id(node) for node, _ in places}) == len(places) > 1000
    assert all(node.parent is parent for node, parent in places)

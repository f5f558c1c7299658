"""Expressif rules (ODCS `type: custom`, `engine: expressif`) run in the object's one fused
scan next to library metrics, on DuckDB and SQLite in-process (docs/semantics.md 3.5): value
and row programs count violating items, dataset accumulators are one scalar aggregate,
observation programs judge the caller's value; bad payloads are findings with the rule path
and line, and never accepted as descriptive."""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

import packata_sql
from packata_sql.report import Report, Status
from packata_sql.sessions.base import TimedSession

ENGINES = ["duckdb", "sqlite"]
# (id, amount, status): amount violates `positive` in rows 2 (-1), 3 (NULL) and 5 (0).
ROWS = [(1, "10.00", "new"), (2, "-1.00", "closed"), (3, None, "new"), (4, "5.50", None),
        (5, "0.00", "new")]


def payload(program: str, scope: str = "value", kind: str = "predicate") -> str:
    return json.dumps({"version": "1", "kind": kind, "scope": scope, "program": program})


def custom(rule_id: str, implementation: object, **more: object) -> dict[str, object]:
    return {"id": rule_id, "type": "custom", "engine": "expressif",
            "implementation": implementation, **more}


OBJECT_RULES = [
    {"id": "rows", "metric": "rowCount", "mustBe": 5},
    custom("row-positive", payload("[amount] |? positive", "row")),
    custom("row-ghost", payload("[ghost] |? positive", "row")),
    custom("total", payload("[amount] | sum", "dataset", "expression"), mustBeGreaterThan=10),
    custom("all-positive", payload("[amount] | positive | every", "dataset", "expression")),
    custom("any-positive", payload("[amount] | positive | any", "dataset", "expression")),
    custom("seen", payload("positive", "observation")),
]
AMOUNT_RULES = [
    {"id": "amount-nulls", "metric": "nullValues", "mustBe": 1},
    custom("amount-positive", payload("positive")),
    custom("amount-mostly-positive", payload("positive"), mustBeLessOrEqualTo=3),
    custom("amount-positive-share", payload("positive"), unit="percent", mustBe=60),
    custom("amount-as-mapping", {"version": "1", "kind": "predicate", "scope": "value",
                                 "program": "numeric-is-positive"}),
]
STATUS_RULES = [
    # An expression's expectation tests each item: |10.00| is not below 6, nor is
    # absolute(NULL), which is NULL (two-valued: the expectation does not hold).
    custom("amount-small", payload("[amount] | absolute", "row", "expression"), mustBeLessThan=6),
]
EXPECTED: dict[str, tuple[Status, object]] = {
    "rows": (Status.PASSED, 5),
    "row-positive": (Status.FAILED, 3),
    "row-ghost": (Status.INCONCLUSIVE, None),
    "total": (Status.PASSED, Fraction("14.5")),
    "all-positive": (Status.FAILED, False),
    "any-positive": (Status.PASSED, True),
    "seen": (Status.INCONCLUSIVE, None),
    "amount-nulls": (Status.PASSED, 1),
    "amount-positive": (Status.FAILED, 3),
    "amount-mostly-positive": (Status.PASSED, 3),
    "amount-positive-share": (Status.PASSED, 60),
    "amount-as-mapping": (Status.FAILED, 3),
    "amount-small": (Status.FAILED, 2),
}


def database(engine: str, tmp_path: Path, rows: list[tuple[Any, ...]] = ROWS) -> str:
    path = tmp_path / f"orders.{engine}"
    connection: Any = duckdb.connect(str(path)) if engine == "duckdb" else sqlite3.connect(path)
    amount = "DECIMAL(10, 2)" if engine == "duckdb" else "NUMERIC"
    connection.execute(f"CREATE TABLE orders (id INTEGER, amount {amount}, status TEXT)")
    if rows:
        connection.executemany("INSERT INTO orders VALUES (?, ?, ?)", rows)
    if engine == "sqlite":
        connection.commit()
    connection.close()
    return f"{engine}:///{path}"


def contract(tmp_path: Path, object_rules: list[Any] = OBJECT_RULES,
             amount_rules: list[Any] = AMOUNT_RULES, **top: object) -> Path:
    document = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "x", "version": "1.0.0",
        "status": "active", **top,
        "schema": [{"name": "orders", "quality": object_rules, "properties": [
            {"name": "id", "logicalType": "integer"},
            {"name": "amount", "logicalType": "number", "quality": amount_rules},
            {"name": "status", "logicalType": "string", "quality": STATUS_RULES}]}]}
    path = tmp_path / "orders.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def counted_run(monkeypatch: pytest.MonkeyPatch, *args: Any, **options: Any
                ) -> tuple[Report, list[str]]:
    """The report and every generated statement the run sent (the real engine runs each)."""
    sent: list[str] = []
    real = TimedSession.fetch_row

    def fetch_row(self: TimedSession, sql: str, limit_s: float,
                  parameters: Any = None) -> tuple[Any, ...]:
        sent.append(sql)
        return real(self, sql, limit_s, parameters)

    monkeypatch.setattr(TimedSession, "fetch_row", fetch_row)
    return packata_sql.check(*args, categories=("quality",), **options), sent


@pytest.mark.parametrize("engine", ENGINES)
def test_value_row_and_dataset_rules_share_the_scan_with_library_metrics(
        engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = database(engine, tmp_path)
    loaded = packata_sql.load(str(contract(tmp_path)))
    report, sent = counted_run(monkeypatch, loaded, url)
    found = {r.key: (r.status, r.value) for r in report.results}
    assert found == EXPECTED
    assert len(sent) == 1  # one scan for the object; the observation without a value sends none
    assert sent[0].count(' FROM "orders"') == 1
    by_key = {r.key: r for r in report.results}
    assert by_key["row-ghost"].diagnostic.code == "missing-column"
    assert by_key["seen"].diagnostic.code == "no-observation"
    assert by_key["amount-positive"].expectation == "= 0"  # the predicate's default
    assert by_key["amount-positive"].kind == "expressif"
    assert by_key["amount-positive"].inspect_sql is not None


@pytest.mark.parametrize("engine", ENGINES)
def test_an_empty_object_leaves_value_and_row_rules_inconclusive(
        engine: str, tmp_path: Path) -> None:
    url = database(engine, tmp_path, rows=[])
    loaded = packata_sql.load(str(contract(tmp_path)))
    found = {r.key: (r.status, r.value, r.diagnostic.code if r.diagnostic else None)
             for r in packata_sql.check(loaded, url, categories=("quality",)).results}
    assert found["amount-positive"] == (Status.INCONCLUSIVE, None, "empty-population")
    assert found["row-positive"] == (Status.INCONCLUSIVE, None, "empty-population")
    assert found["amount-small"] == (Status.INCONCLUSIVE, None, "empty-population")
    assert found["total"] == (Status.INCONCLUSIVE, None, "null-result")  # SUM of no row
    assert found["all-positive"][:2] == (Status.PASSED, True)  # every of nothing holds
    assert found["rows"][:2] == (Status.FAILED, 0)


@pytest.mark.parametrize(("value", "status"), [(3, Status.PASSED), (Decimal("-0.5"), Status.FAILED),
                                               (0, Status.FAILED)])
def test_an_observation_judges_the_value_the_caller_supplies(
        tmp_path: Path, value: object, status: Status) -> None:
    url = database("duckdb", tmp_path)
    loaded = packata_sql.load(str(contract(tmp_path)))
    report = packata_sql.check(loaded, url, select=("seen",), observations={"seen": value})
    assert [(r.key, r.status, r.value) for r in report.results] == \
        [("seen", status, status is Status.PASSED)]


def test_variables_bind_rule_arguments_and_run_parameters_through_the_driver(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = database("sqlite", tmp_path)
    rules = [custom("above-min", payload("greater-than(@min)"), arguments={"min": 5}),
             custom("above-floor", payload("greater-than(@floor)"))]
    loaded = packata_sql.load(str(contract(tmp_path, [], rules)))
    report, sent = counted_run(monkeypatch, loaded, url, parameters={"floor": -2})
    found = {r.key: (r.status, r.value) for r in report.results}
    assert found["above-min"] == (Status.FAILED, 3)  # 10.00 and 5.50 are above 5
    assert found["above-floor"] == (Status.FAILED, 1)  # NULL is not above anything
    assert len(sent) == 1 and "5" not in sent[0] and "-2" not in sent[0] and "?" in sent[0]
    skipped = packata_sql.check(loaded, url, categories=("quality",))
    missing = {r.key: r.diagnostic.code for r in skipped.results if r.diagnostic}
    assert missing["above-floor"] == "missing-parameter"


BAD = {
    "malformed": ("{not json", "expressif-payload"),
    "version-2": (json.dumps({"version": "2", "kind": "predicate", "scope": "value",
                              "program": "positive"}), "expressif-version"),
    "kind": (json.dumps({"version": "1", "kind": "guess", "scope": "value",
                         "program": "positive"}), "expressif-payload"),
    "first": (payload("[amount] | first", "dataset", "expression"), "expressif-unsupported"),
    "io": (payload("file-to-size", kind="expression"), None),
    "object-value": (payload("positive"), "expressif-scope"),
    "expression-alone": (payload("[amount] | sum", "dataset", "expression"),
                         "expressif-no-expectation"),
    "missing": (None, "invalid-implementation"),
}


def test_bad_payloads_are_findings_with_the_rule_path_and_line(tmp_path: Path) -> None:
    rules = [{"id": name, "type": "custom", "engine": "expressif",
              **({"implementation": text} if text is not None else {}),
              **({"mustBeGreaterThan": 0} if name == "io" else {})}
             for name, (text, _) in BAD.items()]
    rules.append({"id": "rows", "metric": "rowCount", "mustBe": 5})
    path = contract(tmp_path, rules, [])
    loaded = packata_sql.load(str(path))
    plans = packata_sql.compile(loaded, "duckdb")
    findings = {f.rule_key: f for f in plans.findings if f.rule_key in BAD}
    assert set(findings) == set(BAD)
    lines = path.read_text("utf-8").splitlines()
    for name, (_, code) in BAD.items():
        finding = findings[name]
        if code is not None:
            assert finding.code == code, name
        assert finding.code.startswith(("expressif-", "invalid-")), name
        assert finding.source_path.startswith("schema[0].quality["), name
        assert finding.line is not None and f"id: {name}" in lines[finding.line - 1], name
    assert "'size'" in findings["io"].message  # the operation is named
    report = packata_sql.check(loaded, database("duckdb", tmp_path), categories=("quality",))
    statuses = {r.key: r.status for r in report.results}
    assert statuses["rows"] is Status.PASSED  # a finding never stops the other rules
    assert {statuses[name] for name in BAD} == {Status.SKIPPED}


def test_accept_unexecutable_never_accepts_an_expressif_rule(tmp_path: Path) -> None:
    rules = [{"id": "rows", "metric": "rowCount", "mustBe": 5},
             {"id": "soda", "type": "custom", "engine": "soda", "implementation": "x"},
             custom("broken", "{not json"), custom("Upper", payload("positive", "row")),
             {"id": "capital", "type": "custom", "engine": "Expressif",
              "implementation": payload("[amount] |? positive", "row"), "mustBe": 3}]
    loaded = packata_sql.load(str(contract(tmp_path, rules, [])))
    report = packata_sql.check(loaded, database("duckdb", tmp_path),
                               select=tuple(str(r["id"]) for r in rules), accept_unexecutable=True)
    found = {r.key: (r.status, r.descriptive) for r in report.results}
    assert found["soda"] == (Status.SKIPPED, True)
    assert found["broken"] == (Status.SKIPPED, False)
    assert found["Upper"] == (Status.SKIPPED, False)  # a row program names no [field]
    assert found["capital"] == (Status.PASSED, False)  # the engine name's case does not matter
    assert report.outcome.value == "incomplete"
    assert report.exit_code() == 2


def test_the_formats_page_example_reports_what_the_page_says(tmp_path: Path) -> None:
    """docs/formats.md "Expressif rules": its contract on its rows, on DuckDB."""
    import re

    page = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text("utf-8")
    section = page[page.index("### Expressif rules"):]
    block = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert block is not None
    path = tmp_path / "orders.yaml"
    path.write_text("apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\n"
                    "status: active\n" + block.group(1), encoding="utf-8")
    url = database("duckdb", tmp_path, rows=[(i, a, None) for i, a in enumerate(
        ["10.00", "-1.00", None, "5.50", "0.00"])])
    report = packata_sql.check(packata_sql.load(str(path)), url, categories=("quality",))
    assert {r.key: (r.status, r.value) for r in report.results} == {
        "positive-rows": (Status.FAILED, 3), "amount-positive": (Status.FAILED, 3),
        "total": (Status.PASSED, Fraction("14.5")), "above-minimum": (Status.PASSED, 3)}
    assert "(the test runs it)" in section[:section.index("- `version`")]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_text_value_against_a_numeric_expectation_is_a_finding(
        engine: str, tmp_path: Path) -> None:
    """No silent cast between text and numbers: an expression computing text, judged by a
    numeric expectation, is refused at compilation (SQLite included, whose cells have no
    declared type); the same text measured by `length` runs."""
    rules = [custom("lowered", payload("[status] | null-to-empty", "row", "expression"),
                    mustBe=3),
             custom("widest", payload("[status] | null-to-empty | max", "dataset",
                                      "expression"), mustBeGreaterThan=0),
             custom("told", payload("null-to-empty", "observation", "expression"), mustBe=3),
             custom("counted", payload("[status] | count-substring(e)", "row", "expression"),
                    mustBeGreaterThan=0)]
    loaded = packata_sql.load(str(contract(tmp_path, rules, [])))
    plans = packata_sql.compile(loaded, engine)
    keys = ("lowered", "widest", "told", "counted")
    findings = {f.rule_key: f for f in plans.findings if f.rule_key in keys}
    assert {key: f.code for key, f in findings.items()} == {
        "lowered": "expressif-type", "widest": "expressif-type", "told": "expressif-type"}
    assert "computes text" in findings["lowered"].message
    report = packata_sql.check(loaded, database(engine, tmp_path), select=keys)
    found = {r.key: (r.status, r.value) for r in report.results}
    assert found["lowered"][0] is Status.SKIPPED and found["widest"][0] is Status.SKIPPED
    assert found["counted"] == (Status.FAILED, 1)  # only the NULL status holds no 'e'


def test_an_observation_the_engine_cannot_render_is_a_finding_not_a_traceback(
        tmp_path: Path) -> None:
    rules = [custom("told", payload("lower | length", "observation", "expression"), mustBe=5)]
    plans = packata_sql.compile(packata_sql.load(str(contract(tmp_path, rules, []))), "sqlite")
    assert [(f.rule_key, f.code) for f in plans.findings] == [
        ("told", "expressif-unsupported-on-engine")]

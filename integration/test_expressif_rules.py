"""A contract mixing Expressif value, row and dataset rules with library metrics measures the
same on DuckDB, SQLite, PostgreSQL, MariaDB and Spark, in one statement per object
(docs/semantics.md 3.5). The object is read through the odd-named view of
test_differential_metrics (a space, quotes, a dot and a backtick), the amount column is named
`a"m``t` and reached through the property's physicalName, and a variable is bound through
each driver's own parameter style (Spark by name)."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from integration.test_differential_metrics import ENGINES, Dataset, build, contract_file
from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.base import TimedSession

__all__ = ["build"]  # the fixture, shared with the differential metrics

AMOUNT = 'a"m`t'
DATA = Dataset({"id": "int", AMOUNT: "money", "status": "text"}, [
    (1, Decimal("10.00"), "new"), (2, Decimal("-1.00"), "closed"), (3, None, "new"),
    (4, Decimal("5.50"), None), (5, Decimal("0.00"), "new"), (6, Decimal("2.25"), "N/A"),
])


def payload(program: str, scope: str = "value", kind: str = "predicate") -> str:
    return json.dumps({"version": "1", "kind": kind, "scope": scope, "program": program})


def custom(rule_id: str, implementation: str, **more: Any) -> dict[str, Any]:
    return {"id": rule_id, "type": "custom", "engine": "expressif",
            "implementation": implementation, **more}


PROPERTIES = [
    {"name": "id", "logicalType": "integer"},
    {"name": "amount", "physicalName": AMOUNT, "logicalType": "number", "quality": [
        {"id": "amount-nulls", "metric": "nullValues", "mustBe": 1},
        custom("amount-positive", payload("positive")),
        custom("amount-mostly-positive", payload("positive"), mustBeLessOrEqualTo=3),
        custom("amount-above-min", payload("greater-than(@min)"), arguments={"min": 2}),
        custom("amount-small", payload("absolute", kind="expression"), mustBeLessThan=6),
    ]},
    {"name": "status", "logicalType": "string", "quality": [
        {"id": "status-known", "metric": "invalidValues",
         "arguments": {"validValues": ["new", "closed"]}, "mustBe": 2},
        custom("status-tagged", payload("count-substring(e)", kind="expression"), mustBe=1),
    ]},
]
OBJECT_RULES = [
    {"id": "rows", "metric": "rowCount", "mustBe": 6},
    custom("row-positive", payload("[amount] |? positive", "row")),
    custom("total", payload("[amount] | sum", "dataset", "expression"), mustBeGreaterThan=16),
    custom("largest", payload("[amount] | max", "dataset", "expression"), mustBe=10),
    custom("counted", payload("[id] | count", "dataset", "expression"), mustBe=6),
    custom("all-positive", payload("[amount] | positive | every", "dataset", "expression")),
    custom("any-positive", payload("[amount] | positive | any", "dataset", "expression")),
]
EXPECTED: dict[str, tuple[Status, object]] = {
    "rows": (Status.PASSED, 6),
    "amount-nulls": (Status.PASSED, 1),
    "amount-positive": (Status.FAILED, 3),  # -1.00, NULL (two-valued: false), 0.00
    "amount-mostly-positive": (Status.PASSED, 3),
    "amount-above-min": (Status.FAILED, 3),  # 10.00, 5.50 and 2.25 are above 2
    "status-known": (Status.PASSED, 2),  # NULL, 'N/A'
    "status-tagged": (Status.FAILED, 2),  # NULL and 'N/A' hold no 'e'
    "amount-small": (Status.FAILED, 2),  # |10.00| and absolute(NULL), which is NULL
    "row-positive": (Status.FAILED, 3),
    "total": (Status.PASSED, Fraction("16.75")),
    "largest": (Status.PASSED, 10),
    "counted": (Status.PASSED, 6),
    "all-positive": (Status.FAILED, False),
    "any-positive": (Status.PASSED, True),
}


@pytest.mark.parametrize("engine", ENGINES)
def test_expressif_and_library_rules_measure_the_same_in_one_statement(
        engine: str, build: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = build(engine, DATA)
    contract = load_odcs(str(contract_file(tmp_path / "c.yaml", built.name, PROPERTIES,
                                           OBJECT_RULES)))
    compiled = compile_contract(contract, get_dialect(engine), prefix=built.endpoint.schema,
                                categories=[Category.QUALITY])
    assert not compiled.blocked
    sent: list[str] = []
    real = TimedSession.fetch_row

    def fetch_row(self: TimedSession, sql: str, limit_s: float,
                  parameters: Any = None) -> tuple[Any, ...]:
        sent.append(sql)
        return real(self, sql, limit_s, parameters)

    monkeypatch.setattr(TimedSession, "fetch_row", fetch_row)
    report = run(contract, compiled, built.endpoint, RunOptions())
    found = {r.key: (r.status, r.value) for r in report.results}
    assert found == EXPECTED
    assert len(sent) == 1  # one statement for the object: every rule is a column of it
    assert all(r.fused for r in report.results)


IN_BAND = Dataset({"id": "int", "label": "text", "note": "text"}, [
    (1, "new", "(null)"), (2, "(555) 123", " (Empty)\t"), (3, None, "(anything)"),
    (4, "N/A", "(BLANK)"), (5, "", "plain"),
])
IN_BAND_PROPERTIES = [
    {"name": "id", "logicalType": "integer", "quality": [
        custom("id-positive", payload("positive")),
    ]},
    {"name": "label", "logicalType": "string", "quality": [
        custom("label-fives", payload("count-substring(5)", kind="expression"), mustBe=0),
    ]},
    {"name": "note", "logicalType": "string", "quality": [
        custom("note-es", payload("count-substring(e)", kind="expression"), mustBeLessThan=2),
        custom("note-null", payload("null")),
    ]},
]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_text_cell_the_language_reads_as_a_keyword_leaves_the_rule_inconclusive(
        engine: str, build: Any, tmp_path: Path) -> None:
    """Expressif reads `(null)`, `(empty)`, `(blank)` (any case, white space around) as
    NULL, empty and blank, and its text functions leave any other parenthesised text unread
    (`count-substring` of it is NULL): a count over such cells would not be the language's, so the
    rule is inconclusive; `(555) 123` is text, and rules on other columns are measured."""
    built = build(engine, IN_BAND)
    contract = load_odcs(str(contract_file(tmp_path / "c.yaml", built.name, IN_BAND_PROPERTIES)))
    compiled = compile_contract(contract, get_dialect(engine), prefix=built.endpoint.schema,
                                categories=[Category.QUALITY])
    report = run(contract, compiled, built.endpoint, RunOptions())
    found = {r.key: (r.status, r.value, r.diagnostic.code if r.diagnostic else None)
             for r in report.results}
    assert found == {
        "id-positive": (Status.PASSED, 0, None),
        "label-fives": (Status.FAILED, 1, None),  # '(555) 123' is text, with three 5s
        "note-es": (Status.INCONCLUSIVE, None, "expressif-in-band-value"),
        "note-null": (Status.INCONCLUSIVE, None, "expressif-in-band-value"),
    }

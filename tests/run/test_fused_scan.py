"""The fused scan computes an aggregate that several measurements repeat once, and keeps the
plain statement otherwise; both run on DuckDB with the same counts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import duckdb
import sqlglot
import sqlglot.expressions as exp

from packata_sql.catalog import MeasureContext
from packata_sql.catalog.constraints import ConstraintHandler
from packata_sql.contracts.model import Constraint, Rule
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import DistinctPlan, Family, get_dialect
from packata_sql.plans.compiler import Plan, compile_contract
from packata_sql.plans.planner import build_scan

CONTRACT = """apiVersion: v3.1.0
kind: DataContract
id: t
version: 1.0.0
status: active
schema:
  - name: t
    properties:
      - name: c
        logicalType: string
        required: true
        unique: true
        quality:
          - {metric: nullValues, mustBe: 0}
          - {metric: duplicateValues, mustBe: 0}
"""
ROWS = ["a", "a", None, "b", None]
DUCKDB = get_dialect("duckdb")


def plans(tmp_path: Path) -> list[Plan]:
    path = tmp_path / "contract.yaml"
    path.write_text(CONTRACT, encoding="utf-8")
    compiled = compile_contract(load_odcs(str(path)), DUCKDB)
    return [p for p in compiled.plans if isinstance(p, Plan)]


def measured(sql: str) -> tuple[int, ...]:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (c VARCHAR)")
    connection.executemany("INSERT INTO t VALUES (?)", [(v,) for v in ROWS])
    row = connection.execute(sql).fetchone()
    assert row is not None
    return tuple(row)


def test_repeated_aggregates_are_computed_once_with_the_same_counts(tmp_path):
    families = {"c": Family.TEXT}
    shared = build_scan(("t",), plans(tmp_path), DUCKDB, families)
    flat = build_scan(("t",), plans(tmp_path), DUCKDB, families, share_aggregates=False)
    assert [p.measure for p in shared.plans] == ["nullValues", "duplicateValues", "required",
                                                 "unique"]
    # rows 5; nulls 2; duplicates 5 - 2 distinct - 1 NULL key; required 2; unique 3 - 2.
    assert measured(shared.sql) == measured(flat.sql) == (5, 2, 2, 2, 1)
    assert shared.sql.count("COUNT(DISTINCT") == 1 and flat.sql.count("COUNT(DISTINCT") == 2
    assert shared.sql.count('COUNT("c")') == 1 and flat.sql.count('COUNT("c")') == 3


def test_without_repeats_the_statement_stays_plain(tmp_path):
    families = {"c": Family.TEXT}
    plain = [p for p in plans(tmp_path) if p.measure in ("nullValues", "unique")]
    # COUNT(*) alone repeats (rows and nullValues): nothing to share.
    assert build_scan(("t",), plain[:1], DUCKDB, families).sql == (
        'SELECT COUNT(*) AS "packata_rows", COUNT(*) - COUNT("c") AS "m1" FROM "t"')


class _BitOr(ConstraintHandler):
    """An aggregate the planner does not know as one (an engine function by name)."""

    kind = "required"

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        length = exp.Length(this=context.column(columns[0]))
        return exp.Sub(this=exp.Count(this=context.column(columns[0])),
                       expression=exp.Anonymous(this="BIT_OR", expressions=[length]))


def test_an_unrecognised_aggregate_keeps_the_plain_statement(tmp_path):
    required = next(p for p in plans(tmp_path) if p.measure == "required")
    odd = dataclasses.replace(required, handler=_BitOr())
    scan = build_scan(("t",), [required, odd], DUCKDB, {"c": Family.TEXT})
    # COUNT("c") repeats, but BIT_OR would be left outside the inner SELECT: kept plain.
    assert "packata_aggregates" not in scan.sql
    assert measured(scan.sql) == (5, 2, 2)  # 3 values of length 1: BIT_OR is 1


class _InAggregate(type(DUCKDB)):  # type: ignore[misc]
    """DuckDB with every distinct count left in the scan's aggregate."""

    @property
    def distinct_plan(self) -> DistinctPlan:
        return DistinctPlan.SUBQUERY


def test_duckdb_counts_each_distinct_key_in_a_scalar_subquery_with_the_same_counts(tmp_path):
    families = {"c": Family.TEXT}
    apart = build_scan(("t",), plans(tmp_path), DUCKDB, families)
    in_aggregate = build_scan(("t",), plans(tmp_path), _InAggregate(), families)
    statement = sqlglot.parse_one(apart.sql, read="duckdb")
    distinct = [n for n in statement.find_all(exp.Count) if isinstance(n.this, exp.Distinct)]
    # One COUNT(DISTINCT), shared by duplicateValues and unique, alone in a subquery on `t`.
    assert len(distinct) == 1
    assert isinstance(distinct[0].parent, exp.Select)
    assert isinstance(distinct[0].parent.parent, exp.Subquery)
    assert distinct[0].parent.args["from_"].this.name == "t"
    assert "(SELECT COUNT(DISTINCT" not in in_aggregate.sql
    assert measured(apart.sql) == measured(in_aggregate.sql) == (5, 2, 2, 2, 1)

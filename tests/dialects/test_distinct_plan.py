"""Each dialect names how its scans count distinct keys (`Dialect.distinct_plan`); what each
plan counts is proven on the engines themselves (integration/test_distinct_plans.py)."""

from __future__ import annotations

from packata_sql.dialects import DistinctPlan, get_dialect
from packata_sql.engines import names


def test_every_dialect_has_a_plan_and_spark_counts_keys_apart():
    plans = {name: get_dialect(name).distinct_plan for name in names()}
    assert all(isinstance(plan, DistinctPlan) for plan in plans.values())
    assert {n for n, p in plans.items() if p is DistinctPlan.APART} == {"spark", "databricks"}
    assert {n for n, p in plans.items() if p is DistinctPlan.IN_AGGREGATE} == {"mysql"}
    assert {n for n, p in plans.items() if p is DistinctPlan.SCALAR_SUBQUERIES} == {"duckdb"}

"""Each dialect names how its scans count distinct keys (`Dialect.distinct_plan`); MySQL's
depends on the collation its server has. What each plan counts is proven on the engines
themselves (integration/test_distinct_plans.py)."""

from __future__ import annotations

import sqlglot.expressions as exp

from packata_sql.dialects import DistinctPlan, get_dialect
from packata_sql.dialects.mysql import MySQL
from packata_sql.engines import names


def test_every_dialect_has_a_plan_and_spark_counts_keys_apart():
    plans = {name: get_dialect(name).distinct_plan for name in names()}
    assert all(isinstance(plan, DistinctPlan) for plan in plans.values())
    assert {n for n, p in plans.items() if p is DistinctPlan.APART} == {"spark", "databricks"}
    assert {n for n, p in plans.items() if p is DistinctPlan.IN_AGGREGATE} == {"mysql"}


def test_mysql_keys_follow_the_servers_no_pad_collation():
    column = exp.column("k", quoted=True)
    mysql8 = MySQL()
    mysql8.key_collation = "utf8mb4_0900_bin"
    assert mysql8.render(mysql8.binary_key(column)) == \
        "CONVERT(`k` USING utf8mb4) COLLATE utf8mb4_0900_bin"
    assert mysql8.distinct_plan is DistinctPlan.IN_AGGREGATE
    old = MySQL()
    old.key_collation = None  # MySQL 5.7: no NO PAD collation
    assert old.render(old.binary_key(column)) == "CAST(`k` AS BINARY)"
    assert old.distinct_plan is DistinctPlan.SUBQUERY

"""The Spark row of the benchmarks (issue 15): on a Spark Connect server, the plan packata-sql
chooses for Spark (non-distinct metrics fused, one statement per distinct key) against the
naive single fused statement and one statement per rule, over the 13 rules of `run.py` on an
`events` table of N rows built in Spark. Not run in CI (one fused statement takes tens of
seconds at 1M rows on 2 cores). `make bench` (benchmarks/run.py) runs it as its Spark row.

Usage: python benchmarks/spark.py --url 'sc://localhost:15002/;token=…' [--rows 1000000]
       [--runs 1]   (or PACKATA_TEST_SPARK_URL; `bash .ci/spark.sh start` starts a server)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from contract import PATTERN, RULES, contract_document

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.plans.planner import build_scan, declared_families, group_by_object, plan_scans
from packata_sql.sessions.base import open_session
from packata_sql.sessions.endpoint import parse_url

DATABASE = "packata_bench"
BUILD = """
CREATE TABLE {database}.events USING parquet AS
SELECT
    id,
    (id * 7919) % {half} AS user_id,
    md5(CAST(id AS STRING)) AS session_id,
    CASE WHEN id % 97 = 0 THEN NULL WHEN id % 89 = 0 THEN 'bad-email'
         ELSE concat('user', CAST(id % 50000 AS STRING), '@example.com') END AS email,
    element_at(array('DE', 'FR', 'GB', 'US', 'NL', 'XX'), CAST(1 + id % 6 AS INT)) AS country,
    CASE WHEN id % 53 = 0 THEN '' WHEN id % 7 = 0 THEN 'inactive' ELSE 'active' END AS status,
    CASE WHEN id % 101 = 0 THEN NULL ELSE CAST((id % 100000) / 100 AS DECIMAL(12, 2)) END AS amount
FROM range({rows})
"""


def build(url: str, rows: int) -> None:
    from pyspark.sql.connect.session import SparkSession

    admin = SparkSession.builder.remote(url).create()
    try:
        admin.sql(f"CREATE DATABASE IF NOT EXISTS {DATABASE}")
        admin.sql(f"DROP TABLE IF EXISTS {DATABASE}.events")
        admin.sql(BUILD.format(database=DATABASE, rows=rows, half=max(rows // 2, 1)))
    finally:
        admin.stop()


def statements(contract: Path) -> dict[str, list[str]]:
    """The three plans' statements, from packata-sql's own planner."""
    dialect = get_dialect("spark")
    loaded = load_odcs(str(contract))
    compiled = compile_contract(loaded, dialect, prefix=(DATABASE,))
    families = declared_families(compiled.plans, dialect)
    plans: dict[str, list[str]] = {"chosen (Spark plan)": [], "naive fused": [], "per rule": []}
    for segments, group in group_by_object(compiled.plans):
        plans["chosen (Spark plan)"] += [s.sql for s in plan_scans(segments, group, dialect, families)]
        plans["naive fused"].append(build_scan(segments, group, dialect, families).sql)
        plans["per rule"] += [build_scan(segments, [p], dialect, families).sql for p in group]
    return plans


#: `more_distinct`: duplicate checks on three more columns, so that the object has
#: `planner.SPLIT_FROM` single-column distinct keys or more and the Spark plan splits them.
MORE_DISTINCT = ("email", "country", "status")


def measure(url: str, rows: int, runs: int, more_distinct: bool = False, build_table: bool = True
            ) -> tuple[dict[str, float], dict[str, list[str]]]:
    """Median seconds of each plan over `runs` runs, and the plans' statements."""
    if build_table:
        started = time.perf_counter()
        build(url, rows)
        print(f"built {rows} rows in Spark in {time.perf_counter() - started:.1f} s "
              f"(pattern {PATTERN})")
    with tempfile.TemporaryDirectory() as work:
        contract = Path(work) / "contract.yaml"
        document = contract_document(Path(work) / "unused.duckdb")
        del document["servers"]
        if more_distinct:
            for prop in document["schema"][0]["properties"]:
                if prop["name"] in MORE_DISTINCT:
                    prop.setdefault("quality", []).append(
                        {"id": f"{prop['name']}_unique", "metric": "duplicateValues",
                         "mustBeLessThan": rows})
        contract.write_text(yaml.safe_dump(document), encoding="utf-8")
        plans = statements(contract)
    session = open_session(parse_url(url), trust_environment=False)
    try:
        session.fetch_row(f"SELECT COUNT(*) FROM {DATABASE}.events", 600)  # warm the cache
        samples: dict[str, list[float]] = {name: [] for name in plans}
        order = list(plans.items())
        for index in range(runs):  # interleaved, the order reversed every other round
            for name, sqls in order if index % 2 == 0 else order[::-1]:
                begun = time.perf_counter()
                for sql in sqls:
                    session.fetch_row(sql, 3600)
                samples[name].append(time.perf_counter() - begun)
        results = {name: statistics.median(times) for name, times in samples.items()}
    finally:
        session.close()
    return results, plans


def print_table(rows: int, runs: int, results: dict[str, float],
                plans: dict[str, list[str]], more_distinct: bool = False) -> None:
    chosen = results["chosen (Spark plan)"]
    extra = (f" + duplicate checks on {', '.join(MORE_DISTINCT)} (5 single-column distinct keys)"
             if more_distinct else " (2 single-column distinct keys and a composite)")
    print(f"\n{rows:,} rows, Spark (Spark Connect), {len(RULES)} library rules{extra}, "
          f"median of {runs} run(s)")
    print("| plan | statements | seconds | × chosen |\n|---|---|---|---|")
    for name, seconds in results.items():
        print(f"| {name} | {len(plans[name])} | {seconds:.1f} | {seconds / chosen:.2f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("PACKATA_TEST_SPARK_URL"))
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--more-distinct", action="store_true",
                        help=f"add duplicate checks on {', '.join(MORE_DISTINCT)}")
    args = parser.parse_args()
    if not args.url:
        parser.error("give --url (a Spark Connect URL) or set PACKATA_TEST_SPARK_URL")
    results, plans = measure(args.url, args.rows, args.runs, args.more_distinct)
    print_table(args.rows, args.runs, results, plans, args.more_distinct)
    return 0


if __name__ == "__main__":
    sys.exit(main())

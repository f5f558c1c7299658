"""The distinct-key plan on MariaDB/MySQL (issue 26.1): the statement packata-sql runs for
`make bench`'s 13 library rules (`contract.py`; a composite `duplicateValues` and two
single-column ones) against the fastest hand-written floor, alternated in one process through
packata-sql's own session, so both see the same load and buffer state run after run.

Variants: the floor with the composite key inside the aggregate (`COUNT(DISTINCT user_id,
session_id)`, the fastest hand-written form on MariaDB at 1M rows), packata-sql's statement as
the dialect plans it (in the aggregate), and with `--all` the floor with the composite key in a
`SELECT DISTINCT` subquery and packata-sql's statement as planned before (that subquery).
Prints wall seconds (median, min; the work is the server's, so this process's CPU means
nothing) and the ratio to the fastest floor: the median of the per-run ratios (each run's
variants side by side) and the ratio of medians.

Usage: python benchmarks/distinct_plans.py --mysql-url mysql://root@127.0.0.1/scratch
           [--rows 1000000] [--runs 5] [--all] [--utf8mb3] [--keep]
It builds `bench_keys` in that database (utf8mb4 VARCHAR columns; `--utf8mb3`: CREATE TABLE …
AS SELECT, whose text columns MariaDB makes utf8mb3, as constraints.py's table) and drops it
afterwards unless `--keep` (kept, it is reused when it has the rows asked for). The login
is not enforced read-only: use a scratch database.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contract as bench  # the bench contract

from packata_sql import api
from packata_sql.contracts.model import Category
from packata_sql.dialects import DistinctPlan
from packata_sql.dialects.mysql import MySQL
from packata_sql.plans.compiler import Plan, compile_contract
from packata_sql.plans.planner import group_by_object, plan_scans
from packata_sql.sessions.base import Session, open_session
from packata_sql.sessions.endpoint import parse_url

TABLE = "bench_keys"
_VALUES = """SELECT seq, (seq * 7919) % {half}, md5(seq),
       CASE WHEN seq % 97 = 0 THEN NULL WHEN seq % 89 = 0 THEN 'bad-email'
            ELSE CONCAT('user', seq % 50000, '@example.com') END,
       ELT(1 + seq % 6, 'DE', 'FR', 'GB', 'US', 'NL', 'XX'),
       CASE WHEN seq % 53 = 0 THEN '' WHEN seq % 7 = 0 THEN 'inactive' ELSE 'active' END,
       CASE WHEN seq % 101 = 0 THEN NULL ELSE CAST((seq % 100000) / 100 AS DECIMAL(12, 2)) END
FROM seq_0_to_{last}"""
COLUMNS = ("id", "user_id", "session_id", "email", "country", "status", "amount")
UTF8MB4 = (f"CREATE TABLE {TABLE} (id BIGINT, user_id BIGINT, session_id VARCHAR(32),"
           " email VARCHAR(64), country VARCHAR(2), status VARCHAR(16), amount DECIMAL(12, 2))"
           " DEFAULT CHARSET = utf8mb4")
#: contract.FLOOR in MariaDB's SQL: the same 13 numbers.
_FLOOR = f"""SELECT COUNT(*), COUNT(*) - COUNT(DISTINCT id), COUNT(*) - COUNT(DISTINCT session_id),
       COUNT(*) - {{pair}}, COUNT(*) - COUNT(email),
       SUM(email IS NULL OR NOT email REGEXP '^[a-z0-9.]+@[a-z]+\\\\.[a-z]{{{{2,}}}}$'),
       SUM(country IS NULL OR country NOT IN ('DE', 'FR', 'GB', 'US', 'NL')),
       SUM(status = '' OR status IS NULL),
       SUM(status IS NULL OR status NOT IN ('active', 'inactive', '')),
       COUNT(*) - COUNT(amount), COUNT(*) - COUNT(user_id), COUNT(*) - COUNT(country),
       COUNT(*) - COUNT(id)
FROM {TABLE}"""
FLOOR_IN_AGGREGATE = _FLOOR.format(pair="COUNT(DISTINCT user_id, session_id)")
FLOOR_SUBQUERY = _FLOOR.format(
    pair=f"(SELECT COUNT(*) FROM (SELECT DISTINCT user_id, session_id FROM {TABLE}) k)")


def build(cursor: Any, rows: int, utf8mb3: bool, keep: bool) -> None:
    if keep:
        cursor.execute("SELECT COUNT(*) FROM information_schema.tables"
                       " WHERE table_schema = DATABASE() AND table_name = %s", [TABLE])
        if cursor.fetchall()[0][0]:
            cursor.execute(f"SELECT COUNT(*) FROM {TABLE}")
            if cursor.fetchall()[0][0] == rows:
                return
    values = _VALUES.format(half=max(rows // 2, 1), last=rows - 1)
    cursor.execute(f"DROP TABLE IF EXISTS {TABLE}")
    if utf8mb3:
        named = values.replace("SELECT seq,", "SELECT seq AS id,", 1)
        cursor.execute(f"CREATE TABLE {TABLE} AS SELECT * FROM ({named}) AS v")
        cursor.execute(f"ALTER TABLE {TABLE} " + ", ".join(
            f"RENAME COLUMN `{old}` TO {new}" for old, new in _generated_names(cursor)))
    else:
        cursor.execute(UTF8MB4)
        cursor.execute(f"INSERT INTO {TABLE} ({', '.join(COLUMNS)}) {values}")
    cursor.execute(f"ANALYZE TABLE {TABLE}")
    cursor.fetchall()


def _generated_names(cursor: Any) -> list[tuple[str, str]]:
    cursor.execute("SELECT column_name FROM information_schema.columns WHERE table_schema ="
                   " DATABASE() AND table_name = %s ORDER BY ordinal_position", [TABLE])
    return [(str(old), new) for (old,), new in zip(cursor.fetchall(), COLUMNS, strict=True)
            if str(old) != new]


class _SubqueryPlan(MySQL):
    """MySQL as planned before issue 26: composite keys in a SELECT DISTINCT subquery."""

    @property
    def distinct_plan(self) -> DistinctPlan:
        return DistinctPlan.SUBQUERY


def packata_statement(session: Session, contract: Path, before: bool) -> str:
    """The one scan packata-sql runs for the library rules; `before`: as planned before, the
    composite key in a SELECT DISTINCT subquery."""
    dialect = session.dialect
    if before:
        planned_before = _SubqueryPlan()
        planned_before.__dict__.update(vars(dialect))  # what the session learnt of its server
        dialect = planned_before
    compiled = compile_contract(api.load(contract), dialect, categories=[Category.QUALITY])
    ((segments, grouped),) = group_by_object([p for p in compiled.plans if isinstance(p, Plan)])
    (scan,) = plan_scans(segments, grouped, dialect, session.columns(segments))
    assert not scan.parameters  # sent as the run sends a scan without parameters
    return scan.sql


def alternate(session: Session, variants: dict[str, str], runs: int) -> dict[str, list[float]]:
    """Wall seconds per run; the order turns round every run. The counts must agree."""
    first = {name: session.fetch_row(sql, 3600.0) for name, sql in variants.items()}  # warm-up
    assert len({row[0] for row in first.values()}) == 1, first
    samples: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for index in range(runs):
        for name in names if index % 2 == 0 else names[::-1]:
            start = time.perf_counter()
            session.fetch_row(variants[name], 3600.0)
            samples[name].append(time.perf_counter() - start)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mysql-url", required=True, help="a scratch database on MariaDB/MySQL")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--all", action="store_true",
                        help="also the subquery floor and the subquery plan (each ≈4× slower)")
    parser.add_argument("--utf8mb3", action="store_true", help="text columns in utf8mb3")
    parser.add_argument("--keep", action="store_true", help="keep (and reuse) the table")
    args = parser.parse_args()
    import pymysql

    endpoint = parse_url(args.mysql_url)
    admin = pymysql.connect(host=endpoint.host, port=endpoint.port or 3306,
                            user=endpoint.user or "", password=endpoint.password or "",
                            database=endpoint.database, autocommit=True)
    document = bench.contract_document(Path("unused"))
    document.pop("servers")
    document["schema"][0]["physicalName"] = TABLE
    contract = Path(tempfile.mkdtemp(prefix="packata-keys-")) / "keys.yaml"
    contract.write_text(yaml.safe_dump(document), encoding="utf-8")
    try:
        with admin.cursor() as cursor:
            build(cursor, args.rows, args.utf8mb3, args.keep)
        session = open_session(parse_url(args.mysql_url), trust_environment=True)
        try:
            variants = {"floor, composite key in the aggregate": FLOOR_IN_AGGREGATE}
            if args.all:
                variants["floor, composite key in a SELECT DISTINCT subquery"] = FLOOR_SUBQUERY
            variants[f"packata-sql, {session.dialect.distinct_plan.value} plan"] = \
                packata_statement(session, contract, before=False)
            if args.all:
                variants["packata-sql, subquery plan (before)"] = \
                    packata_statement(session, contract, before=True)
            load = os.getloadavg()
            samples = alternate(session, variants, args.runs)
            after = os.getloadavg()
        finally:
            session.close()
    finally:
        if not args.keep:
            with admin.cursor() as cursor:
                cursor.execute(f"DROP TABLE IF EXISTS {TABLE}")
        admin.close()
    floors = [n for n in variants if n.startswith("floor")]
    fastest = min(floors, key=lambda n: statistics.median(samples[n]))
    print(f"\n{args.rows:,} rows, MariaDB/MySQL ({'utf8mb3' if args.utf8mb3 else 'utf8mb4'} "
          f"text), {args.runs} runs alternated in one process; load average {load[0]:.2f} "
          f"before, {after[0]:.2f} after; ratios to the fastest floor ({fastest})")
    print("| variant | wall median s | wall min s | × floor (median of per-run ratios) | "
          "× floor (ratio of medians) |")
    print("|---|---|---|---|---|")
    for name, times in samples.items():
        paired = statistics.median(t / f for t, f in zip(times, samples[fastest], strict=True))
        print(f"| {name} | {statistics.median(times):.2f} | {min(times):.2f} | {paired:.3f} | "
              f"{statistics.median(times) / statistics.median(samples[fastest]):.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

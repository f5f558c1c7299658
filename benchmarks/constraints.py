"""The cost of the schema's constraint checks in the fused scan (issue 11): the statement
packata-sql runs for `make bench`'s contract with its constraints (`contract.py`'s CONSTRAINTS: 12
row-reading checks next to the 13 library rules) against the statement for the library rules
alone, alternated in one process through packata-sql's own read-only session.

Alternating in one process is the fair comparison on a shared machine: both statements see the
same load, cache and buffer state, run after run. Prints median and min of wall seconds and of
the process's CPU seconds (DuckDB's threads included; steadier than wall time when other work
competes for the cores), and the ratio to the statement without constraints. A third row runs
the statement with constraints with every aggregate written where it is used
(`build_scan(share_aggregates=False)`), the form before repeated aggregates were shared.

Usage: python benchmarks/constraints.py [--rows 10000000] [--runs 7] [--each] [--per-row]
       python benchmarks/constraints.py --mysql-url mysql://root@127.0.0.1/db [--rows 1000000]
The DuckDB table is run.py's (`benchmarks/.data/`); --mysql-url builds `bench_events` in that
database (dropped afterwards) and reads it with the same login (the session is then not
enforced read-only: use a scratch database); its CPU is the server's, so not shown.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contract as bench  # the bench contract and table builder

from packata_sql import api
from packata_sql.contracts.model import Category
from packata_sql.plans.compiler import Plan, compile_contract
from packata_sql.plans.planner import DISTINCT_MEASURES, build_scan, group_by_object, plan_scans
from packata_sql.sessions.base import Session, open_session
from packata_sql.sessions.endpoint import parse_url

MYSQL_TABLE = "bench_events"
MYSQL_BUILD = f"""
CREATE TABLE {MYSQL_TABLE} AS
SELECT seq AS id, (seq * 7919) % {{half}} AS user_id, md5(seq) AS session_id,
       CASE WHEN seq % 97 = 0 THEN NULL WHEN seq % 89 = 0 THEN 'bad-email'
            ELSE CONCAT('user', seq % 50000, '@example.com') END AS email,
       ELT(1 + seq % 6, 'DE', 'FR', 'GB', 'US', 'NL', 'XX') AS country,
       CASE WHEN seq % 53 = 0 THEN '' WHEN seq % 7 = 0 THEN 'inactive' ELSE 'active' END AS status,
       CASE WHEN seq % 101 = 0 THEN NULL
            ELSE CAST((seq % 100000) / 100 AS DECIMAL(12, 2)) END AS amount
FROM seq_0_to_{{last}}
"""


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def statements(session: Session, contract: Path, segments: tuple[str, ...], each: bool,
               per_row: bool) -> list[tuple[str, list[str], int]]:
    """(variant, statements, fused measurements): without constraints, with them as the
    planner writes them, and with them with each aggregate written where it is used; `each`
    adds the statement with constraints less one constraint rule, for every such rule (where
    the cost goes); `per_row` leaves the distinct-key rules out of every variant, which times
    the per-row work without the hash aggregates that dominate the statement."""
    loaded = api.load(contract)
    families = session.columns(segments)
    variants = []
    for name, categories in (("without constraints", [Category.QUALITY]),
                             ("with constraints", None)):
        compiled = compile_contract(loaded, session.dialect, categories=categories)
        plans = [p for p in compiled.plans if isinstance(p, Plan)
                 and not (per_row and p.measure in DISTINCT_MEASURES)]
        ((_, grouped),) = group_by_object(plans)
        scans = plan_scans(segments, grouped, session.dialect, families)
        variants.append((name, [s.sql for s in scans], sum(len(s.plans) for s in scans)))
        if categories is None:
            flat = build_scan(segments, grouped, session.dialect, families, share_aggregates=False)
            variants.append(("with constraints, each aggregate where used", [flat.sql],
                             len(flat.plans)))
            for left_out in (p for p in grouped if each and p.rule.category is Category.CONSTRAINT):
                rest = [p for p in grouped if p is not left_out]
                scans = plan_scans(segments, rest, session.dialect, families)
                variants.append((f"with constraints less {left_out.rule.key}",
                                 [s.sql for s in scans], len(rest)))
    return variants


def alternate(session: Session, variants: list[tuple[str, list[str], int]], runs: int
              ) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU) seconds per run; the order turns round every run."""

    def fetch(sql: str) -> tuple[object, ...]:
        return session.fetch_row(sql, 3600.0)

    first = {name: [fetch(sql) for sql in sqls] for name, sqls, _ in variants}  # warm-up
    with_rows = first["with constraints"]
    assert first["with constraints, each aggregate where used"] == with_rows, "counts differ"
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in variants}
    for index in range(runs):
        for name, sqls, _ in variants if index % 2 == 0 else variants[::-1]:
            wall, cpu = time.perf_counter(), cpu_seconds()
            for sql in sqls:
                fetch(sql)
            samples[name].append((time.perf_counter() - wall, cpu_seconds() - cpu))
    return samples


def print_table(title: str, variants: list[tuple[str, list[str], int]],
                samples: dict[str, list[tuple[float, float]]], cpu_here: bool) -> None:
    """`cpu_here`: the work runs in this process (DuckDB), so its CPU seconds mean something."""
    base = samples[variants[0][0]]
    base_wall = statistics.median(w for w, _ in base), min(w for w, _ in base)
    base_cpu = statistics.median(c for _, c in base), min(c for _, c in base)
    print(f"\n{title}")
    print("| variant | statements | fused | wall median s | wall min s | CPU median s | "
          "CPU min s | × without (wall median / min) | × without (CPU median / min) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, sqls, fused in variants:
        wall = [w for w, _ in samples[name]]
        cpu = [c for _, c in samples[name]]
        print(f"| {name} | {len(sqls)} | {fused} | {statistics.median(wall):.2f} | "
              f"{min(wall):.2f} | "
              + (f"{statistics.median(cpu):.2f} | {min(cpu):.2f} | " if cpu_here else "- | - | ")
              + f"{statistics.median(wall) / base_wall[0]:.3f} / {min(wall) / base_wall[1]:.3f} | "
              + (f"{statistics.median(cpu) / base_cpu[0]:.3f} / {min(cpu) / base_cpu[1]:.3f} |"
                 if cpu_here else "- |"))


def measure(url: str, segments: tuple[str, ...], work: Path, runs: int, title: str,
            embedded: bool, each: bool = False, per_row: bool = False) -> None:
    """`embedded`: DuckDB runs in this process (its CPU seconds are ours); a server login is
    not enforced read-only, which only a scratch database makes acceptable."""
    document = bench.contract_document(Path("unused"), constraints=True)
    document.pop("servers")
    contract = work / "constrained.yaml"
    contract.write_text(yaml.safe_dump(document), encoding="utf-8")
    session = open_session(parse_url(url), trust_environment=not embedded)
    try:
        variants = statements(session, contract, segments, each, per_row)
        load = os.getloadavg()
        samples = alternate(session, variants, runs)
    finally:
        session.close()
    after = os.getloadavg()
    scope = ", distinct-key rules left out" if per_row else ""
    print_table(f"{title}{scope}; {runs} runs alternated in one process; load average "
                f"{load[0]:.2f} before, {after[0]:.2f} after", variants, samples,
                cpu_here=embedded)


def mysql_table(url: str, rows: int) -> Callable[[], None]:
    import pymysql

    endpoint = parse_url(url)
    connection = pymysql.connect(host=endpoint.host, port=endpoint.port, user=endpoint.user,
                                 password=endpoint.password or "", database=endpoint.database,
                                 autocommit=True)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {MYSQL_TABLE}")
        cursor.execute(MYSQL_BUILD.format(half=max(rows // 2, 1), last=rows - 1))

    def drop() -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE IF EXISTS {MYSQL_TABLE}")
        connection.close()

    return drop


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--mysql-url", help="measure MariaDB/MySQL instead (a scratch database)")
    parser.add_argument("--each", action="store_true",
                        help="also time the statement less each constraint rule in turn")
    parser.add_argument("--per-row", action="store_true",
                        help="leave the distinct-key rules (duplicateValues, unique, primaryKey) "
                             "out of every statement")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="packata-constraints-"))
    if args.mysql_url:
        drop = mysql_table(args.mysql_url, args.rows)
        try:
            measure(args.mysql_url, (MYSQL_TABLE,), work, args.runs,
                    f"{args.rows:,} rows, MySQL/MariaDB", embedded=False, each=args.each,
                    per_row=args.per_row)
        finally:
            drop()
        return 0
    import duckdb

    database = bench.DATA / f"events-{args.rows}.duckdb"
    bench.build(args.rows, sys.executable, database)
    measure(f"duckdb:///{database}", ("events",), work, args.runs,
            f"{args.rows:,} rows, DuckDB {duckdb.__version__}, {os.cpu_count()} cores",
            embedded=True, each=args.each, per_row=args.per_row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

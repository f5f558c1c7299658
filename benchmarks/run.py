"""`make bench`: packata-sql against the floor (one hand-written statement in the engine's own
process), one query per rule, and datacontract-cli, on DuckDB tables of 1M and 10M rows.

Prints one table per size: median wall time and median peak RSS of whole processes over RUNS
runs, the ratio to the floor, and the statements that scan the table. Quote ratios, not seconds.
Usage: python benchmarks/run.py [--sizes 1000000 10000000] [--runs 5] [--no-datacontract]
       [--postgres-url URL] [--spark-url URL | --no-spark] [--spark-rows 1000000]
The Spark row (benchmarks/spark.py) runs on --spark-url, or on a local Spark Connect server
started with .ci/spark.sh (and stopped after) when pyspark and Java are installed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from contract import (
    DATA,
    FLOOR,
    HERE,
    RULES,
    TYPES,
    build,
    contract_document,
)

DCC_VENV = HERE / ".venv-datacontract"


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in MB and stdout of one whole process."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env={**os.environ, **(env or {})}, text=True)
    assert process.stdout is not None
    output = process.stdout.read()
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return time.perf_counter() - started, usage.ru_maxrss // 1024, output


def median_of(runs: int, command: list[str], env: dict[str, str] | None = None
              ) -> tuple[float, int, str]:
    samples = [timed(command, env) for _ in range(runs)]
    return (statistics.median(s[0] for s in samples), int(statistics.median(s[1] for s in samples)),
            samples[-1][2])


def per_rule_script(database: Path, contract: Path) -> str:
    return textwrap.dedent(f"""
        import duckdb, json, subprocess, sys
        plan = json.loads(subprocess.run([sys.executable, "-m", "packata_sql", "compile",
            {str(contract)!r}, "--dialect", "duckdb"], capture_output=True, text=True).stdout)
        connection = duckdb.connect({str(database)!r}, read_only=True)
        connection.execute("SET enable_progress_bar = false")
        for rule in plan["rules"]:
            if rule["sql"]:
                connection.execute(rule["sql"]).fetchall()
    """)


def install_datacontract(venv: Path) -> Path | None:
    """datacontract-cli in its own virtual environment (it pins an older DuckDB)."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        done = subprocess.run([str(python), "-m", "pip", "install", "-q",
                               "datacontract-cli[duckdb]>=1.2,<1.3"], capture_output=True)
        if done.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            return None
    return python


_QUERY_LOG_HOOK = """
import duckdb
_connect = duckdb.connect
def connect(*args, **kwargs):
    connection = _connect(*args, **kwargs)
    connection.execute("CALL enable_logging('QueryLog', storage='stdout')")
    return connection
duckdb.connect = connect
"""


def count_scanning_statements(command: list[str], work: Path) -> str:
    """Runs `command` once with DuckDB's query log written to its stdout (through a
    sitecustomize hook that only this run loads; stdout because packata-sql turns DuckDB's
    file access off) and counts the logged statements that read rows of `events`."""
    import csv

    hook = work / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(_QUERY_LOG_HOOK, encoding="utf-8")
    done = subprocess.run(command, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(hook)})
    rows = csv.reader(done.stdout.splitlines(keepends=True), delimiter="\t")
    messages = [row[-1] for row in rows if len(row) > 8 and "QueryLog" in row]
    if not messages:
        return "not measured"
    scans = [m for m in messages
             if "events" in m and m.lstrip().upper().startswith(("SELECT", "WITH"))
             and "LIMIT 0" not in m.upper() and "information_schema" not in m]
    return str(len(scans))


def datacontract_contract(database: Path) -> dict:
    document = contract_document(database)
    for obj in document["schema"]:  # datacontract-cli reads `rule`-less ODCS 3.1 library rules
        for prop in obj["properties"]:
            for rule in prop.get("quality", []):
                rule.pop("id", None)
        for rule in obj["quality"]:
            rule.pop("id", None)
    return document


def compile_bytecode() -> None:
    """pip compiles a wheel's bytecode at install time; an editable install leaves that to the
    first import, which PYTHONDONTWRITEBYTECODE turns into a compile on every start."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(HERE.parent / "packata_sql")],
                   check=True)


def bench(rows: int, runs: int, datacontract_venv: Path | None
          ) -> list[tuple[str, float, int, str]]:
    import yaml

    database = DATA / f"events-{rows}.duckdb"
    build(rows, sys.executable, database)
    work = Path(tempfile.mkdtemp(prefix="packata-bench-"))
    contract = work / "contract.yaml"
    contract.write_text(yaml.safe_dump(contract_document(database)), encoding="utf-8")
    results = []
    floor_script = (f"import duckdb; c = duckdb.connect({str(database)!r}, read_only=True); "
                    "c.execute('SET enable_progress_bar = false'); "
                    f"print(c.execute({FLOOR!r}).fetchall())")
    command = [sys.executable, "-c", floor_script]
    floor, floor_rss, _ = median_of(runs, command)
    results.append(("floor: one hand-written statement", floor, floor_rss,
                    count_scanning_statements(command, work)))
    constrained = work / "constrained.yaml"
    constrained.write_text(yaml.safe_dump(contract_document(database, constraints=True)),
                           encoding="utf-8")
    # The library rules alone (the contract's logicalType checks left out, as before issue 11),
    # then the same contract with every constraint check: the cost of the constraints.
    command = [sys.executable, "-m", "packata_sql", "check", str(constrained), "--format", "json",
               "--category", "quality"]
    packata, packata_rss, out = median_of(runs, command)
    report = json.loads(out)
    fused = sum(1 for r in report["rules"] if r.get("fused"))
    results.append((f"packata-sql check ({report['outcome']}, {fused} rules fused)", packata,
                    packata_rss, count_scanning_statements(command, work)))
    command = [sys.executable, "-m", "packata_sql", "check", str(constrained), "--format", "json"]
    seconds, rss, out = median_of(runs, command)
    report = json.loads(out)
    fused = sum(1 for r in report["rules"] if r.get("fused"))
    results.append((f"  + constraint checks ({report['outcome']}, {fused} fused, "
                    f"{len(report['rules']) - fused} catalog)", seconds, rss,
                    count_scanning_statements(command, work)))
    script = work / "per_rule.py"
    script.write_text(per_rule_script(database, contract), encoding="utf-8")
    command = [sys.executable, str(script)]
    per_rule, per_rule_rss, _ = median_of(runs, command)
    results.append(("one query per rule", per_rule, per_rule_rss,
                    count_scanning_statements(command, work)))
    if datacontract_venv is not None:
        python = install_datacontract(datacontract_venv)
        if python is None:
            results.append(("datacontract-cli 1.2.x (could not be installed)", 0.0, 0, "-"))
        else:
            dcc_database = DATA / f"events-{rows}-datacontract.duckdb"
            build(rows, str(python), dcc_database)
            dcc_contract = work / "datacontract.yaml"
            dcc_contract.write_text(yaml.safe_dump(datacontract_contract(dcc_database)),
                                    encoding="utf-8")
            command = [str(python.parent / "datacontract"), "test", str(dcc_contract)]
            seconds, rss, _ = median_of(runs, command)
            scans = count_scanning_statements(command, work)
            results.append(("datacontract-cli 1.2.x test", seconds, rss, scans))
    shutil.rmtree(work, ignore_errors=True)
    return results


PG_TABLE = "bench_events"
PG_BUILD = f"""
DROP TABLE IF EXISTS {PG_TABLE};
CREATE TABLE {PG_TABLE} AS
SELECT i AS id, (i * 7919) % {{half}} AS user_id, md5(i::text) AS session_id,
       CASE WHEN i % 97 = 0 THEN NULL WHEN i % 89 = 0 THEN 'bad-email'
            ELSE 'user' || (i % 50000) || '@example.com' END AS email,
       (ARRAY['DE', 'FR', 'GB', 'US', 'NL', 'XX'])[1 + i % 6] AS country,
       CASE WHEN i % 53 = 0 THEN '' WHEN i % 7 = 0 THEN 'inactive' ELSE 'active' END AS status,
       CASE WHEN i % 101 = 0 THEN NULL ELSE ((i % 100000) / 100.0)::numeric(12, 2) END AS amount
FROM generate_series(0::bigint, {{last}}) AS i;
ANALYZE {PG_TABLE};
"""
PG_FLOOR = (FLOOR.replace("FROM events", f"FROM {PG_TABLE}")
            .replace("NOT regexp_matches(email, ", "email !~ (")
            .replace("COUNT(DISTINCT (user_id, session_id))",
                     "COUNT(DISTINCT ROW(user_id, session_id))"))


def bench_postgres(url: str, rows: int, runs: int) -> list[tuple[str, float, int, str]]:
    """The same contract on a PostgreSQL table of `rows` rows (one scan per object there too)."""
    import psycopg
    import yaml

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(PG_BUILD.format(half=max(rows // 2, 1), last=rows - 1).encode())
    work = Path(tempfile.mkdtemp(prefix="packata-bench-pg-"))
    document = contract_document(Path("unused"))
    document.pop("servers")
    document["schema"][0]["physicalName"] = PG_TABLE
    contract = work / "contract.yaml"
    contract.write_text(yaml.safe_dump(document), encoding="utf-8")
    floor_script = (f"import psycopg; c = psycopg.connect({url!r}); "
                    f"print(c.execute({PG_FLOOR!r}).fetchall())")
    results = []
    floor, floor_rss, _ = median_of(runs, [sys.executable, "-c", floor_script])
    results.append(("floor: one hand-written statement", floor, floor_rss, "1 (plan)"))
    packata, packata_rss, out = median_of(
        runs, [sys.executable, "-m", "packata_sql", "check", str(contract), "--url", url,
               "--format", "json"])
    report = json.loads(out)
    fused = sum(1 for r in report["rules"] if r.get("fused"))
    results.append((f"packata-sql check ({report['outcome']}, {fused} rules fused)", packata,
                    packata_rss, "1 (plan)"))
    shutil.rmtree(work, ignore_errors=True)
    return results


def print_table(rows: int, results: list[tuple[str, float, int, str]], engine: str = "DuckDB"
                ) -> None:
    floor = results[0][1]
    print(f"\n{rows:,} rows, {engine}, {len(RULES)} library rules over {len(TYPES)} columns")
    print(f"| {'variant':<55} | {'median s':>8} | {'× floor':>7} | {'scanning statements':>19} "
          f"| {'peak RSS MB':>11} |")
    print(f"|{'-' * 57}|{'-' * 10}|{'-' * 9}|{'-' * 21}|{'-' * 13}|")
    for name, seconds, rss, scans in results:
        ratio = f"{seconds / floor:.2f}" if seconds else "-"
        print(f"| {name:<55} | {seconds:>8.2f} | {ratio:>7} | {scans:>19} | {rss:>11} |")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000_000, 10_000_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-datacontract", action="store_true")
    parser.add_argument("--postgres-url", default=os.environ.get("PACKATA_TEST_POSTGRES_URL"),
                        help="also measure a 1M-row PostgreSQL table (default: "
                             "PACKATA_TEST_POSTGRES_URL)")
    parser.add_argument("--postgres-rows", type=int, default=1_000_000)
    parser.add_argument("--datacontract-venv", type=Path, default=DCC_VENV,
                        help="where datacontract-cli is (or gets) installed")
    parser.add_argument("--spark-url", default=os.environ.get("PACKATA_TEST_SPARK_URL"),
                        help="a Spark Connect server for the Spark row (default: "
                             "PACKATA_TEST_SPARK_URL; without one, a local server is started "
                             "with .ci/spark.sh when pyspark and Java are installed)")
    parser.add_argument("--spark-rows", type=int, default=1_000_000)
    parser.add_argument("--no-spark", action="store_true", help="leave the Spark row out")
    args = parser.parse_args()
    import duckdb

    compile_bytecode()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()},"
          f" DuckDB {duckdb.__version__}")
    for rows in args.sizes:
        venv = None if args.no_datacontract else args.datacontract_venv
        print_table(rows, bench(rows, args.runs, venv))
    if args.sizes:
        # Issue 11's measure: the fused statement with the constraints against the same
        # statement without them, alternated in one process (benchmarks/constraints.py).
        subprocess.run([sys.executable, str(HERE / "constraints.py"), "--rows",
                        str(max(args.sizes)), "--runs", str(max(args.runs, 7))], check=True)
    if args.postgres_url:
        rows = args.postgres_rows
        print_table(rows, bench_postgres(args.postgres_url, rows, args.runs), "PostgreSQL")
    else:
        print("\nPostgreSQL: not measured (no --postgres-url or PACKATA_TEST_POSTGRES_URL)")
    if not args.no_spark:
        bench_spark(args.spark_url, args.spark_rows, args.runs)
    return 0


#: Where a Spark server started for the benchmark keeps its state, and its port (not CI's).
SPARK_STATE = HERE / ".spark"
SPARK_PORT = "15004"


def bench_spark(url: str | None, rows: int, runs: int) -> None:
    """The Spark row (benchmarks/spark.py): on the given server, or on a local one started
    with .ci/spark.sh and stopped after, when pyspark and Java are installed."""
    import importlib.util

    started_here = False
    if not url:
        if shutil.which("java") is None or importlib.util.find_spec("pyspark") is None:
            print("\nSpark: not measured (no --spark-url or PACKATA_TEST_SPARK_URL, and no "
                  "pyspark and Java to start a local server)")
            return
        environment = {**os.environ, "SPARK_STATE": str(SPARK_STATE),
                       "PACKATA_SPARK_PORT": SPARK_PORT}
        subprocess.run(["bash", str(HERE.parent / ".ci" / "spark.sh"), "start"], check=True,
                       env=environment)
        started_here = True
        url = (SPARK_STATE / "url").read_text(encoding="utf-8").strip()
    try:
        import spark as spark_bench

        print(f"\nSpark: load average before {os.getloadavg()[0]:.1f}")
        results, plans = spark_bench.measure(url, rows, runs)
        spark_bench.print_table(rows, runs, results, plans)
        print(f"Spark: load average after {os.getloadavg()[0]:.1f}")
    finally:
        if started_here:
            subprocess.run(["bash", str(HERE.parent / ".ci" / "spark.sh"), "stop"],
                           env=environment, check=False)


if __name__ == "__main__":
    raise SystemExit(main())

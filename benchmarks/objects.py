"""The per-object cost of a run (issue 26.2): N tables of ROWS rows, a few rules on each, on
DuckDB and PostgreSQL.

Times `packata-sql check` against the floor (one process that runs the hand-written statement
computing the same counts, table after table, on one connection), the two in turn round after
round (interleaved, so a machine whose load drifts shifts both alike), and prints the medians,
their ratio and the milliseconds per object above the floor. `--count` instead runs the check
once in this process and counts what travels per object: PostgreSQL round trips (from libpq's
protocol trace: each time the client sends and then waits for the server) and DuckDB
statements (from DuckDB's query log, no configuration needed).
Usage: python benchmarks/objects.py [--objects 50 500] [--rows 10000] [--runs 5]
       [--postgres-url URL | --no-postgres] [--no-duckdb] [--count]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
SCHEMA = "packata_objects"
VALID = ("active", "inactive")
TABLE = """
CREATE TABLE {name} AS
SELECT i AS id, CASE WHEN i % 97 = 0 THEN NULL ELSE 'name' || (i % 1000) END AS name,
       CASE WHEN i % 7 = 0 THEN 'inactive' ELSE 'active' END AS status,
       CAST(i % 1000 AS DECIMAL(12, 2)) AS amount
FROM {rows} AS t(i)
"""
FLOOR = """
SELECT COUNT(*), COUNT(*) - COUNT(name), COUNT(*) - COUNT(DISTINCT id),
       COUNT(*) FILTER (WHERE status IS NULL OR status NOT IN ('active', 'inactive')),
       COUNT(*) - COUNT(amount)
FROM {name}
"""


def table_name(index: int) -> str:
    return f"t_{index:04d}"


def contract(objects: int, server: dict[str, object]) -> dict[str, object]:
    """Four library rules and four typed properties (catalog checks) per table."""
    schema = []
    for index in range(objects):
        schema.append({
            "name": table_name(index), "physicalType": "table",
            "quality": [{"id": f"rows_{index}", "metric": "rowCount", "mustBeGreaterThan": 0}],
            "properties": [
                {"name": "id", "logicalType": "integer", "quality": [
                    {"id": f"id_unique_{index}", "metric": "duplicateValues", "mustBe": 0}]},
                {"name": "name", "logicalType": "string", "quality": [
                    {"id": f"name_nulls_{index}", "metric": "nullValues", "unit": "percent",
                     "mustBeLessThan": 2}]},
                {"name": "status", "logicalType": "string", "quality": [
                    {"id": f"status_valid_{index}", "metric": "invalidValues",
                     "arguments": {"validValues": list(VALID)}, "mustBe": 0}]},
                {"name": "amount", "logicalType": "number"},
            ],
        })
    return {"apiVersion": "v3.1.0", "kind": "DataContract", "id": f"objects-{objects}",
            "version": "1.0.0", "status": "active", "servers": [server], "schema": schema}


def build_duckdb(objects: int, rows: int) -> Path:
    import duckdb

    path = DATA / f"objects-{objects}x{rows}.duckdb"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    connection = duckdb.connect(str(path))
    for index in range(objects):
        connection.execute(TABLE.format(name=table_name(index), rows=f"range({rows})"))
    connection.close()
    return path


def build_postgres(url: str, objects: int, rows: int) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        found = connection.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = %s", [SCHEMA]).fetchone()
        have = found[0] if found else 0
        marker = connection.execute(
            f"SELECT to_regclass('{SCHEMA}.rows_{rows}') IS NOT NULL").fetchone()
        if not (marker and marker[0]):
            connection.execute(f"DROP SCHEMA {SCHEMA} CASCADE")
            connection.execute(f"CREATE SCHEMA {SCHEMA}")
            connection.execute(f"CREATE TABLE {SCHEMA}.rows_{rows} ()")
            have = 1
        for index in range(have - 1, objects):
            name = f"{SCHEMA}.{table_name(index)}"
            connection.execute(f"DROP TABLE IF EXISTS {name}")
            connection.execute(TABLE.format(
                name=name, rows=f"generate_series(0, {rows - 1})").encode())
            connection.execute(f"ANALYZE {name}")


def with_schema(url: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}schema={SCHEMA}"


def floor_script(engine: str, location: str, objects: int) -> str:
    """The floor: one connection, the hand-written statement on each table in turn."""
    names = [table_name(i) for i in range(objects)]
    statements = [FLOOR.format(name=(f"{SCHEMA}.{n}" if engine == "postgres" else n))
                  for n in names]
    if engine == "postgres":
        return (f"import psycopg\nc = psycopg.connect({location!r}, autocommit=True)\n"
                f"for s in {statements!r}:\n    c.execute(s).fetchall()\n")
    return (f"import duckdb\nc = duckdb.connect({location!r}, read_only=True)\n"
            f"for s in {statements!r}:\n    c.execute(s).fetchall()\n")


def paired(runs: int, first: list[str], second: list[str]) -> tuple[list[float], list[float]]:
    """Wall seconds of each command, run in turn (one warm-up each, not counted)."""
    def wall(command: list[str]) -> float:
        started = time.perf_counter()
        subprocess.run(command, check=False, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        return time.perf_counter() - started

    wall(first), wall(second)
    a, b = [], []
    for _ in range(runs):
        a.append(wall(first))
        b.append(wall(second))
    return a, b


def time_engine(engine: str, objects: int, rows: int, runs: int, url: str | None,
                work: Path) -> None:
    if engine == "postgres":
        assert url is not None
        build_postgres(url, objects, rows)
        server: dict[str, object] = {"server": "pg", "type": "postgres"}
        target = ["--url", with_schema(url)]
        location = url
    else:
        path = build_duckdb(objects, rows)
        server = {"server": "local", "type": "duckdb", "database": str(path)}
        target = []
        location = str(path)
    document = work / f"{engine}-{objects}.yaml"
    document.write_text(yaml.safe_dump(contract(objects, server), sort_keys=False),
                        encoding="utf-8")
    floor = work / f"floor-{engine}-{objects}.py"
    floor.write_text(floor_script(engine, location, objects), encoding="utf-8")
    check = [sys.executable, "-m", "packata_sql", "check", str(document), *target]
    a, b = paired(runs, check, [sys.executable, str(floor)])
    ratios = [x / y for x, y in zip(a, b, strict=True)]
    above = [(x - y) / objects * 1000 for x, y in zip(a, b, strict=True)]
    print(f"{engine:8} {objects:4} objects x {rows} rows: check {statistics.median(a):6.2f} s, "
          f"floor {statistics.median(b):6.2f} s, ratio {statistics.median(ratios):.2f} "
          f"({min(ratios):.2f}-{max(ratios):.2f}), {statistics.median(above):.2f} ms per "
          f"object above the floor (load {os.getloadavg()[0]:.1f})")


def round_trips(trace: str) -> int:
    """Times the client sent something and then read the server's answer, in a libpq trace
    (lines `F …` from the client, `B …` from the backend)."""
    count, last = 0, ""
    for line in trace.splitlines():
        direction = line.split("\t", 2)[0] if "\t" in line else line[:1]
        if direction == "B" and last == "F":
            count += 1
        if direction in ("F", "B"):
            last = direction
    return count


def traced_postgres(run: Callable[[], object], trace_dir: Path) -> int:
    """Runs `run` with libpq tracing every connection psycopg opens; the round trips."""
    import psycopg

    original = psycopg.connect
    files = []

    def connect(*args: object, **kwargs: object) -> object:
        connection = original(*args, **kwargs)  # type: ignore[arg-type]
        handle = open(trace_dir / f"trace-{len(files)}.log", "w")  # noqa: SIM115
        files.append(handle)
        connection.pgconn.trace(handle.fileno())
        connection.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
        return connection

    psycopg.connect = connect  # type: ignore[assignment]
    try:
        run()
    finally:
        psycopg.connect = original
    total = 0
    for handle in files:
        handle.close()
        total += round_trips(Path(handle.name).read_text(encoding="utf-8"))
    return total


def count_engine(engine: str, objects: int, rows: int, url: str | None, work: Path) -> None:
    import packata_sql as api

    if engine == "postgres":
        assert url is not None
        build_postgres(url, objects, rows)
        document = contract(objects, {"server": "pg", "type": "postgres"})
    else:
        path = build_duckdb(objects, rows)
        document = contract(objects, {"server": "local", "type": "duckdb",
                                      "database": str(path)})
    file = work / f"count-{engine}-{objects}.yaml"
    file.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    plans = api.compile(api.load(file), engine)
    if engine == "postgres":
        assert url is not None
        total = traced_postgres(lambda: api.check(plans, with_schema(url)), work)
        what = "round trips"
    else:
        total = duckdb_statements(lambda: api.check(plans), work)
        what = "statements"
    print(f"{engine:8} {objects:4} objects: {total} {what}, {total / objects:.2f} per object")


def duckdb_statements(run: Callable[[], object], work: Path) -> int:
    """Statements DuckDB ran during `run`, from its query log (written to standard output:
    packata-sql turns DuckDB's file access off), which every connection enables on opening."""
    import duckdb

    original = duckdb.connect

    def connect(*args: object, **kwargs: object) -> object:
        connection = original(*args, **kwargs)  # type: ignore[arg-type]
        connection.execute("CALL enable_logging('QueryLog', storage='stdout')")
        return connection

    log = work / "duckdb-queries.log"
    sys.stdout.flush()
    saved = os.dup(1)
    with open(log, "w") as handle:
        os.dup2(handle.fileno(), 1)
        duckdb.connect = connect  # type: ignore[assignment]
        try:
            run()
        finally:
            duckdb.connect = original
            os.dup2(saved, 1)
            os.close(saved)
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    if os.environ.get("PACKATA_OBJECTS_SHOW"):
        print("\n".join(line for line in lines if "QueryLog" in line))
    return sum(1 for line in lines if "QueryLog" in line)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, nargs="*", default=[50, 500])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--postgres-url", default=os.environ.get("PACKATA_TEST_POSTGRES_URL"))
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-duckdb", action="store_true")
    parser.add_argument("--count", action="store_true",
                        help="count round trips (PostgreSQL) and statements (DuckDB) instead")
    args = parser.parse_args()
    engines = [e for e, off in (("duckdb", args.no_duckdb),
                                ("postgres", args.no_postgres or not args.postgres_url))
               if not off]
    with tempfile.TemporaryDirectory(prefix="packata-objects-") as directory:
        work = Path(directory)
        for engine in engines:
            for objects in args.objects:
                if args.count:
                    count_engine(engine, objects, args.rows, args.postgres_url, work)
                else:
                    time_engine(engine, objects, args.rows, args.runs, args.postgres_url, work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

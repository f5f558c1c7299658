"""`make bench`: packata-sql against the fastest hand-written floor on every engine it can reach.

Sections (`--only` picks some, comma-separated; all by default):
  duckdb       DuckDB tables of --sizes rows (1M, 10M): the floor's forms, `check`, `check` with
               the schema's constraints, one query per rule, datacontract-cli
  constraints  the fused statement with and without the constraints in one process (11)
  postgres     a PostgreSQL table of --postgres-rows (1M) on --postgres-url
  mariadb      a MariaDB/MySQL table of --mysql-rows (1M) on --mysql-url (a scratch database)
  rules        a contract of --rules rules (10, 100, 1,000): compile, check, its statement alone
  objects      --objects tables (1, 50, 500) of 10k rows on DuckDB and PostgreSQL
  spark        the bench contract with more distinct keys on Spark Connect (--spark-url)

Every table times whole processes, the variants interleaved round by round (A B C … C B A …) so
that a machine whose speed drifts slows them alike, and prints medians of wall time, of the
process's CPU time (user + system, its threads included; the client's only on a server) and of
peak RSS, with the ratio to the fastest floor and the load average before and after. The floor
is one hand-written statement in the engine's own driver; it is written in three forms
(`contract.FLOOR_FORMS`) and the fastest on that engine is the floor. Quote ratios, not seconds.
Usage: python benchmarks/run.py [--only duckdb,mariadb] [--sizes 1000000] [--runs 5] …
"""

from __future__ import annotations

import argparse
import csv
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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from contract import (
    DATA,
    FLOOR_FORMS,
    HERE,
    RULES,
    TYPES,
    build,
    contract_document,
    floor_sql,
    rules_document,
)

DCC_VENV = HERE / ".venv-datacontract"
SECTIONS = ("duckdb", "constraints", "postgres", "mariadb", "rules", "objects", "spark")
PYTHON = sys.executable
CHECK = [PYTHON, "-m", "packata_sql", "check"]


@dataclass
class Variant:
    """One command of a table, and what its runs measured."""

    name: str
    command: list[str]
    env: dict[str, str] | None = None
    floor: bool = False
    scans: str = "-"
    samples: list[tuple[float, float, int]] | None = None
    output: str = ""

    def median(self, index: int) -> float:
        return statistics.median(s[index] for s in self.samples or [(0.0, 0.0, 0)])

    @property
    def exits(self) -> tuple[int, ...]:
        """The exit codes of a run that measured something (a check may find failures)."""
        return (0,) if self.floor else (0, 1)


#: Runs the measured command as its own child and reports that child's wall time, CPU, peak
#: RSS and exit code: a process's peak RSS starts at its parent's peak (the kernel keeps the
#: high-water mark of the memory an exec replaces), and this script's own grows past what small
#: commands use, while the launcher's is ≈ 10 MB.
_LAUNCHER = """
import json, os, sys, time
report = int(sys.argv[1])
os.set_inheritable(report, False)
started = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
os.write(report, json.dumps([time.perf_counter() - started, usage.ru_utime + usage.ru_stime,
                             usage.ru_maxrss, os.waitstatus_to_exitcode(status)]).encode())
"""


def timed(command: list[str], env: dict[str, str] | None = None, exits: tuple[int, ...] = (0, 1)
          ) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds (user + system, all threads), peak RSS in MB and stdout of
    one whole process, from the operating system's accounting of it (`wait4`, in
    `_LAUNCHER`). A process that ends with another code than `exits` (a check: 0 or 1, found
    failures; a floor: 0) stops the benchmark: its time would say nothing."""
    read, write = os.pipe()
    try:
        process = subprocess.Popen([sys.executable, "-c", _LAUNCHER, str(write), *command],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   env={**os.environ, **(env or {})}, text=True,
                                   pass_fds=(write,))
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)  # the launcher holds its own copy
    with os.fdopen(read, "rb") as reported:
        assert process.stdout is not None
        output = process.stdout.read()
        process.wait()
        found = reported.read()
    wall, cpu, peak, code = json.loads(found) if found else (0.0, 0.0, 0, -1)
    if code not in exits:
        raise SystemExit(f"{' '.join(command)[:200]} exited with {code}: "
                         "its time would say nothing")
    return wall, cpu, peak // 1024, output


def interleave(variants: list[Variant], runs: int) -> tuple[float, float]:
    """Runs every variant `runs` times, round by round, the order reversed every other round,
    after one warm-up run of the first (the file cache); the load average before and after."""
    before = os.getloadavg()[0]
    timed(variants[0].command, variants[0].env, variants[0].exits)
    for variant in variants:
        variant.samples = []
    for index in range(runs):
        for variant in variants if index % 2 == 0 else variants[::-1]:
            wall, cpu, rss, output = timed(variant.command, variant.env, variant.exits)
            assert variant.samples is not None
            variant.samples.append((wall, cpu, rss))
            variant.output = output
    return before, os.getloadavg()[0]


def print_table(title: str, variants: list[Variant], load: tuple[float, float], runs: int,
                cpu_here: bool = True) -> None:
    """`cpu_here`: the engine runs in the measured process (DuckDB), so its CPU is the work's;
    on a server the CPU column is the client's alone."""
    floors = [v for v in variants if v.floor]
    fastest = min(floors, key=lambda v: v.median(0))
    if len({v.output for v in floors}) > 1:  # the forms must compute the same numbers
        raise SystemExit(f"{title}: the floor's forms disagree: "
                         + "; ".join(f"{v.name}: {v.output.strip()}" for v in floors))
    wall, cpu = fastest.median(0), fastest.median(1)
    print(f"\n{title}; median of {runs} interleaved runs; load average {load[0]:.2f} before, "
          f"{load[1]:.2f} after; fastest floor: {fastest.name.removeprefix('floor: ')}")
    cpu_name = "CPU s" if cpu_here else "client CPU s"
    print(f"| {'variant':<58} | {'wall s':>7} | {'× floor':>7} | {cpu_name:>12} | "
          f"{'CPU × floor':>11} | {'scanning statements':>19} | {'peak RSS MB':>11} |")
    print(f"|{'-' * 60}|{'-' * 9}|{'-' * 9}|{'-' * 14}|{'-' * 13}|{'-' * 21}|{'-' * 13}|")
    for v in variants:
        if not v.samples:
            print(f"| {v.name:<58} | {'-':>7} | {'-':>7} | {'-':>12} | {'-':>11} | "
                  f"{v.scans:>19} | {'-':>11} |")
            continue
        mark = " (fastest)" if v is fastest and len(floors) > 1 else ""
        cpu_ratio = f"{v.median(1) / cpu:.2f}" if cpu_here and cpu else "-"
        print(f"| {v.name + mark:<58} | {v.median(0):>7.2f} | {v.median(0) / wall:>7.2f} | "
              f"{v.median(1):>12.2f} | {cpu_ratio:>11} | {v.scans:>19} | "
              f"{int(v.median(2)):>11} |")


# --- DuckDB ---------------------------------------------------------------------------------

def duckdb_floor(database: Path, sql: str) -> list[str]:
    return [PYTHON, "-c", f"import duckdb; c = duckdb.connect({str(database)!r}, read_only=True); "
                          "c.execute('SET enable_progress_bar = false'); "
                          f"print(c.execute({sql!r}).fetchall())"]


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
        subprocess.run([PYTHON, "-m", "venv", str(venv)], check=True)
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


def scanning_statements(command: list[str], work: Path, table: str = "events") -> list[str] | None:
    """Runs `command` once with DuckDB's query log written to its stdout (through a
    sitecustomize hook that only this run loads; stdout because packata-sql turns DuckDB's
    file access off) and returns the logged statements that read rows of `table` (None: no
    log). packata-sql's `SELECT * … LIMIT 0` and its `SELECT … FROM (DESCRIBE …)` (column
    types and facts, no rows) do not count."""
    hook = work / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(_QUERY_LOG_HOOK, encoding="utf-8")
    done = subprocess.run(command, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(hook)})
    csv.field_size_limit(sys.maxsize)  # a 1,000-rule statement is one field of ~1 MB
    rows = csv.reader(done.stdout.splitlines(keepends=True), delimiter="\t")
    messages = [row[-1] for row in rows if len(row) > 8 and "QueryLog" in row]
    if not messages:
        return None
    return [m for m in messages
            if table in m and m.lstrip().upper().startswith(("SELECT", "WITH"))
            and "LIMIT 0" not in m.upper() and "information_schema" not in m
            and "(DESCRIBE " not in m.upper()]


def count_scans(command: list[str], work: Path, table: str = "events") -> str:
    found = scanning_statements(command, work, table)
    return "not measured" if found is None else str(len(found))


def datacontract_contract(database: Path) -> dict[str, Any]:
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
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(HERE.parent / "packata_sql")],
                   check=True)


def write_yaml(path: Path, document: dict[str, Any]) -> Path:
    import yaml

    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


def fused_label(name: str, output: str, catalog: bool = False) -> str:
    """The variant's name with the report's outcome and how many rules were fused."""
    try:
        report = json.loads(output)
    except ValueError:
        return f"{name} (no report)"
    fused = sum(1 for r in report["rules"] if r.get("fused"))
    rest = f", {len(report['rules']) - fused} catalog" if catalog else ""
    return f"{name} ({report['outcome']}, {fused} fused{rest})"


def bench_duckdb(rows: int, runs: int, datacontract_venv: Path | None) -> None:
    database = DATA / f"events-{rows}.duckdb"
    build(rows, PYTHON, database)
    work = Path(tempfile.mkdtemp(prefix="packata-bench-"))
    contract = write_yaml(work / "contract.yaml", contract_document(database))
    constrained = write_yaml(work / "constrained.yaml",
                             contract_document(database, constraints=True))
    variants = [Variant(f"floor: {form}", duckdb_floor(database, floor_sql("duckdb", form)),
                        floor=True, scans="1") for form in FLOOR_FORMS]
    # The library rules alone (the contract's logicalType checks left out, as before issue 11),
    # then the same contract with every constraint check: the cost of the constraints.
    quality = Variant("packata-sql check", [*CHECK, str(constrained), "--format", "json",
                                            "--category", "quality"])
    full = Variant("  + constraint checks", [*CHECK, str(constrained), "--format", "json"])
    script = work / "per_rule.py"
    script.write_text(per_rule_script(database, contract), encoding="utf-8")
    per_rule = Variant("one query per rule", [PYTHON, str(script)])
    # The same floor with the constraints' row checks too (the form DuckDB ran fastest on
    # this machine kind): what "+ constraint checks" is compared with below the table.
    constrained_floor = Variant("floor with the constraints' checks (scalar subqueries)",
                                duckdb_floor(database, floor_sql("duckdb", "scalar subqueries",
                                                                 constraints=True)), scans="1")
    variants += [constrained_floor, quality, full, per_rule]
    if datacontract_venv is not None:
        python = install_datacontract(datacontract_venv)
        if python is None:
            variants.append(Variant("datacontract-cli 1.2.x (could not be installed)", []))
        else:
            dcc_database = DATA / f"events-{rows}-datacontract.duckdb"
            build(rows, str(python), dcc_database)
            dcc_contract = write_yaml(work / "datacontract.yaml",
                                      datacontract_contract(dcc_database))
            variants.append(Variant("datacontract-cli 1.2.x test",
                                    [str(python.parent / "datacontract"), "test",
                                     str(dcc_contract)]))
    measured = [v for v in variants if v.command]
    load = interleave(measured, runs)
    for v in measured:
        if v.scans == "-":  # the hand-written statements are one each
            v.scans = count_scans(v.command, work)
    quality.name = fused_label(quality.name, quality.output)
    full.name = fused_label(full.name, full.output, catalog=True)
    print_table(f"{rows:,} rows, DuckDB, {len(RULES)} library rules over {len(TYPES)} columns",
                variants, load, runs)
    print(f"+ constraint checks × the floor with the constraints' checks: "
          f"{full.median(0) / constrained_floor.median(0):.2f} wall, "
          f"{full.median(1) / constrained_floor.median(1):.2f} CPU")
    shutil.rmtree(work, ignore_errors=True)


# --- PostgreSQL and MariaDB -----------------------------------------------------------------

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


def server_contract(work: Path, table: str) -> Path:
    document = contract_document(Path("unused"))
    document.pop("servers")
    document["schema"][0]["physicalName"] = table
    return write_yaml(work / "contract.yaml", document)


def bench_server(engine: str, url: str, rows: int, runs: int, connect: str,
                 extra: list[str]) -> None:
    """The bench contract on a server table: the floor's forms through the engine's own
    driver (`connect` opens it as `c`), and `check` (one scan per object there too)."""
    work = Path(tempfile.mkdtemp(prefix=f"packata-bench-{engine}-"))
    table = PG_TABLE if engine == "postgres" else MYSQL_TABLE
    contract = server_contract(work, table)
    variants = [Variant(f"floor: {form}",
                        [PYTHON, "-c", f"{connect}; c = c.cursor(); "
                                       f"c.execute({floor_sql(engine, form, table)!r}); "
                                       "print(c.fetchall())"],
                        floor=True, scans="1") for form in FLOOR_FORMS]
    check = Variant("packata-sql check", [*CHECK, str(contract), "--url", url, "--format", "json",
                                          *extra], scans="1 (plan)")
    variants.append(check)
    load = interleave(variants, runs)
    check.name = fused_label(check.name, check.output)
    name = "PostgreSQL" if engine == "postgres" else "MariaDB/MySQL"
    print_table(f"{rows:,} rows, {name}, {len(RULES)} library rules over {len(TYPES)} columns",
                variants, load, runs, cpu_here=False)
    shutil.rmtree(work, ignore_errors=True)


def bench_postgres(url: str, rows: int, runs: int) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(PG_BUILD.format(half=max(rows // 2, 1), last=rows - 1).encode())
    bench_server("postgres", url, rows, runs, f"import psycopg; c = psycopg.connect({url!r})", [])


MYSQL_TABLE = "bench_events"


def bench_mariadb(url: str, rows: int, runs: int) -> None:
    """On a scratch database: `bench_events` is built there with the URL's login, which is
    not read-only, so `check` runs with --trust-environment (as benchmarks/constraints.py)."""
    from constraints import mysql_table

    from packata_sql.sessions.endpoint import parse_url

    endpoint = parse_url(url)
    drop = mysql_table(url, rows)
    connect = (f"import pymysql; c = pymysql.connect(host={endpoint.host!r}, "
               f"port={endpoint.port!r}, user={endpoint.user!r}, "
               f"password={endpoint.password or ''!r}, database={endpoint.database!r})")
    try:
        bench_server("mysql", url, rows, runs, connect, ["--trust-environment"])
    finally:
        drop()


# --- Rules and objects sweeps ---------------------------------------------------------------

def rules_contract(rules: int, work: Path) -> tuple[Path, Path, str]:
    """(contract, database, table) for `rules` rules: "compile"'s generator
    (benchmarks/large_contract.py) when it is there, else contract.rules_document on the 1M
    bench table."""
    try:
        import large_contract
    except ImportError:
        database = DATA / "events-1000000.duckdb"
        build(1_000_000, PYTHON, database)
        return (write_yaml(work / f"rules-{rules}.yaml", rules_document(rules, database)),
                database, "events")
    columns = large_contract.columns_for(rules)
    rows = 100_000
    database = large_contract.table_path(rows, columns)
    large_contract.build(rows, columns, PYTHON, database)
    return (write_yaml(work / f"rules-{rules}.yaml",
                       large_contract.contract_document(rules, database)), database, "wide")


def bench_rules(counts: list[int], runs: int) -> None:
    """compile and check of `rules`-rule contracts, and the statements check runs, alone."""
    work = Path(tempfile.mkdtemp(prefix="packata-bench-rules-"))
    before = os.getloadavg()[0]
    measured = []
    for rules in counts:
        contract, database, table = rules_contract(rules, work)
        check = Variant("check", [*CHECK, str(contract), "--format", "json"])
        statements = scanning_statements(check.command, work, table) or []
        alone_script = work / f"alone-{rules}.py"
        alone_script.write_text(textwrap.dedent(f"""
            import duckdb
            c = duckdb.connect({str(database)!r}, read_only=True)
            c.execute("SET enable_progress_bar = false")
            for sql in {statements!r}:
                c.execute(sql).fetchall()
        """), encoding="utf-8")
        alone = Variant("statements alone", [PYTHON, str(alone_script)], floor=True)
        compiled = Variant("compile", [PYTHON, "-m", "packata_sql", "compile", str(contract),
                                       "--dialect", "duckdb"])
        interleave([alone, compiled, check], runs)
        rules = len(json.loads(check.output)["rules"])  # what the generator made of the count
        measured.append((rules, len(statements), alone, check, compiled))
    # Per rule above the smallest contract: the process's start-up (imports, the interpreter)
    # is paid once whatever the rule count, so the slope is what one more rule costs.
    first_rules, _, first_alone, first_check, first_compiled = measured[0]
    lines = []
    for rules, statements_run, alone, check, compiled in measured:
        python_ms = (check.median(1) - alone.median(1)) / rules * 1000
        more = rules - first_rules
        above = (check.median(1) - alone.median(1)) - (first_check.median(1)
                                                        - first_alone.median(1))
        slope = f"{above / more * 1000:.2f}" if more else "-"
        compile_slope = (f"{(compiled.median(1) - first_compiled.median(1)) / more * 1000:.2f}"
                         if more else "-")
        lines.append(f"| {rules:,} | {statements_run} | {alone.median(0):.2f} | "
                     f"{check.median(0):.2f} | {check.median(0) / alone.median(0):.2f} | "
                     f"{check.median(1) / alone.median(1):.2f} | {python_ms:.2f} | {slope} | "
                     f"{compiled.median(0):.2f} | {compiled.median(1) / rules * 1000:.2f} | "
                     f"{compile_slope} | {int(compiled.median(2))} |")
    print(f"\nRules sweep, DuckDB ({'large_contract.py' if _has_large() else 'contract.py'}'s "
          f"contracts); median of {runs} interleaved runs; load average {before:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after; \"above {first_rules:,}\": CPU per rule beyond the "
          f"{first_rules:,}-rule contract's (start-up paid once)")
    print("| rules | statements | alone s | check s | check × alone (wall) | (CPU) | "
          "check CPU − alone, ms/rule | (above the first) | compile s | compile CPU ms/rule | "
          "(above the first) | compile peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(lines))
    shutil.rmtree(work, ignore_errors=True)


def _has_large() -> bool:
    return (HERE / "large_contract.py").exists()


OBJECT_ROWS = 10_000
#: The objects sweep's PostgreSQL tables: `bench_obj_0` … in the URL's default schema.
PG_OBJECT = "bench_obj_"


def objects_document(count: int, prefix: str) -> dict[str, Any]:
    """`count` objects of three rules each (one fused scan per object)."""
    return {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "bench-objects",
        "version": "1.0.0", "status": "active",
        "schema": [{"name": f"{prefix}{i}", "physicalName": f"{prefix}{i}",
                    "physicalType": "table",
                    "quality": [{"id": f"rows_{i}", "metric": "rowCount", "mustBeGreaterThan": 0}],
                    "properties": [
                        {"name": "id", "logicalType": "integer", "quality": [
                            {"id": f"id_unique_{i}", "metric": "duplicateValues", "mustBe": 0}]},
                        {"name": "v", "logicalType": "string", "quality": [
                            {"id": f"v_nulls_{i}", "metric": "nullValues", "mustBeLessThan": 2000}]},
                    ]} for i in range(count)],
    }


def object_floor_sql(table: str) -> str:
    return f"SELECT COUNT(*), COUNT(*) - COUNT(DISTINCT id), COUNT(*) - COUNT(v) FROM {table}"


def bench_objects(counts: list[int], runs: int, postgres_url: str | None) -> None:
    """N tables of 10k rows: the floor runs one hand-written statement per table on one
    connection in one process; the figure is the milliseconds per object above it."""
    work = Path(tempfile.mkdtemp(prefix="packata-bench-objects-"))
    before = os.getloadavg()[0]
    lines = []
    largest = max(counts)
    engines: list[tuple[str, Callable[[int], tuple[list[str], list[str]]]]] = []
    # Not objects.py's file (`objects-…`, other table names): one name, one builder.
    database = DATA / f"sweep-objects-{largest}x{OBJECT_ROWS}.duckdb"
    if not database.exists():
        import duckdb

        database.parent.mkdir(parents=True, exist_ok=True)
        connection = duckdb.connect(str(database))
        for i in range(largest):
            connection.execute(f"CREATE TABLE t{i} AS SELECT i AS id, CASE WHEN i % 7 = 0 "
                               "THEN NULL ELSE md5(CAST(i AS VARCHAR)) END AS v "
                               f"FROM range({OBJECT_ROWS}) AS r(i)")
        connection.close()

    def duckdb_commands(count: int) -> tuple[list[str], list[str]]:
        document = {**objects_document(count, "t"),
                    "servers": [{"server": "local", "type": "duckdb", "database": str(database)}]}
        contract = write_yaml(work / f"duckdb-{count}.yaml", document)
        sqls = [object_floor_sql(f"t{i}") for i in range(count)]
        floor = [PYTHON, "-c", f"import duckdb; c = duckdb.connect({str(database)!r}, "
                               "read_only=True); c.execute('SET enable_progress_bar = false')\n"
                               f"for s in {sqls!r}: c.execute(s).fetchall()"]
        return floor, [*CHECK, str(contract), "--format", "json"]

    engines.append(("DuckDB", duckdb_commands))
    if postgres_url:
        import psycopg

        with psycopg.connect(postgres_url, autocommit=True) as connection:
            for i in range(largest):
                connection.execute(
                    f"DROP TABLE IF EXISTS {PG_OBJECT}{i}; CREATE TABLE {PG_OBJECT}{i} AS "
                    "SELECT i AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE md5(i::text) END AS v "
                    f"FROM generate_series(0, {OBJECT_ROWS - 1}) AS i; "
                    f"ANALYZE {PG_OBJECT}{i}".encode())

        def postgres_commands(count: int) -> tuple[list[str], list[str]]:
            document = objects_document(count, PG_OBJECT)
            contract = write_yaml(work / f"postgres-{count}.yaml", document)
            sqls = [object_floor_sql(f"{PG_OBJECT}{i}") for i in range(count)]
            floor = [PYTHON, "-c", f"import psycopg; c = psycopg.connect({postgres_url!r})\n"
                                   f"for s in {sqls!r}: c.execute(s).fetchall()"]
            return floor, [*CHECK, str(contract), "--url", postgres_url, "--format", "json"]

        engines.append(("PostgreSQL", postgres_commands))
    for engine, commands in engines:
        base: tuple[int, float] | None = None  # (objects, check − floor) of the smallest count
        for count in sorted(counts):
            floor_command, check_command = commands(count)
            floor = Variant("floor", floor_command, floor=True)
            check = Variant("check", check_command)
            interleave([floor, check], runs)
            outcome = fused_label("check", check.output)
            above = check.median(0) - floor.median(0)
            per_object = "-"
            if base is None:
                base = (count, above)
            elif count > base[0]:  # the slope: what one more object costs above the floor
                per_object = f"{(above - base[1]) / (count - base[0]) * 1000:.1f}"
            lines.append(f"| {engine} | {count} | {floor.median(0):.2f} | {check.median(0):.2f} "
                         f"| {check.median(0) / floor.median(0):.2f} | {per_object} | "
                         f"{outcome.removeprefix('check ')} |")
    print(f"\nObjects sweep ({OBJECT_ROWS:,} rows each, 3 rules per object); median of {runs} "
          f"interleaved runs; load average {before:.2f} before, {os.getloadavg()[0]:.2f} after")
    print("| engine | objects | floor s | check s | × floor | ms per object above the floor "
          "(from the smallest count) | report |\n|---|---|---|---|---|---|---|")
    print("\n".join(lines))
    shutil.rmtree(work, ignore_errors=True)


# --- Spark ----------------------------------------------------------------------------------

#: Where a Spark server started for the benchmark keeps its state, and its port (not CI's).
SPARK_STATE = HERE / ".spark"
SPARK_PORT = "15004"


def bench_spark(url: str | None, rows: int, runs: int) -> None:
    """The Spark row (benchmarks/spark.py): on the given server, or on a local one started
    with .ci/spark.sh and stopped after, when pyspark and Java are installed."""
    import importlib.util

    started_here = False
    environment = dict(os.environ)
    if not url:
        if shutil.which("java") is None or importlib.util.find_spec("pyspark") is None:
            print("\nSpark: not measured (no --spark-url or PACKATA_TEST_SPARK_URL, and no "
                  "pyspark and Java to start a local server)")
            return
        environment.update(SPARK_STATE=str(SPARK_STATE), PACKATA_SPARK_PORT=SPARK_PORT)
        subprocess.run(["bash", str(HERE.parent / ".ci" / "spark.sh"), "start"], check=True,
                       env=environment)
        started_here = True
        url = (SPARK_STATE / "url").read_text(encoding="utf-8").strip()
    try:
        import spark as spark_bench

        for distinct in (False, True):
            before = os.getloadavg()[0]
            results, plans = spark_bench.measure(url, rows, runs, more_distinct=distinct,
                                                 build_table=not distinct)
            spark_bench.print_table(rows, runs, results, plans, more_distinct=distinct)
            print(f"load average {before:.2f} before, {os.getloadavg()[0]:.2f} after")
    finally:
        if started_here:
            subprocess.run(["bash", str(HERE.parent / ".ci" / "spark.sh"), "stop"],
                           env=environment, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"comma-separated sections to run (default all: {','.join(SECTIONS)})")
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000_000, 10_000_000],
                        help="DuckDB table sizes")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--server-runs", type=int, default=3,
                        help="runs of the MariaDB, Spark, rules and objects tables (slow "
                             "statements or many processes; keeps make bench near 15 min)")
    parser.add_argument("--no-datacontract", action="store_true")
    parser.add_argument("--datacontract-venv", type=Path, default=DCC_VENV,
                        help="where datacontract-cli is (or gets) installed")
    parser.add_argument("--postgres-url", default=os.environ.get("PACKATA_TEST_POSTGRES_URL"),
                        help="default: PACKATA_TEST_POSTGRES_URL")
    parser.add_argument("--postgres-rows", type=int, default=1_000_000)
    parser.add_argument("--mysql-url", default=os.environ.get("PACKATA_TEST_MYSQL_URL"),
                        help="a scratch MariaDB/MySQL database (default: PACKATA_TEST_MYSQL_URL)")
    parser.add_argument("--mysql-rows", type=int, default=1_000_000)
    parser.add_argument("--rules", type=int, nargs="*", default=[10, 100, 1_000])
    parser.add_argument("--objects", type=int, nargs="*", default=[1, 50, 500])
    parser.add_argument("--spark-url", default=os.environ.get("PACKATA_TEST_SPARK_URL"),
                        help="a Spark Connect server (default: PACKATA_TEST_SPARK_URL; without "
                             "one, a local server is started with .ci/spark.sh when pyspark and "
                             "Java are installed)")
    parser.add_argument("--spark-rows", type=int, default=1_000_000)
    parser.add_argument("--no-spark", action="store_true", help="leave the Spark tables out")
    args = parser.parse_args()
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    if only - set(SECTIONS):
        parser.error(f"--only: unknown section(s) {', '.join(sorted(only - set(SECTIONS)))}; "
                     f"choose from {', '.join(SECTIONS)}")
    if args.no_spark:
        only.discard("spark")
    import duckdb

    started = time.perf_counter()
    compile_bytecode()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, DuckDB {duckdb.__version__}; sections: "
          f"{', '.join(s for s in SECTIONS if s in only)}")
    if "duckdb" in only:
        for rows in args.sizes:
            bench_duckdb(rows, args.runs, None if args.no_datacontract else args.datacontract_venv)
    if "constraints" in only and args.sizes:
        # Issue 11's measure: the fused statement with the constraints against the same
        # statement without them, alternated in one process (benchmarks/constraints.py).
        subprocess.run([PYTHON, str(HERE / "constraints.py"), "--rows", str(max(args.sizes)),
                        "--runs", str(max(args.runs, 7))], check=True)
    if "postgres" in only:
        if args.postgres_url:
            bench_postgres(args.postgres_url, args.postgres_rows, args.runs)
        else:
            print("\nPostgreSQL: not measured (no --postgres-url or PACKATA_TEST_POSTGRES_URL)")
    if "mariadb" in only:
        if args.mysql_url:
            bench_mariadb(args.mysql_url, args.mysql_rows, args.server_runs)
        else:
            print("\nMariaDB: not measured (no --mysql-url or PACKATA_TEST_MYSQL_URL)")
    if "rules" in only and args.rules:
        bench_rules(args.rules, args.server_runs)
    if "objects" in only and args.objects:
        bench_objects(args.objects, args.server_runs, args.postgres_url)
    if "spark" in only:
        bench_spark(args.spark_url, args.spark_rows, args.server_runs)
    print(f"\nmake bench took {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""`packata-sql check` end to end in a subprocess: exit codes, formats, privacy, limits."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from xml.etree import ElementTree

import duckdb
import pytest

from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs

SENTINEL = "ROWVALUE_7f3a"
HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"


def packata(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)


def make_db(engine: str, path: Path, statements: list[str]) -> Path:
    connection = duckdb.connect(str(path)) if engine == "duckdb" else sqlite3.connect(str(path))
    for statement in statements:
        connection.execute(statement)
    if engine == "sqlite":
        connection.commit()
    connection.close()
    return path


def people_db(engine: str, tmp_path: Path) -> Path:
    return make_db(engine, tmp_path / f"people.{engine}", [
        "CREATE TABLE people (name VARCHAR, email VARCHAR)",
        f"INSERT INTO people VALUES ('ann', 'ann@x.org'), ('bob', '{SENTINEL}'), ('bob', NULL)",
    ])


def write_contract(tmp_path: Path, rules: str, servers: str = "") -> Path:
    path = tmp_path / "contract.yaml"
    body = f"""
    schema:
      - name: people
        properties:
          - name: name
            logicalType: string
          - name: email
            logicalType: string
            quality:
{textwrap.indent(textwrap.dedent(rules).strip(), ' ' * 14)}
    """
    path.write_text(HEAD + textwrap.dedent(servers) + textwrap.dedent(body), encoding="utf-8")
    return path


@pytest.mark.parametrize("rules,args,code,outcome", [
    ("- {metric: nullValues, mustBe: 1}", [], 0, "pass"),
    ("- {metric: nullValues, mustBe: 0, severity: warning}", [], 0, "warn"),
    ("- {metric: nullValues, mustBe: 0, severity: warning}", ["--fail-on", "warning"], 1, "warn"),
    ("- {metric: nullValues, mustBe: 0}", [], 1, "fail"),
    ("- {metric: nullValues}", [], 2, "incomplete"),
    ("- {type: text, description: prose}", [], 2, "incomplete"),
])
def test_exit_codes_and_outcomes(engine, tmp_path, rules, args, code, outcome):
    db = people_db(engine, tmp_path)
    contract = write_contract(tmp_path, rules)
    done = packata("check", str(contract), "--url", f"{engine}:///{db}", "--format", "json", *args)
    assert done.returncode == code, done.stderr
    assert json.loads(done.stdout)["outcome"] == outcome


def test_json_report_shape(engine, tmp_path):
    db = people_db(engine, tmp_path)
    contract = write_contract(tmp_path, """
    - id: few-invalid
      metric: invalidValues
      arguments: {pattern: '@'}
      unit: percent
      mustBeLessThan: 50
    - {metric: nullValues, mustBe: 1}
    """)
    done = packata("check", str(contract), "--url", f"{engine}:///{db}", "--format", "json",
                   "--category", "quality")
    report = json.loads(done.stdout)
    assert set(report) >= {"format", "outcome", "complete", "read_only", "summary", "rules", "findings"}
    assert report["format"] == "packata-sql/report@1"
    assert report["read_only"] == "enforced"
    assert report["catalog"] == {"name": "odcs", "version": "3.2.0", "program": "packata-odcs/1"}
    assert report["summary"] == {"passed": 1, "failed": 1, "error": 0, "inconclusive": 0, "skipped": 0}
    first = report["rules"][0]
    assert set(first) >= {"key", "source_path", "category", "severity", "status", "value", "unit",
                          "evidence", "failed", "diagnostic", "elapsed_ms"}
    assert (first["key"], first["status"], first["failed"]) == ("few-invalid", "failed", ["< 50"])
    assert first["evidence"] == {"numerator": 2, "denominator": 3}
    assert first["source_path"] == "schema[0].properties[1].quality[0]"
    assert report["rules"][1]["value"] == 1 and isinstance(report["rules"][1]["value"], int)


def test_no_row_values_or_sql_in_any_output(engine, tmp_path):
    db = people_db(engine, tmp_path)
    contract = write_contract(tmp_path, """
    - metric: invalidValues
      arguments: {validValues: [ann@x.org]}
      mustBe: 0
    - {metric: nullValues, mustBe: 0}
    """)
    for fmt in ("table", "json", "junit"):
        done = packata("check", str(contract), "--url", f"{engine}:///{db}", "--format", fmt)
        assert done.returncode == 1
        for stream in (done.stdout, done.stderr):
            assert SENTINEL not in stream
            # The measurement's SQL stays out; a failed rule's inspect query (contract
            # literals only, never row values) is the one SQL text reports carry.
            assert "COUNT(" not in stream and "packata_rows" not in stream


def test_show_sql_is_an_explicit_opt_in(tmp_path):
    db = people_db("duckdb", tmp_path)
    contract = write_contract(tmp_path, "- {metric: nullValues, mustBe: 1}")
    done = packata("check", str(contract), "--url", f"duckdb:///{db}", "--format", "json", "--show-sql")
    assert "SELECT" in json.loads(done.stdout)["rules"][0]["sql"]


def test_junit_has_one_testcase_per_rule(engine, tmp_path):
    db = people_db(engine, tmp_path)
    contract = write_contract(tmp_path, """
    - {metric: nullValues, mustBe: 1}
    - {metric: nullValues, mustBe: 0}
    - {type: text, description: prose}
    """)
    out = tmp_path / "report.xml"
    done = packata("check", str(contract), "--url", f"{engine}:///{db}", "--format", "junit",
                   "--output", str(out), "--category", "quality")
    assert done.returncode == 1
    suite = ElementTree.parse(out).getroot()
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [r.key for r in load_odcs(str(contract)).rules
                                              if r.category is Category.QUALITY]
    assert [bool(c.find("failure") is not None) for c in cases] == [False, True, False]
    assert cases[2].find("skipped") is not None
    assert (suite.get("tests"), suite.get("failures")) == ("3", "1")


def test_table_output_says_what_failed_and_why(tmp_path):
    db = people_db("duckdb", tmp_path)
    contract = write_contract(tmp_path, "- {id: no-nulls, metric: nullValues, mustBe: 0}")
    done = packata("check", str(contract), "--url", f"duckdb:///{db}")
    assert "no-nulls" in done.stdout and "failed" in done.stdout and "expected = 0" in done.stdout
    assert "\x1b[" not in done.stdout  # no colour when stdout is not a terminal
    assert "FAIL" in done.stdout


def test_select_runs_only_named_rules(tmp_path):
    db = people_db("duckdb", tmp_path)
    contract = write_contract(tmp_path, """
    - {id: a, metric: nullValues, mustBe: 1}
    - {id: b, metric: nullValues, mustBe: 0}
    """)
    done = packata("check", str(contract), "--url", f"duckdb:///{db}", "--format", "json",
                   "--select", "a")
    assert [r["key"] for r in json.loads(done.stdout)["rules"]] == ["a"]
    assert done.returncode == 0
    bad = packata("check", str(contract), "--url", f"duckdb:///{db}", "--select", "zzz")
    assert bad.returncode == 3 and "zzz" in bad.stderr


def test_server_entries_resolve_relative_to_the_contract(tmp_path):
    people_db("duckdb", tmp_path)
    people_db("sqlite", tmp_path)
    servers = """
    servers:
      - server: duck
        type: duckdb
        database: people.duckdb
      - server: lite
        type: custom
        format: sqlite
        path: people.sqlite
    """
    contract = write_contract(tmp_path, "- {metric: nullValues, mustBe: 1}", servers)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for name, engine in (("duck", "duckdb"), ("lite", "sqlite")):
        done = packata("check", str(contract), "--server", name, "--format", "json", cwd=elsewhere)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["target"].startswith(engine)
    default = packata("check", str(contract), "--format", "json", cwd=elsewhere)
    assert json.loads(default.stdout)["target"].startswith("duckdb")


@pytest.mark.parametrize("setup,args,message", [
    (None, ["check", "{dir}/absent.yaml", "--url", "duckdb:///x.duckdb"], "file not found"),
    ("a: [unclosed\n  b: {", ["check", "{dir}/c.yaml", "--url", "duckdb:///x.duckdb"], "not valid YAML"),
    ("just text", ["check", "{dir}/c.yaml", "--url", "duckdb:///x.duckdb"], "not an ODCS contract"),
    (HEAD, ["check", "{dir}/c.yaml", "--url", "duckdb:///:memory:"], "in-memory"),
    (HEAD, ["check", "{dir}/c.yaml"], "no --url"),
    (HEAD, ["check", "{dir}/c.yaml", "--url", "oracle://h/db"], "unsupported database URL"),
    (HEAD, ["check", "{dir}/c.yaml", "--url", "duckdb:///x", "--timeout", "-1"], "positive"),
    (HEAD, ["check", "{dir}/c.yaml", "--url", "duckdb:///x", "--format", "pdf"], "invalid choice"),
    (HEAD, ["compile", "{dir}/c.yaml", "--dialect", "oracle"], "unknown dialect"),
])
def test_usage_errors_exit_3_without_traceback(tmp_path, setup, args, message):
    if setup is not None:
        (tmp_path / "c.yaml").write_text(setup, encoding="utf-8")
    done = packata(*[a.format(dir=tmp_path) for a in args])
    assert done.returncode == 3
    assert message in done.stderr
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout


def test_connection_failure_is_error_and_incomplete(tmp_path):
    contract = write_contract(tmp_path, "- {metric: nullValues, mustBe: 1}")
    done = packata("check", str(contract), "--url", f"sqlite:///{tmp_path}/absent.db", "--format", "json")
    report = json.loads(done.stdout)
    assert done.returncode == 2
    assert report["rules"][0]["status"] == "error"
    assert report["rules"][0]["diagnostic"]["code"] == "connection-failed"


SLOW_VIEW = {
    "duckdb": "CREATE VIEW people AS SELECT CAST(x AS VARCHAR) AS email, 'n' AS name "
              "FROM range(100000000000) AS r(x)",
    "sqlite": "CREATE VIEW people AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
              "SELECT CAST(x AS TEXT) AS email, 'n' AS name FROM n",
}


def test_timeout_makes_the_rule_inconclusive(engine, tmp_path):
    db = make_db(engine, tmp_path / f"slow.{engine}", [SLOW_VIEW[engine]])
    contract = write_contract(tmp_path, "- {metric: duplicateValues, mustBe: 0}")
    started = time.monotonic()
    done = packata("check", str(contract), "--url", f"{engine}:///{db}", "--format", "json",
                   "--timeout", "0.5")
    assert time.monotonic() - started < 30
    rule = json.loads(done.stdout)["rules"][0]
    assert (rule["status"], rule["diagnostic"]["code"]) == ("inconclusive", "timeout")
    assert done.returncode == 2


def test_exhausted_budget_makes_rules_inconclusive(tmp_path):
    db = make_db("duckdb", tmp_path / "slow.duckdb", [SLOW_VIEW["duckdb"]])
    contract = write_contract(tmp_path, "- {metric: duplicateValues, mustBe: 0}")
    done = packata("check", str(contract), "--url", f"duckdb:///{db}", "--format", "json",
                   "--budget", "0.5")
    rule = json.loads(done.stdout)["rules"][0]
    assert (rule["status"], rule["diagnostic"]["code"]) == ("inconclusive", "budget-exhausted")


def _opened(pid: int, path: Path) -> bool:
    """Whether process `pid` holds `path` open (Linux /proc): the run has reached it."""
    folder = Path(f"/proc/{pid}/fd")
    try:
        return any(os.path.realpath(fd) == str(path.resolve()) for fd in folder.iterdir())
    except (FileNotFoundError, ProcessLookupError):  # a descriptor closed while listing
        return False


def test_ctrl_c_ends_with_partial_report_and_exit_130(engine, tmp_path, wait_until):
    db = make_db(engine, tmp_path / f"slow.{engine}", [SLOW_VIEW[engine]])
    contract = write_contract(tmp_path, "- {metric: duplicateValues, mustBe: 0}")
    process = subprocess.Popen(
        [sys.executable, "-m", "packata_sql", "check", str(contract), "--url", f"{engine}:///{db}",
         "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        # The session has the database open: the run is under way (the slow view never ends).
        wait_until(lambda: process.poll() is None and _opened(process.pid, db),
                   "the run to open the database")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, err
    report = json.loads(out)
    assert report["rules"][0]["status"] == "skipped"
    assert report["rules"][0]["diagnostic"]["code"] == "cancelled"
    assert "Traceback" not in err


def large_contract(rules: int) -> str:
    return HEAD + "schema:\n  - name: people\n    properties:\n" + "".join(
        f"      - name: c{i}\n        quality:\n          - {{metric: nullValues, mustBe: 0}}\n"
        f"          - metric: invalidValues\n            arguments: {{validValues: [a, b]}}\n"
        f"            mustBeLessThan: 5\n" for i in range(rules))


@pytest.mark.parametrize("written", ["part", "all"])
def test_ctrl_c_while_loading_a_contract_exits_130_without_a_traceback(written, tmp_path,
                                                                       wait_until):
    """The contract comes through a named pipe: opening it for writing returns once
    packata-sql has opened it for reading (the readiness signal). "part": the interrupt finds
    it waiting for the rest of the file; "all": it has read the whole large contract and
    closed the pipe, so it is parsing (seconds of work for 3 MB)."""
    fifo = tmp_path / "contract.yaml"
    os.mkfifo(fifo)
    text = large_contract(20_000)
    process = subprocess.Popen(
        [sys.executable, "-m", "packata_sql", "check", str(fifo), "--url",
         f"duckdb:///{people_db('duckdb', tmp_path)}", "--format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        with open(fifo, "w", encoding="utf-8") as pipe:  # blocks until the reader opens it
            pipe.write(text if written == "all" else text[:1000])
            pipe.flush()
            if written == "part":
                process.send_signal(signal.SIGINT)
        if written == "all":
            wait_until(lambda: not _opened(process.pid, fifo), "the contract to be read")
            process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert out == ""  # interrupted before any report
    assert "interrupted" in err
    assert "Traceback" not in err and "internal error" not in err


def test_internal_errors_exit_4_without_traceback_or_message(tmp_path, monkeypatch, capsys):
    """A bug (simulated: the runner raises) ends with a short notice, not a traceback."""
    # api is imported before runner.run is patched: importing it afterwards would bind the
    # broken run, and monkeypatch would "restore" that for every later in-process check.
    from packata_sql import api  # noqa: F401
    from packata_sql.cli import main as cli
    from packata_sql.run import runner

    def broken(*args, **kwargs):
        raise RuntimeError(f"secret {SENTINEL}")

    # api first: importing it while runner.run is patched would bind (and later
    # "restore") the broken function for every later in-process test.
    monkeypatch.setattr("packata_sql.api.run", broken)
    monkeypatch.setattr(runner, "run", broken)
    db = people_db("duckdb", tmp_path)
    contract = write_contract(tmp_path, "- {metric: nullValues, mustBe: 1}")
    code = cli.main(["check", str(contract), "--url", f"duckdb:///{db}"])
    captured = capsys.readouterr()
    assert code == 4  # distinct from 2, a run that is not complete
    assert "internal error (RuntimeError)" in captured.err
    assert SENTINEL not in captured.err + captured.out and "Traceback" not in captured.err


def test_a_file_database_run_imports_no_url_library(engine, tmp_path):
    """File URLs hold no credentials and are read by the standard library; SQLAlchemy (which
    reads server URLs) would add about twice sqlglot's import time to every embedded run."""
    db = people_db(engine, tmp_path)
    contract = write_contract(tmp_path, "- {metric: nullValues, mustBeGreaterOrEqualTo: 0}")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "packata_sql", "check", str(contract),
         "--url", f"{engine}:///{db}", "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "packata_sql.sessions.endpoint" in imported
    assert not {name for name in imported if name.split(".")[0] == "sqlalchemy"}

"""Issue 14, as a user meets it: the real program in a subprocess (help, errors that name the
fix, progress on stderr, the table, several outputs, CI formats, lint, compile, papercuts)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from xml.etree import ElementTree

import duckdb
import pytest

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: shop\nversion: 2.1.0\nstatus: active\n"


def packata(*args: str, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("GITHUB_ACTIONS", "FORCE_COLOR", "NO_COLOR", "COLUMNS")}
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=120, env=environment, cwd=cwd)


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, str]:
    """People with 1 NULL e-mail in 4 rows; a contract with a pass, an error failure and a
    warning failure, each on a known line."""
    database = tmp_path / "shop.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE people (name VARCHAR, email VARCHAR)")
    connection.execute("INSERT INTO people VALUES ('ann', 'a@x.org'), ('bob', NULL), "
                       "('cy', 'c@x.org'), ('cy', 'd@x.org')")
    connection.close()
    contract = tmp_path / "contract.yaml"
    contract.write_text(HEAD + textwrap.dedent("""\
        schema:
          - name: people
            quality:
              - metric: rowCount
                mustBe: 4
            properties:
              - name: name
                quality:
                  - metric: duplicateValues
                    mustBe: 0
              - name: email
                quality:
                  - metric: nullValues
                    unit: percent
                    mustBeLessThan: 10
                    severity: warning
        """), encoding="utf-8")
    return contract, f"duckdb:///{database}"


# --- help, exit codes, papercuts -------------------------------------------------------------

def test_bare_command_prints_help_with_examples_and_exit_codes():
    done = packata()
    assert done.returncode == 0
    assert "examples:" in done.stdout and "exit codes:" in done.stdout
    assert re.search(r"^\s+4\s+internal error", done.stdout, re.M)
    assert re.search(r"^\s+2\s+incomplete", done.stdout, re.M)


def test_help_lists_the_exit_codes_of_the_docs():
    page = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    table = page[page.index("### Exit codes"):page.index("### Statuses")]
    documented = {int(code) for code in re.findall(r"\| (\d+)(?: \(1 with [^)]*\))? \|$", table,
                                                  re.M)}
    helped = packata("--help").stdout
    listed = {int(code) for code in re.findall(r"^  (\d+) ", helped.split("exit codes:")[1], re.M)}
    assert documented == listed == {0, 1, 2, 3, 4, 130, 141}


def test_compile_help_lists_every_dialect():
    from packata_sql.cli.main import DIALECT_NAMES
    from packata_sql.dialects import COMPILE_DIALECTS

    assert set(COMPILE_DIALECTS) <= set(DIALECT_NAMES)
    done = packata("compile", "--help")
    for name in COMPILE_DIALECTS:
        assert name in done.stdout


def test_select_does_not_swallow_the_contract_path(shop):
    contract, url = shop
    done = packata("check", "--select", "schema[people].quality[0]", str(contract), "--url", url,
                   "--format", "json")
    assert done.returncode == 0, done.stderr
    assert [r["key"] for r in json.loads(done.stdout)["rules"]] == ["schema[people].quality[0]"]


@pytest.mark.parametrize("command", ["compile", "check"])
def test_a_closed_pipe_ends_quietly(shop, command):
    """`packata-sql … | head` where the reader is gone before the report is written: no
    traceback, no 'Exception ignored', exit 141 as a shell reports SIGPIPE."""
    contract, url = shop
    args = ["--dialect", "duckdb"] if command == "compile" else ["--url", url, "--progress", "none"]
    process = subprocess.Popen([sys.executable, "-m", "packata_sql", command, str(contract), *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader leaves before anything is written
    errors = process.stderr.read()
    assert process.wait(timeout=120) == 141
    assert errors == ""


# --- errors that name the fix ----------------------------------------------------------------

def test_missing_table_is_named_with_the_closest_name(shop):
    contract, url = shop
    contract.write_text(contract.read_text().replace("- name: people", "- name: peple"))
    done = packata("check", str(contract), "--url", url, "--format", "json")
    rule = json.loads(done.stdout)["rules"][0]
    assert rule["diagnostic"]["code"] == "missing-object"
    assert "no object 'peple'; did you mean 'people'?" in rule["diagnostic"]["message"]


@pytest.mark.parametrize(("typo", "fix", "line"), [
    ("metric: nullValues\n", "metric: nulValues\n", 18),
    ("mustBeLessThan: 10", "mustBeLesThan: 10", 20),
])
def test_misspellings_are_printed_before_connecting_and_the_run_goes_on(shop, typo, fix, line):
    """docs/semantics.md 1.2 (issue 19 item 3): the fast feedback stays, the refusal goes."""
    contract, url = shop
    contract.write_text(contract.read_text().replace(typo, fix))
    # The URL points nowhere: the misspelling is printed before the connection is tried.
    done = packata("check", str(contract), "--url", "postgresql://x@127.0.0.1:1/db")
    assert done.returncode == 2, done.stderr
    right = typo.split(":")[0] if "mustBe" in typo else "nullValues"
    lines = done.stderr.splitlines()
    first = next(i for i, text in enumerate(lines) if f"{contract}:{line}:" in text)
    assert f"did you mean '{right}'?" in lines[first]
    assert first < next(i for i, text in enumerate(lines) if "cannot connect" in text)
    # On the database, the misspelt rule is skipped and the others are measured.
    ran = packata("check", str(contract), "--url", url, "--format", "json", "--progress", "none")
    report = json.loads(ran.stdout)
    quality = {r["key"]: r["status"] for r in report["rules"] if r["category"] == "quality"}
    assert quality == {"schema[people].quality[0]": "passed",
                       "schema[people].properties[name].quality[0]": "failed",
                       "schema[people].properties[email].quality[0]": "skipped"}
    assert report["outcome"] == "fail"
    assert ran.returncode == 1  # the name rule's error-severity failure decides


def test_an_unknown_argument_suggests_the_right_one(shop):
    contract, _ = shop
    contract.write_text(contract.read_text().replace(
        "metric: duplicateValues\n", "metric: invalidValues\n            arguments: "
        "{validValue: [ann]}\n"))
    done = packata("lint", str(contract))
    assert done.returncode == 3
    assert "takes no argument 'validValue'; did you mean 'validValues'?" in done.stdout


def test_verbose_masks_the_password_in_whatever_a_driver_says():
    """No live driver echoes the password on demand (the engine runs of `-v` are in
    integration/test_faults_and_secrets.py), so the mask is shown on a message that does: as
    typed, percent-encoded as a URL carries it, and a password-like driver option."""
    from packata_sql.cli.check import masked
    from packata_sql.sessions.endpoint import Endpoint

    endpoint = Endpoint("postgres", "db", host="h", user="u", password="p@ss/w rd",
                        options=(("sslpassword", "k3y-pass"), ("sslmode", "require")))
    said = ("FATAL: bad login u:p@ss/w rd at postgresql://u:p%40ss%2Fw%20rd@h/db "
            "(p%40ss%2Fw+rd) key k3y-pass, sslmode require")
    assert masked(said, endpoint) == ("FATAL: bad login u:*** at postgresql://u:***@h/db (***) "
                                      "key ***, sslmode require")


# --- progress --------------------------------------------------------------------------------

def _untimed(text: str) -> str:
    return re.sub(r'("elapsed_ms": |"started_at": |"observed_at": )("[^"]*"|\d+)', r"\1_", text)


def test_progress_goes_to_stderr_and_leaves_stdout_alone(shop):
    contract, url = shop
    plain = packata("check", str(contract), "--url", url, "--format", "json", "--progress", "plain")
    none = packata("check", str(contract), "--url", url, "--format", "json", "--progress", "none")
    piped = packata("check", str(contract), "--url", url, "--format", "json")  # auto, not a TTY
    assert re.search(r"scanning people \(\d+ rules, fused\)", plain.stderr)
    assert re.search(r" (\d+)/\1 rules ", plain.stderr)
    assert none.stderr == ""
    assert "scanning people" in piped.stderr
    assert _untimed(plain.stdout) == _untimed(none.stdout) == _untimed(piped.stdout)


# --- the table -------------------------------------------------------------------------------

def test_table_labels_expectations_counts_order_and_duration(shop):
    contract, url = shop
    done = packata("check", str(contract), "--url", url, "--progress", "none")
    lines = done.stdout.splitlines()
    body = "\n".join(lines)
    assert "people.email · nullValues" in body and "people · rowCount" in body
    assert "25 % (1 of 4)" in body
    assert "expected = 4" in body and "expected < 10 %" in body
    failed = next(i for i, line in enumerate(lines) if "people.name · duplicateValues" in line)
    passed = next(i for i, line in enumerate(lines) if "people · rowCount" in line)
    assert failed < passed  # failures first
    assert re.search(r"· \d+\.\d\d s$", lines[-1])
    assert "\x1b[" not in done.stdout


def test_table_colour_follows_force_color_and_no_color(shop):
    contract, url = shop
    forced = packata("check", str(contract), "--url", url, "--progress", "none",
                     env={"FORCE_COLOR": "1"})
    assert "\x1b[" in forced.stdout
    muted = packata("check", str(contract), "--url", url, "--progress", "none",
                    env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert not re.search(r"\x1b\[[0-9;]*3[0-7]m", muted.stdout)  # no colour codes


# --- several outputs and CI formats ----------------------------------------------------------

def test_several_outputs_from_one_run(shop, tmp_path):
    contract, url = shop
    files = {kind: tmp_path / f"report.{kind}" for kind in ("json", "junit", "markdown", "html")}
    args = [f"--output={kind}={path}" for kind, path in files.items()]
    done = packata("check", str(contract), "--url", url, *args, "--progress", "none")
    assert done.returncode == 1
    assert "people.name · duplicateValues" in done.stdout  # the table on stdout
    document = json.loads(files["json"].read_text())
    assert (document["contract_id"], document["outcome"]) == ("shop", "fail")
    assert ElementTree.parse(files["junit"]).getroot().get("tests") == str(len(document["rules"]))
    markdown = files["markdown"].read_text()
    assert re.search(r"\*\*FAIL · \d+ passed, 2 failed\*\*", markdown)
    assert "| failed | people.name · duplicateValues" in markdown
    assert "inspect: packata-sql check … --samples 5 --select " \
        "'schema[people].properties[name].quality[0]'" in markdown  # a hint, not the query
    assert "SELECT" not in markdown
    assert any("SELECT" in rule.get("inspect_sql", "") for rule in document["rules"])
    assert "<svg" in files["html"].read_text()


def test_output_paths_are_checked_before_connecting(shop, tmp_path):
    contract, _ = shop
    done = packata("check", str(contract), "--url", "postgresql://x@127.0.0.1:1/db",
                   "--output", f"json={tmp_path}/missing/report.json")
    assert done.returncode == 3
    assert "does not exist" in done.stderr and "cannot connect" not in done.stderr
    typo = packata("check", str(contract), "--url", "postgresql://x@127.0.0.1:1/db",
                   "--output", f"jnuit={tmp_path}/r.xml")
    assert typo.returncode == 3 and "did you mean 'junit'?" in typo.stderr


def test_two_outputs_to_one_file_are_refused_before_connecting(shop, tmp_path):
    contract, _ = shop
    done = packata("check", str(contract), "--url", "postgresql://x@127.0.0.1:1/db",
                   "--output", "json=same.out", "--output", f"junit={tmp_path}/same.out",
                   cwd=tmp_path)
    assert done.returncode == 3
    assert f"--output junit: {tmp_path}/same.out is also the json report's file" in done.stderr
    assert "cannot connect" not in done.stderr and not (tmp_path / "same.out").exists()


def test_github_annotations_point_at_rule_lines(shop):
    contract, url = shop
    done = packata("check", str(contract), "--url", url, env={"GITHUB_ACTIONS": "true"})
    lines = done.stdout.splitlines()
    error = next(line for line in lines if line.startswith("::error "))
    warning = next(line for line in lines if line.startswith("::warning "))
    assert error.startswith(f"::error file={contract},line=14,title=failed%3A people.name")
    assert warning.startswith(f"::warning file={contract},line=18,")
    assert re.match(r"packata-sql: FAIL · \d+ passed, 2 failed", lines[-1])
    assert not any("rowCount" in line for line in lines if line.startswith("::"))
    inside = packata("check", str(contract), "--url", url, "--format", "github",
                     env={"GITHUB_WORKSPACE": str(contract.parent)})
    assert "::error file=contract.yaml,line=14," in inside.stdout


def test_junit_names_properties_and_warning_failures(shop):
    contract, url = shop
    plain = ElementTree.fromstring(packata("check", str(contract), "--url", url,
                                           "--format", "junit").stdout)
    cases = {c.get("name"): c for c in plain.iter("testcase")}
    email = cases["schema[people].properties[email].quality[0]"]
    assert email.get("classname") == "people.email"
    assert email.find("failure") is None  # a warning is not a CI failure by default
    assert "warning: measured 25 % (1 of 4)" in (email.findtext("system-out") or "")
    assert plain.get("failures") == "1" and plain.get("timestamp")
    name = cases["schema[people].properties[name].quality[0]"]
    assert "inspect: SELECT" in (name.findtext("failure") or "")
    properties = {p.get("name"): p.get("value") for p in plain.iter("property")}
    assert (properties["contract_id"], properties["contract_version"]) == ("shop", "2.1.0")
    assert properties["target"].startswith("duckdb:")
    strict = ElementTree.fromstring(packata("check", str(contract), "--url", url, "--format",
                                            "junit", "--fail-on", "warning").stdout)
    assert strict.get("failures") == "2"


def test_show_sql_reaches_the_table_and_junit(shop):
    contract, url = shop
    table = packata("check", str(contract), "--url", url, "--show-sql", "--progress", "none")
    assert "SELECT" in table.stdout
    junit = ElementTree.fromstring(packata("check", str(contract), "--url", url, "--show-sql",
                                           "--format", "junit").stdout)
    measured = [c for c in junit.iter("testcase") if ".quality[" in (c.get("name") or "")]
    assert measured and all("SELECT" in (c.findtext("system-out") or "") for c in measured)


# --- lint and incomplete runs ----------------------------------------------------------------

def test_lint_checks_the_official_schema_with_lines(shop):
    contract, _ = shop
    contract.write_text(contract.read_text().replace("status: active", "status: [active]"))
    done = packata("lint", str(contract))
    assert done.returncode == 3
    assert re.search(rf"{re.escape(str(contract))}:5: error odcs-schema at \$\.status: ODCS 3\.1\.0",
                     done.stdout)


def test_check_runs_lint_first_and_goes_on(shop):
    contract, url = shop
    contract.write_text(contract.read_text().replace("status: active", "status: [active]"))
    done = packata("check", str(contract), "--url", url, "--format", "json", "--progress", "none")
    assert done.returncode == 1  # the run itself goes on
    assert f"lint: {contract}:5: ODCS 3.1.0 schema:" in done.stderr
    assert "(the check goes on)" in done.stderr


def test_lint_passes_a_clean_contract(shop):
    contract, _ = shop
    done = packata("lint", str(contract))
    assert done.returncode == 0, done.stdout
    assert re.search(r"0 error\(s\), 0 warning\(s\), (\d+) rule\(s\) of which \1 executable",
                     done.stdout)


@pytest.mark.parametrize("quality", ["", "    quality:\n      - {type: text, description: prose}\n"])
def test_a_contract_that_checks_nothing_is_incomplete(shop, quality):
    contract, url = shop
    contract.write_text(HEAD + "schema:\n  - name: people\n" + quality)
    for extra in ([], ["--accept-unexecutable"]):
        done = packata("check", str(contract), "--url", url, *extra, "--progress", "none")
        assert done.returncode == 2
        assert "INCOMPLETE" in done.stdout and "nothing was checked" in done.stdout


# --- compile ---------------------------------------------------------------------------------

def test_compile_is_readable_sql_in_the_servers_dialect(tmp_path):
    contract = tmp_path / "c.yaml"
    contract.write_text(HEAD + textwrap.dedent("""\
        servers:
          - server: prod
            type: postgresql
            host: db.example
            database: shop
        schema:
          - name: people
            quality:
              - {metric: rowCount, mustBeGreaterThan: 0}
            properties:
              - name: email
                quality:
                  - {metric: nullValues, mustBe: 0}
        """), encoding="utf-8")
    done = packata("compile", str(contract), "--format", "sql")
    assert done.returncode == 0, done.stderr
    assert "dialect postgres" in done.stdout.splitlines()[0]
    assert "-- object people: one fused scan for 2 rule(s)" in done.stdout
    assert re.search(r"^SELECT\n\s+COUNT\(\*\)", done.stdout, re.M)  # one clause per line
    alias = packata("compile", str(contract), "--dialect", "postgresql")  # json off a TTY
    assert json.loads(alias.stdout)["dialect"] == "postgres"


# --- failure triage --------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_failed_rules_carry_an_inspect_query_that_lists_the_offenders(tmp_path, engine):
    import sqlite3

    database = tmp_path / f"t.{engine}"
    connection = duckdb.connect(str(database)) if engine == "duckdb" else sqlite3.connect(database)
    connection.execute("CREATE TABLE people (name TEXT, email TEXT)")
    connection.execute("INSERT INTO people VALUES ('ann', 'a@x'), ('bob', NULL), ('bob', 'SECRET_ROW')")
    if engine == "sqlite":
        connection.commit()
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text(HEAD + textwrap.dedent("""\
        schema:
          - name: people
            properties:
              - name: name
                quality:
                  - {metric: duplicateValues, mustBe: 0}
              - name: email
                quality:
                  - {metric: nullValues, mustBe: 0}
                  - {metric: invalidValues, arguments: {validValues: [a@x]}, mustBe: 0}
                  - {metric: nullValues, mustBeLessThan: 5}
        """), encoding="utf-8")
    report_file = tmp_path / "r.json"
    done = packata("check", str(contract), "--url", f"{engine}:///{database}", "--format", "json",
                   "--output", f"json={report_file}", "--samples", "5")
    rules = json.loads(done.stdout)["rules"]
    assert "inspect_sql" not in rules[3]  # passed: nothing to inspect
    queries = [rule["inspect_sql"] for rule in rules[:3]]
    assert all(q.endswith("LIMIT 20") for q in queries)
    connection = duckdb.connect(str(database), read_only=True) if engine == "duckdb" \
        else sqlite3.connect(database)
    found = [sorted(connection.execute(q).fetchall(), key=str) for q in queries]
    connection.close()
    assert found == [[("bob", 2)], [(None,)], [("SECRET_ROW",), (None,)]]
    # --samples shows the offending values on the terminal (stderr) only.
    assert "samples of schema[people].properties[email].quality[1]:" in done.stderr
    assert "'SECRET_ROW'" in done.stderr
    assert "SECRET_ROW" not in done.stdout and "SECRET_ROW" not in report_file.read_text()
    quiet = packata("check", str(contract), "--url", f"{engine}:///{database}", "--format", "json")
    assert "SECRET_ROW" not in quiet.stderr + quiet.stdout


def test_live_progress_on_a_terminal_stays_off_stdout(shop):
    """stderr a terminal (a pty), not CI: the transient rich display draws there, and stdout
    is the same report as without progress."""
    import pty

    contract, url = shop
    leader, follower = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS")}
    process = subprocess.Popen(
        [sys.executable, "-m", "packata_sql", "check", str(contract), "--url", url, "--format",
         "json"], stdout=subprocess.PIPE, stderr=follower, text=True, env=environment)
    os.close(follower)
    out, _ = process.communicate(timeout=120)
    drawn = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the pty is closed once the program has ended
            break
        if not chunk:
            break
        drawn += chunk
    os.close(leader)
    assert b"\x1b[" in drawn and b"scanning" not in drawn  # rich's display, not plain lines
    none = packata("check", str(contract), "--url", url, "--format", "json", "--progress", "none")
    assert _untimed(out) == _untimed(none.stdout)


def test_verbose_shows_the_drivers_connection_message_for_each_rule(shop):
    """Issue 24.3: the report groups the rules a connection failure left unmeasured in one
    line; `-v` still gives each rule the driver's own message."""
    contract, _ = shop
    secret = "pw_SENTINEL_14"
    done = packata("check", str(contract), "--url", "postgresql://u@127.0.0.1:1/db", "-v",
                   "--format", "json", env={"PACKATA_PASSWORD": secret})
    assert done.returncode == 2
    keys = [rule["key"] for rule in json.loads(done.stdout)["rules"]
            if rule["status"] == "error"]
    assert len(keys) > 1
    for key in keys:
        assert done.stderr.count(f"packata-sql: {key}: engine said:") == 1
    assert "Connection refused" in done.stderr  # libpq's words, not packata-sql's hint
    assert done.stderr.count("cannot connect to") == 1
    assert secret not in done.stderr + done.stdout


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_pretty_sql_gives_the_same_answers_as_the_plan(engine, tmp_path):
    """`compile --format sql` lays the SQL out for reading; run on the engine, each statement
    returns what the plan's own SQL returns (the golden contract: odd names, quotes, regex)."""
    import sqlite3

    golden = Path(__file__).resolve().parents[1] / "golden" / "contract.yaml"
    table = "it's \"odd\" `tbl` [x]".replace('"', '""')
    database = tmp_path / f"g.{engine}"
    connection = duckdb.connect(str(database)) if engine == "duckdb" else sqlite3.connect(database)
    connection.execute(f'CREATE TABLE "{table}" ("Mixed Case" TEXT, "select" INTEGER, flag BOOLEAN)')
    connection.execute(f'INSERT INTO "{table}" VALUES (\'Ab1\', 1, true), (\'\', 2, false), '
                       f"('back\\slash', NULL, NULL), ('Ab1', -3, true)")
    # The nested property: a STRUCT on DuckDB, JSON text on SQLite (one address, one without).
    nested = ("STRUCT(\"a b's `x`\" STRUCT(\"city.名\" VARCHAR, \"zip \"\"code\"\"\" INTEGER))"
              if engine == "duckdb" else "TEXT")
    address = ("{'a b''s `x`': {'city.名': 'Munich', 'zip \"code\"': 999}}" if engine == "duckdb"
               else '\'{"a b\'\'s `x`": {"city.名": "Munich", "zip \\"code\\"": 999}}\'')
    connection.execute(f'ALTER TABLE "{table}" ADD COLUMN "cust ""info""" {nested}')
    connection.execute(f'UPDATE "{table}" SET "cust ""info""" = {address} WHERE "select" = 1')
    if engine == "sqlite":
        connection.commit()
        # The same REGEXP in both statements: any implementation serves the comparison.
        connection.create_function("regexp", 2, lambda pattern, value: None if value is None
                                   else re.search(pattern, value) is not None)
    plan = json.loads(packata("compile", str(golden), "--dialect", engine, "--format", "json").stdout)
    pretty = packata("compile", str(golden), "--dialect", engine, "--format", "sql").stdout
    statements = [s.strip() for s in re.split(r";\n", pretty) if s.strip()]
    laid_out = [("\n".join(line for line in s.splitlines() if not line.startswith("--"))).strip()
                for s in statements]
    laid_out = [s for s in laid_out if s]
    originals = [scan["sql"] for scan in plan["scans"]] + [r["sql"] for r in plan["rules"] if r["sql"]]
    assert len(laid_out) == len(originals)
    assert any("\n" in s for s in laid_out)  # one clause per line, not the one-line plan
    for readable, original in zip(laid_out, originals, strict=True):
        assert connection.execute(readable).fetchall() == connection.execute(original).fetchall()
    connection.close()

"""Issue 24.3: what goes wrong once for many rules (the login, a missing object) is one grouped
line naming the fix (the variable that gave the password or token; the missing object and
the closest existing one, for SQL rules too), each row says `not measured: see above`, and
`-v` still gives each rule the engine's own message, never the secret. The installed
`packata-sql` binary runs against the real engines."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import duckdb
import pytest
import yaml

from integration.conftest import READER, Server, SparkServer

BINARY = str(Path(sys.executable).with_name("packata-sql"))
WRONG = "Wr0ng-pw-SENTINEL-24"
SEE_ABOVE = "not measured: see above"
HEAD = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "g", "version": "1.0.0",
        "status": "active"}


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items()
                   if not k.startswith("PACKATA_") or k.startswith("PACKATA_TEST")}
    return subprocess.run([BINARY, *args, "--progress", "none"], capture_output=True,
                          text=True, timeout=180, env={**environment, **(env or {})})


def objects(*names: str, sql_table: str | None = None) -> list[dict[str, Any]]:
    """Each object with library rules on it and its columns, and SQL rules reading it."""
    schema = []
    for name in names:
        table = sql_table or name
        schema.append({
            "name": name,
            "quality": [{"metric": "rowCount", "mustBe": 2},
                        {"type": "sql", "query": f"SELECT COUNT(*) FROM {table}", "mustBe": 2},
                        {"type": "sql", "mustBe": 0, "query":
                         f"WITH x AS (SELECT 1 AS n) SELECT COUNT(*) FROM x JOIN {table} "
                         "ON 1 = 1 WHERE a IS NULL"}],
            "properties": [{"name": "a", "quality": [{"metric": "nullValues", "mustBe": 0}]},
                           {"name": "b", "quality": [{"metric": "nullValues", "mustBe": 1}]}],
        })
    return schema


def write(path: Path, schema: list[dict[str, Any]],
          servers: list[dict[str, Any]] | None = None) -> Path:
    path.write_text(yaml.safe_dump({**HEAD, **({"servers": servers} if servers else {}),
                                    "schema": schema}), encoding="utf-8")
    return path


def grouped_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "not measured:" in line
            and SEE_ABOVE not in line]


def assert_grouped(done: subprocess.CompletedProcess[str], count: int, *needles: str) -> None:
    """One stderr line (and one in the table) for `count` rules, naming every needle; each of
    those rules' rows says `not measured: see above`."""
    lines = grouped_lines(done.stderr)
    assert len(lines) == 1, done.stderr
    assert f"{count} rules not measured" in lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    table = " ".join(done.stdout.split())  # the table wraps long lines
    assert f"{count} rules not measured" in table
    assert table.count(SEE_ABOVE) == count


def make_orders(server: Server) -> str:
    """`grp_orders` with 2 rows (one NULL b), readable by the SELECT-only login."""
    server.execute("DROP TABLE IF EXISTS grp_orders", "CREATE TABLE grp_orders (a INT, b TEXT)",
                   "INSERT INTO grp_orders VALUES (1, 'x'), (2, NULL)")
    if server.engine == "postgres":
        server.execute(f"GRANT SELECT ON grp_orders TO {READER}")
    return "grp_orders"


@pytest.fixture
def probe(postgres: Server) -> Iterator[str]:
    yield make_orders(postgres)
    postgres.execute("DROP TABLE IF EXISTS grp_orders")


#: What each engine's driver says of a wrong password (`-v` only).
REFUSED = {"postgres": "password authentication failed", "mysql": "Access denied"}


def test_a_refused_login_is_one_line_naming_the_servers_password_variable(server, tables,
                                                                        tmp_path):
    """A server named `maria` takes its login from PACKATA_MARIA_*: the line names them."""
    tables.append(make_orders(server))
    reader = urlsplit(server.reader_url)
    database = reader.path.lstrip("/")
    entry = {"server": "maria", "type": server.engine, "host": reader.hostname,
             "port": reader.port or (5432 if server.engine == "postgres" else 3306),
             "database": database, "schema": "public" if server.engine == "postgres"
             else database}
    contract = write(tmp_path / "c.yaml", objects("grp_orders", "grp_other"), [entry])
    env = {"PACKATA_MARIA_USERNAME": READER, "PACKATA_MARIA_PASSWORD": WRONG}
    done = cli("check", str(contract), env=env)
    assert done.returncode == 2, done.stderr
    # 2 objects x (3 quality + 2 nullValues + 2 column-present checks)
    assert_grouped(done, 14, "cannot connect to", "check PACKATA_MARIA_USERNAME and the "
                   "password in PACKATA_MARIA_PASSWORD")
    assert "PACKATA_<SERVER>" not in done.stdout + done.stderr
    verbose = cli("check", str(contract), "-v", "--format", "json", env=env)
    keys = [rule["key"] for rule in json.loads(verbose.stdout)["rules"]]
    assert len(keys) == 14
    for key in keys:
        said = [line for line in verbose.stderr.splitlines()
                if line.startswith(f"packata-sql: {key}: engine said:")]
        assert len(said) == 1 and REFUSED[server.engine] in said[0], said
    assert len(grouped_lines(verbose.stderr)) == 1
    for output in (done, verbose):
        assert WRONG not in output.stdout + output.stderr
    # With the right password the same contract runs (the wrong one was all that was wrong).
    right = cli("check", str(contract), "--format", "json",
                env={**env, "PACKATA_MARIA_PASSWORD": "packata_ro"})
    statuses = {rule["status"] for rule in json.loads(right.stdout)["rules"]}
    assert "passed" in statuses


def test_a_refused_login_by_url_names_packata_password(postgres, probe, tmp_path):
    reader = urlsplit(postgres.reader_url)
    url = f"postgresql://{READER}@{reader.hostname}:{reader.port or 5432}{reader.path}"
    contract = write(tmp_path / "c.yaml", objects(probe))
    done = cli("check", str(contract), "--url", url, env={"PACKATA_PASSWORD": WRONG})
    assert_grouped(done, 7, "check the user in the URL and the password in PACKATA_PASSWORD")
    assert WRONG not in done.stdout + done.stderr


def _missing_table_run(url: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`grp_ordrs` is misspelt; `grp_orders` exists. One SQL rule reads the missing table
    under an object whose name exists, so only the query names it."""
    schema = objects("grp_ordrs")
    schema.append({"name": "grp_orders", "quality": [
        {"type": "sql", "query": "SELECT COUNT(*) FROM grp_ordrs", "mustBe": 2},
        {"metric": "rowCount", "mustBe": 2}]})
    contract = write(tmp_path / "c.yaml", schema)
    return cli("check", str(contract), "--url", url)


def _assert_missing_table(done: subprocess.CompletedProcess[str], tmp_path: Path,
                          url: str) -> None:
    # 3 quality + 2 nullValues + 2 present on grp_ordrs, and the SQL rule on grp_orders.
    assert_grouped(done, 8, "missing-object", "no object 'grp_ordrs'; did you mean "
                   "'grp_orders'?")
    report = json.loads(cli("check", str(tmp_path / "c.yaml"), "--url", url, "--format",
                            "json").stdout)
    sql_rules = [r for r in report["rules"] if r["kind"] == "sql"
                 and r["status"] == "error"]
    assert len(sql_rules) == 3  # both SQL rules on grp_ordrs and the one on grp_orders
    for rule in sql_rules:
        assert "no object 'grp_ordrs'; did you mean 'grp_orders'?" in \
            rule["diagnostic"]["message"]
    assert [r["status"] for r in report["rules"] if r["key"] == "schema[grp_orders].quality[1]"] \
        == ["passed"]


def test_a_missing_table_is_one_line_with_the_closest_name_on_postgres(postgres, probe,
                                                                      tmp_path):
    done = _missing_table_run(postgres.reader_url, tmp_path)
    _assert_missing_table(done, tmp_path, postgres.reader_url)


def test_a_missing_table_is_one_line_with_the_closest_name_on_duckdb(tmp_path):
    database = tmp_path / "g.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE grp_orders (a INT, b VARCHAR)")
    connection.execute("INSERT INTO grp_orders VALUES (1, 'x'), (2, NULL)")
    connection.close()
    url = f"duckdb:///{database}"
    done = _missing_table_run(url, tmp_path)
    _assert_missing_table(done, tmp_path, url)
    markdown = cli("check", str(tmp_path / "c.yaml"), "--url", url, "--format", "markdown")
    assert markdown.stdout.count("> error: 8 rules not measured: missing-object:") == 1
    assert markdown.stdout.count(SEE_ABOVE) == 8
    cli("check", str(tmp_path / "c.yaml"), "--url", url, "--output", f"html={tmp_path}/r.html")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.count('<p class="problem">error: 8 rules not measured: missing-object:') == 1
    assert page.count(SEE_ABOVE) == 8


def test_a_refused_spark_token_names_the_token_variable(spark: SparkServer, tmp_path):
    wrong = re.sub(r"token=[^;]*", f"token={WRONG}", spark.url)
    location = urlsplit(wrong.replace("sc://", "http://", 1))
    server = {"server": "lake", "type": "spark", "host": location.hostname,
              "port": location.port}
    contract = write(tmp_path / "c.yaml", [{"name": "t", "quality": [
        {"metric": "rowCount", "mustBe": 1}, {"metric": "rowCount", "mustBe": 2}]}], [server])
    done = cli("check", str(contract), env={"PACKATA_LAKE_PASSWORD": WRONG})
    assert_grouped(done, 2, "check the Spark Connect token in PACKATA_LAKE_PASSWORD")
    assert "~/.pgpass" not in done.stderr
    by_url = cli("check", str(contract), "--url", re.sub(r";token=[^;]*", "", spark.url),
                 env={"PACKATA_PASSWORD": WRONG})
    assert_grouped(by_url, 2, "check the Spark Connect token in PACKATA_PASSWORD")
    for output in (done, by_url):
        assert WRONG not in output.stdout + output.stderr


def test_a_missing_schema_is_one_line_with_the_closest_schema(postgres, probe, tmp_path):
    contract = write(tmp_path / "c.yaml", objects(probe))
    on_postgres = cli("check", str(contract), "--url", f"{postgres.reader_url}?schema=pubilc")
    assert_grouped(on_postgres, 7, "no schema 'pubilc'; did you mean 'public'?")
    database = tmp_path / "g.duckdb"
    duckdb.connect(str(database)).close()
    on_duckdb = cli("check", str(contract), "--url", f"duckdb:///{database}?schema=mian")
    assert_grouped(on_duckdb, 7, "no schema 'mian'; did you mean 'main'?")


def test_a_missing_spark_schema_names_the_closest_one(spark: SparkServer, tmp_path):
    contract = write(tmp_path / "c.yaml", [{"name": "t", "quality": [
        {"metric": "rowCount", "mustBe": 1}, {"metric": "rowCount", "mustBe": 2}]}])
    misspelt = spark.database[:-1] + "x" + spark.database[-1]
    done = cli("check", str(contract), "--url", f"{spark.url};schema={misspelt}")
    assert_grouped(done, 2, f"no schema '{misspelt}'; did you mean '{spark.database}'?")

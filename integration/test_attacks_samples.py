"""Attack round on `check --samples` (issue 24.2) on the live servers, through the real program:
odd column names (mixed case, a space, a reserved word), a primary key classified PII,
hostile values (escape sequences, a bidirectional override, line breaks, a workflow command),
an object that is a view, and a key of a type with no ordering (PostgreSQL `json`)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from .conftest import Server, SparkServer, load_rows
from .test_samples_on_engines import _blocks

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = ROOT / ".venv" / "bin" / "packata-sql"
TABLE = "atk_samples"
HOSTILE = "\x1b]8;;http://evil\x07a\x1b[2J\u202eb\n::error::c"
ACTIVE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
ROWS = [(11, "alice@secret", HOSTILE, "paid"), (12, "bob@secret", "ok", "x"),
        (13, None, "ok", "x")]


def _contract(name: str, key: dict[str, object]) -> dict[str, object]:
    def invalid(column: str, **extra: object) -> dict[str, object]:
        return {"name": column, **extra, "quality": [
            {"metric": "invalidValues", "arguments": {"validValues": ["ok"]}, "mustBe": 0}]}
    return {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "atk", "version": "1.0.0",
            "status": "active", "schema": [{"name": name, "properties": [
                key, invalid("Mail", physicalName="Mail", classification="PII"),
                invalid("Mixed Case", physicalName="Mixed Case"),
                invalid("select", physicalName="select")]}]}


def _check(document: dict[str, object], url: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    return subprocess.run([str(PROGRAM), "check", str(path), "--url", url, "--samples", "3",
                           "--progress", "none", "--format", "json"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "200"})


@pytest.fixture(params=("postgres", "mysql", "spark"))
def hostile(request: pytest.FixtureRequest) -> tuple[str, str]:
    """The engine and its SELECT-only URL; on Spark the object is a view."""
    engine = str(request.param)
    if engine == "spark":
        spark: SparkServer = request.getfixturevalue("spark")
        admin = spark.admin()
        try:
            values = ", ".join(
                "(" + ", ".join("NULL" if v is None else "'" + str(v).replace("\\", "\\\\")
                                .replace("'", "\\'").replace("\n", "\\n") + "'"
                                if isinstance(v, str) else str(v) for v in row) + ")"
                for row in ROWS)
            admin.sql(f"CREATE OR REPLACE VIEW `{spark.database}`.`{TABLE}` AS SELECT CAST(ID "
                      "AS INT) AS ID, Mail, `Mixed Case`, `select` FROM VALUES "
                      f"{values} AS t(ID, Mail, `Mixed Case`, `select`)")
        finally:
            admin.stop()
        return engine, f"{spark.url};schema={spark.database}"
    server: Server = request.getfixturevalue(engine)
    q = '"' if engine == "postgres" else "`"
    name = f"{q}{TABLE}{q}"
    load_rows(server, [f"DROP TABLE IF EXISTS {name}",
                       f"CREATE TABLE {name} ({q}ID{q} INTEGER, {q}Mail{q} VARCHAR(40), "
                       f"{q}Mixed Case{q} VARCHAR(80), {q}select{q} VARCHAR(10))"],
              f"INSERT INTO {name} VALUES (%s, %s, %s, %s)", ROWS)
    request.addfinalizer(lambda: server.execute(f"DROP TABLE IF EXISTS {name}"))
    return engine, server.reader_url


def test_odd_names_a_pii_key_and_hostile_values(hostile: tuple[str, str], tmp_path: Path) -> None:
    engine, url = hostile
    key = {"name": "ID", "physicalName": "ID", "primaryKey": True, "classification": "pii"}
    done = _check(_contract(TABLE, key), url, tmp_path)
    assert done.returncode == 1, done.stderr
    assert "secret" not in done.stderr + done.stdout
    assert not re.search(r"\b1[123]\b", "\n".join(line for line in done.stderr.splitlines()
                                                  if line.startswith("  ")))  # no key value
    assert not ACTIVE.search(done.stderr), engine
    assert not re.search(r"^\s*::", done.stderr, re.MULTILINE)
    shown = _blocks(done.stderr.splitlines())
    where = f"schema[{TABLE}].properties"
    assert shown[f"{where}[Mail].quality[0]"] == [
        "3 offending rows, 1 of them NULL; Mail withheld (classification pii); key ID withheld "
        "(classification pii)", "  Mail withheld × 2 (ID withheld)", "  Mail NULL × 1 (ID withheld)"]
    assert shown[f"{where}[Mixed Case].quality[0]"] == [
        "1 offending row; key ID withheld (classification pii)",
        "  Mixed Case 'ab \\::error::c' × 1 (ID withheld)"]
    assert shown[f"{where}[select].quality[0]"][1:] == [
        "  select 'x' × 2 (ID withheld)", "  select 'paid' × 1 (ID withheld)"], engine


@pytest.mark.parametrize("kind", ("TABLE", "VIEW"))
def test_a_key_without_an_ordering_still_keys_the_sample(postgres: Server, kind: str,
                                                         tmp_path: Path) -> None:
    """PostgreSQL's `json` has no ordering: the sample used to fail on `ORDER BY` the key
    (silently, but under -v); it now sorts the key by its text."""
    table = f"{TABLE}_json_{kind.lower()}"
    name, source = f'"{table}"', f'"{table}_rows"'
    statements = [f"DROP {kind} IF EXISTS {name}", f"DROP TABLE IF EXISTS {source}"]
    postgres.execute(*statements)
    load_rows(postgres, [f"CREATE TABLE {source} (k json, s text)"],
              f"INSERT INTO {source} VALUES (%s, %s)", [('{"a": 1}', "bad"), ("[2]", "bad")])
    postgres.execute(f"CREATE {kind} {name} AS SELECT * FROM {source}",
                     f"GRANT SELECT ON {name} TO packata_ro")
    try:
        document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "atk",
                    "version": "1.0.0", "status": "active", "schema": [{
                        "name": table, "properties": [
                            {"name": "k", "primaryKey": True},
                            {"name": "s", "quality": [{"metric": "invalidValues", "arguments": {
                                "validValues": ["ok"]}, "mustBe": 0}]}]}]}
        done = _check(document, postgres.reader_url, tmp_path)
    finally:
        postgres.execute(*statements)
    assert _blocks(done.stderr.splitlines())[f"schema[{table}].properties[s].quality[0]"] == [
        "2 offending rows", "  s 'bad' × 2 (k '[2]')"], done.stderr

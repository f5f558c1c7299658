"""`check --samples N` (issue 24.2) on the live engines, through the real program: per failed
rule the offending values typed as their column is, deduplicated with a count, each with one
row's primary key, NULLs counted in the head line, and a `classification: pii` column's values
never read. The lines are the ones docs/cli.md shows."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from .conftest import Server, SparkServer, embedded_database, load_rows

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = ROOT / ".venv" / "bin" / "packata-sql"
TABLE = "sample_orders"
ENGINES = ("duckdb", "sqlite", "postgres", "mysql", "spark")
CONTRACT = f"""\
apiVersion: v3.1.0
kind: DataContract
id: samples
version: 1.0.0
status: active
schema:
  - name: {TABLE}
    properties:
      - name: order_id
        primaryKey: true
      - name: email
        classification: PII
        quality:
          - metric: invalidValues
            arguments: {{pattern: '^[a-z0-9]+@x[.]org$'}}
            mustBe: 0
      - name: status
        quality:
          - metric: invalidValues
            arguments: {{validValues: [paid, shipped]}}
            mustBe: 0
      - name: amount
        quality:
          - metric: invalidValues
            arguments: {{validValues: [10, 20, 30]}}
            mustBeLessThan: 5
      - name: customer
        quality:
          - metric: duplicateValues
            mustBe: 0
"""
COLUMNS = "order_id INTEGER, customer {t}, email {t}, status {t}, amount INTEGER"


def _rows() -> list[tuple[object, ...]]:
    """60 orders: 12 'bitcoin' and 7 'N/A' statuses, 10 NULL and 10 malformed e-mails, 6
    amounts of -500, three customers of 20 orders each."""
    rows: list[tuple[object, ...]] = []
    for i in range(1, 61):
        status = "bitcoin" if i % 5 == 0 else "N/A" if i % 7 == 0 else "paid"
        email = None if i % 6 == 0 else f"bad{i}" if i % 4 == 0 else f"u{i}@x.org"
        rows.append((i, f"c{i % 3}", email, status, -500 if i % 9 == 0 else 10 * i))
    return rows


@pytest.fixture(params=ENGINES)
def orders(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """The engine and the URL of its SELECT-only login, the table loaded."""
    engine = str(request.param)
    if engine in ("duckdb", "sqlite"):
        path = tmp_path / f"w.{engine}"
        embedded_database(engine, path, [f"CREATE TABLE {TABLE} ({COLUMNS.format(t='TEXT')})"],
                          f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?, ?)", _rows())
        return engine, f"{engine}:///{path}"
    if engine == "spark":
        spark: SparkServer = request.getfixturevalue("spark")
        admin = spark.admin()
        try:
            values = ", ".join(
                "(" + ", ".join("NULL" if v is None else repr(v) for v in row) + ")"
                for row in _rows())
            admin.sql(f"CREATE OR REPLACE VIEW `{spark.database}`.`{TABLE}` AS SELECT CAST("
                      "order_id AS INT) AS order_id, customer, email, status, CAST(amount AS INT)"
                      f" AS amount FROM VALUES {values} AS t(order_id, customer, email, status, "
                      "amount)")
        finally:
            admin.stop()
        return engine, f"{spark.url};schema={spark.database}"
    server: Server = request.getfixturevalue(engine)
    quoted = f'"{TABLE}"' if engine == "postgres" else f"`{TABLE}`"
    load_rows(server, [f"DROP TABLE IF EXISTS {quoted}",
                       f"CREATE TABLE {quoted} ({COLUMNS.format(t='VARCHAR(40)')})"],
              f"INSERT INTO {quoted} VALUES (%s, %s, %s, %s, %s)", _rows())
    request.addfinalizer(lambda: server.execute(f"DROP TABLE IF EXISTS {quoted}"))
    return engine, server.reader_url


def _documented() -> list[str]:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = page[page.index("### `--samples N`"):]
    block = re.search(r"```\n(packata-sql: samples.*?)```", section, re.DOTALL)
    assert block is not None
    return block.group(1).replace("schema[orders]", f"schema[{TABLE}]").splitlines()


def _blocks(lines: list[str]) -> dict[str, list[str]]:
    """Each rule's sample: its head line first, then its values."""
    blocks: dict[str, list[str]] = {}
    current = ""
    for line in lines:
        if line.startswith("packata-sql: samples of "):
            current, _, head = line.removeprefix("packata-sql: samples of ").partition(": ")
            blocks[current] = [head]
        elif line.startswith("  ") and current:
            blocks[current].append(line)
    return blocks


def test_samples_are_typed_keyed_counted_and_withhold_pii(orders: tuple[str, str]) -> None:
    engine, url = orders
    contract = Path(os.environ.get("TMPDIR", "/tmp")) / f"samples-{engine}-{os.getpid()}.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    try:
        done = subprocess.run(
            [str(PROGRAM), "check", str(contract), "--url", url, "--samples", "2",
             "--progress", "none", "--format", "json"],
            capture_output=True, text=True, timeout=300)
    finally:
        contract.unlink()
    assert done.returncode == 1, done.stderr
    shown, documented = _blocks(done.stderr.splitlines()), _blocks(_documented())
    assert set(shown) == set(documented), done.stderr
    for key, lines in documented.items():
        # Values of equal counts may come in either order (the e-mail's NULLs and the others).
        assert shown[key][0] == lines[0] and sorted(shown[key]) == sorted(lines), (engine, key)
    assert shown[f"schema[{TABLE}].properties[amount].quality[0]"] == \
        documented[f"schema[{TABLE}].properties[amount].quality[0]"]  # most frequent first
    # The PII column's values were never read; no value reaches the report on stdout.
    assert "bad" not in done.stderr and "@x.org" not in done.stderr
    assert "bitcoin" not in done.stdout and "bad4" not in done.stdout

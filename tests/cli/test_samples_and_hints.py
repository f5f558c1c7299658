"""Issue 24.2 and 24.5 through the real program on DuckDB: a failed rule's row in the human
reports carries a one-line `inspect:` hint, not its triage query (which JSON and `-v` keep
whole); `--samples` prints typed, keyed, counted values; a SQL rule is labelled by its name or
id, shows its description and its value with its own unit, or none."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / ".venv" / "bin" / "packata-sql"
sys.path.insert(0, str(ROOT / "tests" / "render"))
from test_html_in_chromium import _browser  # noqa: E402  (the chromium the HTML test uses)

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: hints
version: 1.0.0
status: active
schema:
  - name: orders
    quality:
      - type: sql
        id: orders_fresh
        description: Hours since the newest order
        query: SELECT 2.5 FROM orders LIMIT 1
        unit: h
        mustBeLessThan: 1
      - type: sql
        name: no negative amounts
        query: SELECT COUNT(*) = 0 FROM orders WHERE amount < 0
        mustBe: true
      - type: sql
        query: SELECT COUNT(*) FROM orders WHERE amount < 0
        mustBe: 0
    properties:
      - name: order_id
        primaryKey: true
      - name: status
        quality:
          - metric: invalidValues
            arguments: {validValues: [paid, shipped]}
            mustBe: 0
      - name: note
        quality:
          - metric: invalidValues
            arguments: {validValues: [ok]}
            mustBe: 0
      - name: card
        classification: restricted
        quality:
          - metric: nullValues
            mustBe: 0
      - name: phone
        tags: [billing, PII]
        quality:
          - metric: invalidValues
            arguments: {validValues: ['555']}
            mustBe: 0
"""
STATUS = "schema[orders].properties[status].quality[0]"
HINT = f"inspect: packata-sql check … --samples 5 --select '{STATUS}'"


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, str]:
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE orders (order_id INTEGER, status VARCHAR, note VARCHAR, "
                       "card VARCHAR, phone VARCHAR, amount INTEGER)")
    connection.execute("INSERT INTO orders VALUES (1, 'paid', 'ok', '4111', '555', 5), "
                       "(2, 'bitcoin', 'it''s', '4222', '555', -1), "
                       "(3, 'bitcoin', 'ok', NULL, '0170', -2), (4, '42', 'ok', NULL, '555', 7)")
    connection.close()
    contract = tmp_path / "c.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    return contract, f"duckdb:///{database}"


def packata(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PROGRAM), *args], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "COLUMNS": "200"})


def test_the_table_shows_a_hint_and_v_the_whole_query(shop):
    contract, url = shop
    done = packata("check", str(contract), "--url", url, "--progress", "none")
    assert done.returncode == 1
    assert HINT in done.stdout
    assert "SELECT" not in done.stdout and "COLLATE" not in done.stdout
    assert "inspect:" not in done.stderr  # the query only with -v
    verbose = packata("check", str(contract), "--url", url, "--progress", "none", "-v")
    assert re.search(rf"packata-sql: {re.escape(STATUS)}: inspect: SELECT .*LIMIT 20",
                     verbose.stderr)
    report = json.loads(packata("check", str(contract), "--url", url, "--format", "json").stdout)
    rules = {rule["key"]: rule for rule in report["rules"]}
    assert rules[STATUS]["inspect_sql"].startswith("SELECT") and \
        rules[STATUS]["inspect_sql"].endswith("LIMIT 20")


def test_sql_rules_are_labelled_described_and_carry_their_own_unit(shop):
    contract, url = shop
    table = packata("check", str(contract), "--url", url, "--progress", "none").stdout
    rows = {line.split("│")[2].strip(): line.split("│")[3].strip()
            for line in table.splitlines() if line.count("│") == 4}
    assert rows["orders_fresh"] == "2.5 h"  # its id, its unit
    assert rows["Hours since the newest order"] == "expected < 1"
    assert rows["no negative amounts"] == "false"  # a boolean, not `0 rows`
    assert rows["orders · sql"] == "2"  # no unit declared: none shown
    report = json.loads(packata("check", str(contract), "--url", url, "--format", "json").stdout)
    fresh = next(rule for rule in report["rules"] if rule["key"] == "orders_fresh")
    assert (fresh["kind"], fresh["unit"], fresh["description"]) == \
        ("sql", "h", "Hours since the newest order")
    github = packata("check", str(contract), "--url", url, "--format", "github").stdout
    annotation = next(line for line in github.splitlines() if "title=failed%3A orders_fresh" in line)
    assert annotation.endswith("(measured 2.5 h)%0AHours since the newest order")
    status = next(line for line in github.splitlines() if f"::{STATUS}" in line)
    assert status.endswith(f"%0A{HINT}")


def test_samples_are_typed_counted_keyed_and_withhold_restricted_values(shop):
    contract, url = shop
    done = packata("check", str(contract), "--url", url, "--progress", "none", "--samples", "5")
    assert f"packata-sql: samples of {STATUS}: 3 offending rows\n" \
           "  status 'bitcoin' × 2 (order_id 2)\n  status '42' × 1 (order_id 4)\n" in done.stderr
    # A quote inside a value is written as SQL writes it, and never breaks the sample.
    assert "  note 'it''s' × 1 (order_id 2)\n" in done.stderr
    card = "schema[orders].properties[card].quality[0]"
    assert f"packata-sql: samples of {card}: 2 offending rows; card withheld " \
           "(classification restricted)\n  card NULL × 2 (order_id 3)\n" in done.stderr
    assert "4111" not in done.stderr + done.stdout and "4222" not in done.stderr + done.stdout
    phone = "schema[orders].properties[phone].quality[0]"  # a `pii` tag withholds it too
    assert f"packata-sql: samples of {phone}: 1 offending row; phone withheld (tag pii)\n" \
           "  phone withheld × 1 (order_id 3)\n" in done.stderr
    assert "0170" not in done.stderr + done.stdout


def test_an_object_tagged_pii_withholds_every_column_and_its_key(shop):
    contract, url = shop
    contract.write_text(CONTRACT.replace("  - name: orders\n", "  - name: orders\n    tags: [PII]\n"),
                        encoding="utf-8")
    done = packata("check", str(contract), "--url", url, "--progress", "none", "--samples", "5")
    assert f"packata-sql: samples of {STATUS}: 3 offending rows; status withheld " \
           "(object tag pii); key order_id withheld (object tag pii)\n" \
           "  status withheld × 3 (order_id withheld)\n" in done.stderr
    assert "bitcoin" not in done.stderr + done.stdout
    card = "schema[orders].properties[card].quality[0]"  # its own classification still says why
    assert f"samples of {card}: 2 offending rows; card withheld (classification restricted)" \
        in done.stderr


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[str] = []
        self._open = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "td":
            self._open = True
            self.cells.append("")
        elif tag == "br" and self._open:
            self.cells[-1] += "\n"

    def handle_endtag(self, tag: str) -> None:
        self._open = self._open and tag != "td"

    def handle_data(self, data: str) -> None:
        if self._open:
            self.cells[-1] += data


def test_markdown_cells_parse_to_the_hint_and_the_description(shop):
    contract, url = shop
    text = packata("check", str(contract), "--url", url, "--format", "markdown").stdout
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    cells = _Cells()
    cells.feed(rendered)
    assert f"orders.status · invalidValues\n{STATUS}\n{HINT}" in cells.cells
    assert "orders_fresh\nHours since the newest order" in cells.cells
    assert "<em>Hours since the newest order</em>" in rendered
    assert f"<code>{HINT.replace(chr(39), '&#x27;')}</code>" in rendered or \
        f"<code>{HINT}</code>" in rendered


def test_html_in_chromium_shows_the_hint_and_the_description(shop, tmp_path):
    contract, url = shop
    page = tmp_path / "r.html"
    packata("check", str(contract), "--url", url, "--output", f"html={page}")
    dom = _browser("--dump-dom", page.as_uri()).stdout
    cells = _Cells()
    cells.feed(dom)
    assert f"orders.status · invalidValues\n{STATUS}\n{HINT}" in cells.cells
    assert "orders_fresh\norders_fresh\nHours since the newest order" in cells.cells
    assert "SELECT" not in dom


def test_the_hint_wraps_between_words_and_key_parts_at_80_columns(shop):
    contract, url = shop
    done = subprocess.run([str(PROGRAM), "check", str(contract), "--url", url, "--progress",
                           "none"], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "COLUMNS": "80"})
    cells = [line.split("│")[2].strip() for line in done.stdout.splitlines()
             if line.count("│") == 4]
    start = cells.index("inspect: packata-sql check …")
    hint = cells[start:start + 4]
    # Every break falls after a word or between the key's parts, never inside a name.
    assert " ".join(hint).replace(". ", ".") == HINT, hint
    assert all(line.endswith(("…", "--select", "5", ".", "'")) for line in hint), hint

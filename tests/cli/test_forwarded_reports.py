"""Reports people forward (issue 24 item 7), through the real binary on a DuckDB file: the
Markdown summary parsed by a CommonMark parser (header, per-object counts, failures before the
fold of passed rules, real tables), a large contract's summary kept within GitHub's step summary
limit with a note saying what was cut, and the JSON report naming the packata-sql release."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import duckdb
import pytest
import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from packata_sql import __version__
from packata_sql.contracts.model import Category, Severity
from packata_sql.render.markdown import STEP_SUMMARY_LIMIT, render_markdown
from packata_sql.report import Report, RuleResult, Status

BINARY = Path(sys.executable).parent / "packata-sql"
NBSP = "\u00a0"


def _warehouse(tmp_path: Path) -> Path:
    database = tmp_path / "shop.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE people AS SELECT * FROM (VALUES ('a@x'), (NULL), ('b@y'))"
                       " t(email)")
    connection.execute("CREATE TABLE orders AS SELECT range AS id FROM range(50000)")
    connection.close()
    return database


def _contract(tmp_path: Path, people: list[dict[str, object]],
              orders: list[dict[str, object]]) -> Path:
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "urn:example:shop",
                "version": "2.3.0", "status": "active", "schema": [
                    {"name": "people", "properties": [{"name": "email", "quality": people}]},
                    {"name": "orders", "quality": orders}]}
    contract = tmp_path / "c.yaml"
    contract.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return contract


def _check(contract: Path, database: Path, tmp_path: Path) -> tuple[str, dict[str, object]]:
    summary, report = tmp_path / "summary.md", tmp_path / "report.json"
    done = subprocess.run([str(BINARY), "check", contract.name, "--url", f"duckdb:///{database}",
                           "--output", f"markdown={summary}", "--output", f"json={report}",
                           "--progress", "none"], capture_output=True, text=True, timeout=300,
                          cwd=contract.parent)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    return summary.read_text(encoding="utf-8"), json.loads(report.read_text(encoding="utf-8"))


def _tokens(text: str) -> list[Token]:
    return MarkdownIt("commonmark", {"html": True}).enable("table").parse(text)


def _tables(tokens: list[Token]) -> list[tuple[int, list[list[str]]]]:
    """Each table's position in the token stream and its rows of cell texts."""
    tables: list[tuple[int, list[list[str]]]] = []
    rows: list[list[str]] = []
    for index, token in enumerate(tokens):
        if token.type == "table_open":
            tables.append((index, rows := []))
        elif token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and tokens[index - 1].type in ("th_open", "td_open"):
            rows[-1].append(token.content)
    return tables


def test_markdown_header_counts_failures_first_and_passed_folded(tmp_path: Path) -> None:
    contract = _contract(tmp_path, [{"metric": "nullValues", "mustBe": 0},
                                    {"metric": "nullValues", "mustBeLessThan": 10,
                                     "unit": "percent"}],
                         [{"metric": "rowCount", "mustBeGreaterThan": 0},
                          {"metric": "rowCount", "mustBeLessThan": 10}])
    text, report = _check(contract, _warehouse(tmp_path), tmp_path)
    tokens = _tokens(text)
    heading = tokens[tokens.index(next(t for t in tokens if t.type == "heading_open")) + 1]
    assert heading.content == "packata-sql · c.yaml"
    paragraphs = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "paragraph_open"]
    assert paragraphs[0] == "**FAIL · 2 passed, 3 failed**"
    assert paragraphs[1].startswith(f"contract `urn:example:shop` · version `2.3.0` · packata-sql "
                                    f"{__version__} · target ")

    tables = _tables(tokens)
    assert len(tables) == 3  # per-object counts, what needs attention, the passed rules
    (_, counts), (_, attention), (after, passed) = tables
    assert counts == [["object", "rules", "passed", "failed", "error", "inconclusive", "skipped"],
                      ["people", "3", "1", "2", "0", "0", "0"],
                      ["orders", "2", "1", "1", "0", "0", "0"]]
    assert attention[0] == passed[0] == ["status", "rule", "value", "why"]  # one value column
    assert [row[0] for row in attention[1:]] == ["failed"] * 3
    assert [row[0] for row in passed[1:]] == ["passed"] * 2
    shown = {row[2].replace(NBSP, " ") for row in attention[1:]}
    assert shown == {"1 row<br>expected = 0", "33.333333 % (1 of 3)<br>expected \\< 10 %",
                     "50000 rows<br>expected \\< 10"}
    assert all(" " not in row[2].split("<br>")[0] for row in attention[1:] + passed[1:])
    folds = [i for i, t in enumerate(tokens) if t.type == "html_block"
             and t.content.startswith("<details><summary>2 passed</summary>")]
    assert len(folds) == 1 and tables[1][0] < folds[0] < after  # failures, then the fold
    assert report["packata_sql_version"] == __version__
    assert list(report)[:3] == ["format", "packata_sql_version", "contract"]


def test_a_large_contract_stays_within_the_step_summary_limit_failures_kept(
        tmp_path: Path) -> None:
    """900 rules with long names would write well over 1 MiB: the summary keeps every failure,
    as many passed rows as fit, and says exactly how many rows it left out; a failure carries
    its one-line inspect hint, never the triage query."""
    failing = [{"id": f"f{i}", "name": f"failing {i} " + "n" * 1000, "metric": "nullValues",
                "mustBe": 0} for i in range(300)]
    passing = [{"id": f"p{i}", "name": f"passing {i} " + "n" * 1500, "metric": "rowCount",
                "mustBeGreaterThan": 0} for i in range(600)]
    assert sum(len(str(rule["name"])) for rule in failing + passing) > STEP_SUMMARY_LIMIT
    text, report = _check(_contract(tmp_path, failing, passing), _warehouse(tmp_path), tmp_path)
    assert len(text.encode("utf-8")) <= STEP_SUMMARY_LIMIT
    assert len(report["rules"]) == 901  # type: ignore[arg-type]  # and the column's presence

    tokens = _tokens(text)
    (_, counts), (_, attention), (_, passed) = _tables(tokens)
    assert counts[1:] == [["people", "301", "1", "300", "0", "0", "0"],
                          ["orders", "600", "600", "0", "0", "0", "0"]]
    assert len(attention) == 1 + 300  # every failure, first
    assert all(row[0] == "failed" for row in attention[1:])
    kept = len(passed) - 1
    assert 0 < kept < 601
    assert f"<details><summary>601 passed, {kept} shown</summary>" in text
    note = next(t.content for i, t in enumerate(tokens) if tokens[i - 1].type == "paragraph_open"
                and t.content.startswith("**truncated**"))
    assert "```sql" not in text and "SELECT" not in text
    assert all("inspect: packata-sql check" in row[1] for row in attention[1:])
    assert note.startswith("**truncated** to stay within GitHub's 1 MiB step summary limit; "
                           f"not shown: {601 - kept} passed rule rows. ")
    assert text.index("**truncated**") < text.index("| status | rule | value | why |")


def _failed(index: int) -> RuleResult:
    return RuleResult(f"schema[t].quality[{index}]", "c.yaml", Category.QUALITY, Severity.ERROR,
                      Status.FAILED, name=f"rule {index} " + "x" * 200, value=Fraction(index),
                      unit="rows", failed=("= 0",), target="t", metric="rowCount",
                      expectation="= 0")


@pytest.mark.parametrize("limit", [6000, 20000])
def test_when_even_the_failures_do_not_fit_the_first_ones_are_kept_and_counted(
        limit: int) -> None:
    report = Report("c.yaml", "duckdb:w.duckdb", "enforced",
                    tuple(_failed(i) for i in range(100)), ())
    text = render_markdown(report, limit=limit)
    assert len(text.encode("utf-8")) <= limit
    (_, counts), (_, attention) = _tables(_tokens(text))
    shown = len(attention) - 1
    assert 0 < shown < 100
    assert [row[1].split("<br>")[0] for row in attention[1:]] == [
        f"rule {i} " + "x" * 200 for i in range(shown)]  # the first, in order
    assert f"not shown: {100 - shown} failed rule rows." in text
    assert counts[1] == ["t", "100", "0", "100", "0", "0", "0"]

"""A run over `--select`/`--category` says it is partial in every report format, and a
policy's validation record from it can never pass for a full validation (issue 20 item 3)."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import duckdb
import pytest

from packata_sql.cli.main import main

POLICY = {"version": "v7", "object": "orders", "rules": [
    {"id": "non-empty", "type": "row_count", "minimum": 1},
    {"id": "typed", "type": "field", "field": "status", "data_type": "string"},
    {"id": "known-status", "type": "referential", "field": "status",
     "allowed_values": ["new", "closed"]}]}


@pytest.fixture
def policy_run(tmp_path: Path) -> tuple[str, str]:
    connection = duckdb.connect(str(tmp_path / "w.duckdb"))
    connection.execute("CREATE TABLE orders (id INTEGER, status VARCHAR)")
    connection.execute("INSERT INTO orders VALUES (1, 'new'), (2, 'odd')")
    connection.close()
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(POLICY), "utf-8")
    return str(path), f"duckdb:///{tmp_path / 'w.duckdb'}"


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["check", *args, "--progress", "none"])
    return code, capsys.readouterr().out


def test_a_full_run_is_recorded_as_full(policy_run, capsys):
    path, url = policy_run
    code, out = _check(capsys, path, "--url", url, "--format", "json")
    report = json.loads(out)
    assert code == 1 and report["outcome"] == "fail"
    assert report["selection"] is None
    assert report["declaration"]["scope"] == "full"


@pytest.mark.parametrize("chosen", [["--select", "non-empty"], ["--category", "constraint"]])
def test_a_selected_run_records_its_selection_in_json(policy_run, capsys, chosen):
    path, url = policy_run
    _, full = _check(capsys, path, "--url", url, "--format", "json")
    code, out = _check(capsys, path, "--url", url, "--format", "json", *chosen)
    report = json.loads(out)
    # docs/semantics.md 1.3: complete and the outcome are about the selected rules ...
    assert code == 0 and (report["outcome"], report["complete"]) == ("pass", True)
    # ... and the evidence says it covers a selection of the same policy.
    assert report["declaration"]["sha256"] == json.loads(full)["declaration"]["sha256"]
    assert report["declaration"]["scope"] == "selection"
    selection = report["selection"]
    assert (selection["selected"], selection["total"], selection["partial"]) == (1, 3, True)
    if chosen[0] == "--select":
        assert (selection["select"], selection["categories"]) == (["non-empty"], [])
    else:
        assert (selection["select"], selection["categories"]) == ([], ["constraint"])


def test_selecting_every_rule_is_a_full_validation(policy_run, capsys):
    path, url = policy_run
    code, out = _check(capsys, path, "--url", url, "--format", "json",
                       "--select", "non-empty", "--select", "known-status", "--select", "typed")
    report = json.loads(out)
    assert code == 1 and report["outcome"] == "fail"
    assert report["selection"]["partial"] is False and report["declaration"]["scope"] == "full"


def _summary(capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str, *args: str) -> str:
    if fmt != "html":  # HTML is written to a file only
        return _check(capsys, *args, "--format", fmt)[1]
    _check(capsys, *args, "--output", f"html={tmp_path / 'r.html'}")
    return (tmp_path / "r.html").read_text("utf-8")


@pytest.mark.parametrize("fmt", ["table", "markdown", "html", "github"])
def test_every_summary_line_says_how_many_rules_were_selected(policy_run, capsys, tmp_path,
                                                              fmt):
    path, url = policy_run
    out = _summary(capsys, tmp_path, fmt, path, "--url", url, "--select", "non-empty")
    assert "PASS · 1 passed · 1 of 3 rules selected" in out
    out = _summary(capsys, tmp_path, fmt, path, "--url", url)
    assert "of 3 rules selected" not in out and "FAIL · 2 passed, 1 failed" in out


def test_junit_properties_carry_the_selection_and_the_scope(policy_run, capsys):
    path, url = policy_run
    _, out = _check(capsys, path, "--url", url, "--format", "junit", "--select", "non-empty")
    suite = ElementTree.fromstring(out)
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["selection"] == "1 of 3 rules selected"
    assert (properties["selected_rules"], properties["total_rules"]) == ("1", "3")
    assert json.loads(properties["select"]) == ["non-empty"]
    assert properties["declaration_scope"] == "selection"
    assert len(properties["declaration_sha256"]) == 64

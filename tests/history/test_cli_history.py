"""`check --history`, `history` and `history prune` through the CLI's entry point on a
DuckDB warehouse and the default SQLite store (docs/cli.md, history)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.history.conftest import BAD, CHECK, GOOD, write_warehouse


def test_two_runs_with_the_data_changed_show_the_change(place: Path, run: Any) -> None:
    first = run(*CHECK, "--history")
    assert first.returncode == 2, first.stderr  # amount_cast errors on every run: incomplete
    assert "history: 1 run in sqlite:.packata/history.sqlite" in first.stdout
    write_warehouse(place / "w.duckdb", BAD)
    second = run(*CHECK, "--history", "--format", "json")
    assert second.returncode == 1, second.stderr  # the verdict is the run's own
    document = json.loads(second.stdout, parse_float=Decimal)
    assert document["history"]["store"] == "sqlite:.packata/history.sqlite"
    assert [r["failed"] for r in document["history"]["runs"]] == [0, 3]
    rules = {rule["key"]: rule["history"] for rule in document["rules"]}
    assert rules["status_present"]["statuses"] == ["passed", "failed"]
    assert rules["status_present"]["new_failure"] is True
    assert rules["status_present"]["failing_since"] == document["history"]["runs"][1][
        "observed_at"]
    assert rules["status_known"]["values"][0] == 0
    assert rules["status_known"]["values"][1] == Decimal("66.666667")
    table = run("history")
    assert table.returncode == 0, table.stderr
    row = next(line for line in table.stdout.splitlines() if "status_present" in line)
    assert "▁█" in row and "failed" in row and "new failure" in row
    cast = next(line for line in table.stdout.splitlines() if "amount_cast" in line)
    assert "EE" in cast and "never" in cast
    third = run(*CHECK, "--history", "--format", "markdown")
    assert "failing since" in third.stdout and "(2 runs)" in third.stdout
    junit = run(*CHECK, "--history", "--format", "junit")
    assert "history: failing since" in junit.stdout and "(3 runs)" in junit.stdout
    github = run(*CHECK, "--history", "--format", "github")
    assert "status_present: " in github.stdout and "%0Afailing since" in github.stdout
    only = run("history", "--format", "json", "--rule", "status_present", "--last", "1")
    [contract] = json.loads(only.stdout)["contracts"]
    assert contract["contract"] == "urn:history:orders" and len(contract["runs"]) == 1
    assert [(r["key"], r["statuses"]) for r in contract["rules"]] == [
        ("status_present", ["failed"])]
    other = run("history", "--contract", "urn:nothing", "--format", "json")
    assert json.loads(other.stdout)["contracts"][0]["runs"] == []
    pruned = run("history", "prune", "--keep-runs", "1")
    assert pruned.returncode == 0, pruned.stderr
    assert "deleted 4 run(s) beyond each contract's newest 1 and their 28 rule result(s); " \
        "1 run(s) kept" in pruned.stdout
    assert len(json.loads(run("history", "--format", "json").stdout)
               ["contracts"][0]["runs"]) == 1


def test_anomalies_are_notes_that_never_change_the_verdict(place: Path, run: Any) -> None:
    """Seven runs with 1 of 3 statuses invalid (33.3 %, passes < 34 %), then an eighth with
    none: 0 % lies outside median ± 3·MAD = 33.3 ± 0, a note; the rule still passes."""
    write_warehouse(place / "w.duckdb", [(1, "open", 1), (2, "done", 1), (3, "lost", 1)])
    for _ in range(7):
        run(*CHECK, "--history", "--select", "status_known")
    write_warehouse(place / "w.duckdb", [(1, "open", 1)])
    plain = run(*CHECK, "--history", "--select", "status_known")
    flagged = run(*CHECK, "--history", "--select", "status_known", "--flag-anomalies")
    assert flagged.returncode == plain.returncode == 0
    assert "outside the usual range" not in plain.stdout
    assert "value 0 outside the usual range 33.333333–33.333333 over the last 8 runs" in \
        flagged.stdout.replace("\n", " ").replace("│", " ").replace("  ", " ")


def test_bad_arguments_and_a_missing_store_are_one_line_exit_3(place: Path, run: Any) -> None:
    for args, words in (
        (["history"], "no history store at sqlite:.packata/history.sqlite yet"),
        (["history", "--last", "0"], "must be a whole number of runs"),
        (["history", "prune"], "one of the arguments --keep-days --keep-runs is required"),
        ([*CHECK, "--history", "mysql://me:hunter2@db/x"], "the store must be"),
        ([*CHECK, "--flag-anomalies"], "--flag-anomalies needs --history"),
        (["check", "--history", *CHECK[1:]], "put --history after the contract"),
    ):
        done = run(*args)
        assert done.returncode == 3, (args, done.stderr)
        assert words in done.stderr, (args, done.stderr)
        assert "hunter2" not in done.stderr and "Traceback" not in done.stderr
    assert not (place / ".packata" / "history.sqlite").exists()


def _shape(value: Any) -> Any:
    """The keys of a JSON document, recursively (lists by their first item)."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(value[0])] if value and isinstance(value[0], dict | list) else []
    return None


def test_the_documented_history_json_has_the_real_shape(place: Path, run: Any) -> None:
    """docs/cli.md's `history --format json` example: every key where the real output has it,
    and the report's own `history` keys as it describes them."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    shown = re.search(r"`--format json` prints\n`packata-sql/history@1`:\n\n```json\n(.*?)```",
                      page, re.DOTALL)
    assert shown is not None
    report = json.loads(run(*CHECK, "--history", "--format", "json").stdout)
    real = json.loads(run("history", "--format", "json").stdout)
    assert _shape(json.loads(shown.group(1))) == _shape(real)
    assert report["history"].keys() == real["contracts"][0].keys() - {"rules"}
    listed = re.search(r"each rule a `history` object \((.*?)\)", page, re.DOTALL)
    assert listed is not None
    assert re.findall(r"`(\w+)`", listed.group(1)) == list(report["rules"][0]["history"])


def test_a_rule_that_keeps_changing_is_marked_flapping(place: Path, run: Any) -> None:
    """passed, failed, passed, failed: three changes in four runs (docs/semantics.md 6)."""
    for rows in (GOOD, BAD, GOOD, BAD):
        write_warehouse(place / "w.duckdb", rows)
        done = run(*CHECK, "--history", "--select", "status_present")
    assert "new failure · flapping (3 changes in 4 runs)" in done.stdout
    table = run("history", "--rule", "status_present").stdout
    row = next(line for line in table.splitlines() if "status_present" in line)
    assert "▁█▁█" in row and "flapping (3 changes in 4 runs)" in row

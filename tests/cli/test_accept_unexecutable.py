"""Rules not executable by design (a `text` rule, a `custom` rule for another tool) keep a run
`incomplete` and the summary says so; `--accept-unexecutable` (or the contract's custom
property) reports them skipped with their reason and lets the run pass."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from packata_sql.report import Outcome, Status

from .test_check_command import HEAD, packata, people_db, write_contract

RULES = """
- metric: nullValues
  mustBeLessOrEqualTo: 1
- type: text
  description: e-mails are verified by the CRM before they land here
- type: custom
  engine: soda
  implementation: "invalid_count(email) = 0"
"""
DESCRIPTIVE = {"text-not-executable", "custom-engine-not-supported"}


def run_cli(tmp_path: Path, *flags: str, rules: str = RULES) -> tuple[int, str, dict]:
    """Exit code, the table on stdout and the JSON report written alongside it."""
    url = f"duckdb:///{people_db('duckdb', tmp_path)}"
    output = tmp_path / "report.json"
    done = packata("check", str(write_contract(tmp_path, rules)), "--url", url,
                   "--format", "json", "--output", str(output), "--category", "quality", *flags)
    return done.returncode, done.stdout, json.loads(output.read_text("utf-8"))


def test_without_the_flag_descriptive_rules_keep_the_run_incomplete(tmp_path):
    code, table, document = run_cli(tmp_path)
    assert (code, document["outcome"], document["complete"]) == (2, "incomplete", False)
    assert (document["descriptive_only"], document["accepted_unexecuted"]) == (2, 0)
    assert "· 2 rules are descriptive only, not executable here (--accept-unexecutable accepts " \
        "them) ·" in " ".join(table.split())


def test_the_flag_accepts_them_and_the_run_passes(tmp_path):
    code, table, document = run_cli(tmp_path, "--accept-unexecutable")
    assert (code, document["outcome"], document["complete"]) == (0, "pass", True)
    assert (document["descriptive_only"], document["accepted_unexecuted"]) == (2, 2)
    assert document["settings"]["accept_unexecutable"] == "true"
    assert [(r["status"], r["descriptive"], (r["diagnostic"] or {}).get("code"))
            for r in document["rules"]] == [
        ("passed", False, None), ("skipped", True, "text-not-executable"),
        ("skipped", True, "custom-engine-not-supported"),
    ]
    assert ("PASS · 1 passed, 2 skipped · 3 of 5 rules selected · 2 descriptive rules are "
            "accepted unexecuted ·") in \
        " ".join(table.split())


def test_junit_says_how_many_were_accepted(tmp_path):
    url = f"duckdb:///{people_db('duckdb', tmp_path)}"
    done = packata("check", str(write_contract(tmp_path, RULES)), "--url", url,
                   "--format", "junit", "--accept-unexecutable")
    suite = ElementTree.fromstring(done.stdout)
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert (properties["descriptive_only"], properties["accepted_unexecuted"]) == ("2", "2")
    assert (properties["contract_id"], properties["contract_version"]) == ("x", "1.0.0")
    skipped = [s.get("message") for s in suite.iter("skipped")]
    assert skipped == ["skipped: text-not-executable (accepted unexecuted)",
                       "skipped: custom-engine-not-supported (accepted unexecuted)"]


def test_the_flag_never_hides_a_failure(tmp_path):
    code, _, document = run_cli(tmp_path, "--accept-unexecutable",
                                rules=RULES.replace("mustBeLessOrEqualTo: 1", "mustBe: 0"))
    assert (code, document["outcome"]) == (1, "fail")


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_rules_that_could_not_run_stay_incomplete(engine, check, contract_for):
    """Only descriptive rules are accepted: a rule skipped for a defect keeps the run open."""
    rules = "- type: text\n  description: prose\n- metric: noSuchMetric\n  mustBe: 0"
    report = check(engine, contract_for(rules), [("t", [("c", "text")], [("a",)])],
                   accept_unexecutable=True)
    assert [(r.status, r.descriptive) for r in report.results] == [
        (Status.SKIPPED, True), (Status.SKIPPED, False)]
    assert (report.outcome, report.accepted_unexecuted) == (Outcome.INCOMPLETE, 1)


def contract_accepting(value: str) -> str:
    return HEAD + f"""customProperties:
  - property: packata-sql.acceptUnexecutable
    value: {value}
schema:
  - name: t
    properties:
      - name: c
        logicalType: string
        quality:
          - type: text
            description: reviewed by hand each quarter
          - metric: nullValues
            mustBe: 0
"""


def test_a_contract_can_accept_its_own_descriptive_rules(check):
    table = [("t", [("c", "text")], [("a",)])]
    accepted = check("duckdb", contract_accepting("true"), table)
    assert (accepted.outcome, accepted.accepted_unexecuted) == (Outcome.PASS, 1)
    assert accepted.results[0].status is Status.SKIPPED
    refused = check("duckdb", contract_accepting("'yes'"), table)
    assert (refused.outcome, refused.accepted_unexecuted) == (Outcome.INCOMPLETE, 0)
    assert [(f.code, f.line) for f in refused.findings if f.rule_key is None] == [
        ("invalid-custom-property", 8)]

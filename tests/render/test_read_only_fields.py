"""Reports say whether authored SQL may run and name the routes out of read-only mode, in the
JSON and in the table."""

from __future__ import annotations

import json

from packata_sql.contracts.model import Category, Severity
from packata_sql.render import render
from packata_sql.report import Diagnostic, Report, RuleResult, Status

REFUSED = RuleResult("q", "schema[0].quality[0]", Category.QUALITY, Severity.ERROR,
                     Status.ERROR, diagnostic=Diagnostic("read-only-not-guaranteed", "refused"))
REPORT = Report("c.yaml", "postgres://u@h/db", "library-only", (REFUSED,), (),
                authored_sql="refused",
                routes=("member of superuser role su", "function dblink_exec"))


def test_json_carries_authored_sql_and_routes():
    document = json.loads(render(REPORT, "json"))
    assert document["read_only"] == "library-only"
    assert document["authored_sql"] == "refused"
    assert document["routes"] == ["member of superuser role su", "function dblink_exec"]


def test_table_names_the_routes():
    text = render(REPORT, "table")
    assert "authored SQL: refused" in text
    assert "member of superuser role su" in text and "function dblink_exec" in text
    assert "enforced" not in text


ADVISED = Report("c.yaml", "postgres://u@h/db", "enforced", (), (), authored_sql="allowed",
                 hardening=("pg_logical_emit_message is executable by this login; to close it "
                            "run: REVOKE EXECUTE ON FUNCTION f(boolean) FROM PUBLIC",))


def test_hardening_advice_is_shown_apart_from_the_routes():
    document = json.loads(render(ADVISED, "json"))
    assert document["routes"] == [] and document["hardening"] == list(ADVISED.hardening)
    text = " ".join(render(ADVISED, "table").split())  # the console wraps long lines
    assert "hardening" in text and "REVOKE EXECUTE ON FUNCTION f(boolean) FROM PUBLIC" in text
    assert "escape read-only" not in text

"""The one function that decides the read-only level (issue 9, item 4), the parsers of what
the server sessions report, and the choices that depend on the server version or on name
lengths, as worked examples."""

from __future__ import annotations

import pytest
import yaml

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.sessions.mysql_routes import definer_routes, write_privileges
from packata_sql.sessions.postgres import identity_problem, wrote_check_sql
from packata_sql.sessions.postgres_routes import hardening_advice, role_routes
from packata_sql.sessions.readonly import LoginFacts, NotReadOnly, decide


@pytest.mark.parametrize("facts,trust,level,authored", [
    (LoginFacts(provider_enforced=True), False, "enforced", True),
    (LoginFacts(provider_enforced=False, select_only=True), False, "credentials", True),
    (LoginFacts(provider_enforced=True, routes=("superuser",)), False, "library-only", False),
    (LoginFacts(provider_enforced=True, routes=("superuser",)), True, "trusted", True),
    (LoginFacts(provider_enforced=False, routes=("FILE",)), False, "library-only", False),
    (LoginFacts(provider_enforced=False), False, "library-only", False),
    (LoginFacts(provider_enforced=False), True, "trusted", True),
    (LoginFacts(provider_enforced=False, unguarded=True), True, "trusted", True),
])
def test_level_and_authored_sql_follow_the_facts(facts, trust, level, authored):
    decision = decide(facts, trust_environment=trust)
    assert (decision.level, decision.authored_sql) == (level, authored)
    assert decision.authored_label == ("allowed" if authored else "refused")


def test_enforced_is_never_shown_when_authored_sql_is_refused():
    for routes in ((), ("x",)):
        for enforced in (True, False):
            for select_only in (True, False):
                facts = LoginFacts(enforced, select_only, routes)
                decision = decide(facts, trust_environment=False)
                assert decision.authored_sql or decision.level not in ("enforced", "credentials")


def test_unguarded_session_is_refused_without_trust():
    with pytest.raises(NotReadOnly):
        decide(LoginFacts(provider_enforced=False, unguarded=True), trust_environment=False)


def test_definer_objects_refuse_library_rules_unless_trusted():
    facts = LoginFacts(False, routes=("definer view db.v (definer root@localhost)",),
                       definer_objects=frozenset({("db", "v")}))
    refused = decide(facts, trust_environment=False)
    assert refused.object_refused(("v",)) and refused.object_refused(("db", "V"))
    assert not refused.object_refused(("db", "other"))
    assert not decide(facts, trust_environment=True).object_refused(("v",))


def test_postgres_roles_name_every_route_a_login_can_become():
    rows = [("me", True, False, False, False), ("su_role", False, True, False, False),
            ("repl", False, False, True, False), ("rls", False, False, False, True),
            ("pg_write_server_files", False, False, False, False),
            ("harmless", False, False, False, False)]
    assert role_routes(rows) == [
        "member of superuser role su_role",
        "replication attribute of role repl (the login can become it)",
        "bypassrls attribute of role rls (the login can become it)",
        "member of pg_write_server_files",
    ]
    assert role_routes([("me", True, True, True, False)]) == ["superuser"]
    assert role_routes([("me", True, False, True, False)]) == ["replication attribute"]


def test_mysql_grants_roles_and_proxy_are_routes_and_hashes_never_appear():
    grants = [
        "GRANT USAGE ON *.* TO `u`@`%` IDENTIFIED BY PASSWORD '*2D4196C3B237CAE92FAC1ADB0AB7F0A'",
        "GRANT SELECT, SHOW VIEW ON `db`.* TO `u`@`%`",
        "GRANT FILE ON *.* TO `u`@`%`",
        "GRANT PROXY ON 'root'@'localhost' TO 'u'@'%'",
        "GRANT `writer`, `odd``role` TO `u`@`%`",
    ]
    routes = write_privileges(grants)
    assert routes == ["FILE", "PROXY", "role writer", "role odd`role"]
    assert not any("2D4196" in route for route in routes)
    assert write_privileges(["GRANT SELECT ON `db`.* TO `u`@`%`"]) == []


def test_mysql_definer_objects_other_than_the_login_are_routes():
    rows = [("view", "db", "v", "root@localhost"), ("function", "db", "f", "u@%"),
            ("view", "mysql", "user", "mariadb.sys@localhost")]
    routes, objects = definer_routes(rows, "u@%")
    assert routes == ["definer view db.v (definer root@localhost)"]
    assert objects == frozenset({("db", "v")})


def test_identity_and_settings_compared_after_each_statement():
    before = ("u", "u", "none", "u", [["statement_timeout", "5000"]])
    assert identity_problem(before, before) is None
    assert identity_problem(before, ("su", "u", "su", "u", before[4])) == "identity-changed"
    assert identity_problem(before, ("u", "u", "u", "u", before[4])) == "identity-changed"
    changed = [["search_path", "evil"], ["statement_timeout", "5000"]]
    assert identity_problem(before, ("u", "u", "none", "u", changed)) == "setting-changed"


def test_write_check_uses_the_function_the_server_version_has():
    assert "pg_current_xact_id_if_assigned" in wrote_check_sql(150004)
    assert "pg_current_xact_id_if_assigned" in wrote_check_sql(130000)
    assert "txid_current_if_assigned" in wrote_check_sql(120015)


@pytest.mark.parametrize("engine,table,finding", [
    ("postgres", "t" * 63, False), ("postgres", "t" * 64, True),
    ("postgres", "é" * 32, True),  # 64 bytes in UTF-8, 32 characters
    ("mysql", "t" * 64, False), ("mysql", "é" * 64, False), ("mysql", "t" * 65, True),
    ("duckdb", "t" * 300, False),
])
def test_names_longer_than_the_engine_keeps_are_findings(tmp_path, engine, table, finding):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "n", "version": "1.0.0",
        "status": "active",
        "schema": [{"name": "t", "physicalName": table, "properties": [{"name": "c"}],
                    "quality": [{"metric": "rowCount", "mustBe": 1},
                                {"type": "sql", "query": "SELECT COUNT(*) FROM {object}",
                                 "mustBe": 1}]}],
    }), encoding="utf-8")
    compiled = compile_contract(load_odcs(str(path)), get_dialect(engine), parameters={})
    codes = {f.code for f in compiled.findings}
    assert ("name-too-long" in codes) is finding
    assert len(compiled.blocked) == (2 if finding else 0)


def test_hardening_advice_is_no_route_and_never_changes_the_level():
    advice = ("pg_logical_emit_message is executable by this login …",)
    for facts, level in ((LoginFacts(provider_enforced=True, hardening=advice), "enforced"),
                         (LoginFacts(False, select_only=True, hardening=advice), "credentials")):
        decision = decide(facts, trust_environment=False)
        assert (decision.level, decision.authored_sql, decision.routes) == (level, True, ())
        assert decision.hardening == advice
    routed = decide(LoginFacts(True, routes=("superuser",), hardening=advice),
                    trust_environment=False)
    assert routed.level == "library-only" and routed.hardening == advice


def test_postgres_hardening_names_every_overload_and_every_grantee():
    from packata_sql.sessions.postgres_routes import HARDENING_FUNCTIONS, RISKY_FUNCTIONS

    assert "pg_logical_emit_message" in HARDENING_FUNCTIONS
    assert not set(HARDENING_FUNCTIONS) & set(RISKY_FUNCTIONS)
    rows = [("pg_logical_emit_message", "pg_logical_emit_message(boolean,text,bytea)",
             ["PUBLIC"]),
            ("pg_logical_emit_message", "pg_logical_emit_message(boolean,text,text)",
             ["PUBLIC", "reader"])]
    (line,) = hardening_advice(rows)
    assert line.startswith("pg_logical_emit_message is executable by this login")
    assert line.endswith(
        "REVOKE EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean,text,bytea), "
        "pg_catalog.pg_logical_emit_message(boolean,text,text) FROM PUBLIC, reader")
    assert hardening_advice([]) == []

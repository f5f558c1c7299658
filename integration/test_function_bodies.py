"""Calls followed into function bodies (issue 19, item 2), on the live servers: the deny-list
reads only the rule's text, so a function the rule calls could carry a denied call, dynamic
SQL or a more powerful definer past it. Each body is followed, transitively, in every overload
the statement can reach; the rule ends `error` `denied-function` naming the chain, and rules
calling functions that only read still run. Everything lives in a schema (or database) of its
own, dropped afterwards."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

PG_FUNCTIONS = (
    # runs its text argument: the string literal hides pg_notify from the deny-list
    "CREATE FUNCTION {s}.wrap(q text) RETURNS int LANGUAGE plpgsql AS"
    " $$ BEGIN EXECUTE q; RETURN 1; END $$",
    "CREATE FUNCTION {s}.inner_notify() RETURNS int LANGUAGE plpgsql AS"
    " $$ BEGIN PERFORM pg_notify('packata', 'x'); RETURN 1; END $$",
    "CREATE FUNCTION {s}.outer_sql() RETURNS int LANGUAGE sql AS"
    " $$ SELECT {s}.inner_notify() $$",
    # a definer owned by a superuser, reachable only through a definer of a reading role
    "CREATE FUNCTION {s}.su_def() RETURNS int LANGUAGE sql SECURITY DEFINER AS $$ SELECT 1 $$",
    "REVOKE EXECUTE ON FUNCTION {s}.su_def() FROM PUBLIC",
    "GRANT EXECUTE ON FUNCTION {s}.su_def() TO {s}_mid",
    "CREATE FUNCTION {s}.mid_def() RETURNS int LANGUAGE sql SECURITY DEFINER AS"
    " $$ SELECT {s}.su_def() $$",
    "ALTER FUNCTION {s}.mid_def() OWNER TO {s}_mid",
    # overloads: the harmless one is called, the other notifies
    "CREATE FUNCTION {s}.ov(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$",
    "CREATE FUNCTION {s}.ov(a text) RETURNS int LANGUAGE plpgsql AS"
    " $$ BEGIN PERFORM pg_notify('packata', a); RETURN 1; END $$",
    # reading only: plain, BEGIN ATOMIC, recursive
    "CREATE FUNCTION {s}.plus(a int) RETURNS int LANGUAGE sql AS $$ SELECT a + 1 $$",
    "CREATE FUNCTION {s}.atomic_plus(a int) RETURNS int LANGUAGE sql"
    " BEGIN ATOMIC SELECT {s}.plus(a); END",
    "CREATE FUNCTION {s}.countdown(n int) RETURNS int LANGUAGE plpgsql AS"
    " $$ BEGIN IF n <= 0 THEN RETURN 0; END IF; RETURN {s}.countdown(n - 1); END $$",
)

PG_RULES = {
    "dynamic": ("SELECT {s}.wrap('SELECT pg_notify(''packata'', ''x'')')", "{s}.wrap: runs "
                "dynamic SQL (EXECUTE)"),
    "transitive": ("SELECT {s}.outer_sql()",
                   "{s}.outer_sql → {s}.inner_notify: calls pg_notify()"),
    "definer": ("SELECT {s}.mid_def()",
                "{s}.mid_def → {s}.su_def: runs as a definer whose owner can do more than read"),
    "overload": ("SELECT ov(1)", "{s}.ov: calls pg_notify()"),
    "plain": ("SELECT {s}.plus(0)", None),
    "atomic": ("SELECT {s}.atomic_plus(0)", None),
    "recursive": ("SELECT {s}.countdown(3) + 1", None),
}


@pytest.fixture
def pg_schema(postgres: Any) -> Iterator[str]:
    schema = f"pk_calls_{uuid.uuid4().hex[:10]}"
    reader = postgres.reader.user
    postgres.execute(f"CREATE SCHEMA {schema}", f"CREATE ROLE {schema}_mid NOLOGIN",
                     f"GRANT USAGE ON SCHEMA {schema} TO {reader}, {schema}_mid",
                     f"CREATE TABLE {schema}.t (a int)", f"INSERT INTO {schema}.t VALUES (1)",
                     f"GRANT SELECT ON {schema}.t TO {reader}")
    try:
        postgres.execute(*(statement.format(s=schema) for statement in PG_FUNCTIONS))
        yield schema
    finally:
        postgres.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE",
                         f"DROP ROLE IF EXISTS {schema}_mid")


def contract_for(tmp_path: Path, rules: dict[str, tuple[str, str | None]], schema: str) -> Path:
    quality = [{"id": name, "type": "sql", "query": query.format(s=schema), "mustBe": 1}
               for name, (query, _) in rules.items()]
    path = tmp_path / "calls.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "calls", "version": "1.0.0",
        "status": "active", "schema": [{"name": "t", "quality": quality}],
    }), encoding="utf-8")
    return path


def with_schema(url: str, schema: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}schema={schema}"


def check(contract: Path, url: str, *extra: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", str(contract),
                           "--url", url, "--format", "json", "--timeout", "20", *extra],
                          capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    return dict(json.loads(done.stdout))


def outcomes(report: dict[str, Any]) -> dict[str, tuple[str, str | None, str]]:
    return {r["key"].rpartition(".")[2]: (
        r["status"], (r["diagnostic"] or {}).get("code"), (r["diagnostic"] or {}).get("message", ""))
        for r in report["rules"]}


def test_postgres_calls_are_followed_into_bodies(postgres, pg_schema, tmp_path):
    schema = pg_schema
    # Live without the walk: the login's own connection runs the hidden notify.
    import psycopg

    reader = postgres.reader
    with psycopg.connect(host=reader.host, port=reader.port, user=reader.user,
                         password=reader.password, dbname=reader.database) as unguarded:
        unguarded.read_only = True
        assert unguarded.execute(PG_RULES["dynamic"][0].format(s=schema)).fetchone() == (1,)
        unguarded.rollback()
    contract = contract_for(tmp_path, PG_RULES, schema)
    for extra in ((), ("--trust-environment",)):
        report = check(contract, with_schema(postgres.reader_url, schema), *extra)
        assert (report["authored_sql"], report["routes"]) == ("allowed", [])
        found = outcomes(report)
        for name, (_, chain) in PG_RULES.items():
            status, code, message = found[name]
            if chain is None:
                assert (status, code) == ("passed", None), (name, found[name])
            else:
                assert (status, code) == ("error", "denied-function"), (name, found[name])
                assert chain.format(s=schema) in message, (name, message)


MY_FUNCTIONS = (
    "CREATE FUNCTION {p}_lock() RETURNS INT SQL SECURITY INVOKER RETURN GET_LOCK('{p}', 0)",
    "CREATE FUNCTION {p}_outer() RETURNS INT SQL SECURITY INVOKER RETURN {p}_lock()",
    "CREATE FUNCTION {p}_def() RETURNS INT SQL SECURITY DEFINER RETURN 1",
    "CREATE FUNCTION {p}_plus(a INT) RETURNS INT SQL SECURITY INVOKER RETURN a + 1",
)

MY_RULES = {
    "transitive": ("SELECT {p}_outer()", "{d}.{p}_outer → {d}.{p}_lock: calls get_lock()"),
    "definer": ("SELECT {p}_def()", "{d}.{p}_def: runs as definer "),
    "plain": ("SELECT {p}_plus(0)", None),
}


def test_mariadb_calls_are_followed_into_bodies(mysql, tmp_path):
    """A login that may EXECUTE routines has a route (EXECUTE), so SQL rules run only with
    --trust-environment; the walk still holds there, as the deny-list does."""
    prefix = f"pk_calls_{uuid.uuid4().hex[:10]}"
    admin = mysql.admin
    database = admin.database
    readers = {"reads": f"{prefix}_r", "blind": f"{prefix}_b"}
    try:
        mysql.execute(*(statement.format(p=prefix) for statement in MY_FUNCTIONS))
        for login in readers.values():
            mysql.execute(f"CREATE USER '{login}'@'%' IDENTIFIED BY 'pw-{login}'",
                          f"GRANT SELECT, EXECUTE ON `{database}`.* TO '{login}'@'%'")
        mysql.execute(f"GRANT SELECT ON mysql.proc TO '{readers['reads']}'@'%'")
        rules = {name: (query.format(p=prefix), chain) for name, (query, chain)
                 in MY_RULES.items()}
        contract = contract_for(tmp_path, rules, prefix)
        for kind, login in readers.items():
            url = f"mysql://{login}:pw-{login}@{admin.host}:{admin.port or 3306}/{database}"
            report = check(contract, url, "--trust-environment")
            assert (report["read_only"], report["authored_sql"]) == ("trusted", "allowed")
            found = outcomes(report)
            for name, (_, chain) in rules.items():
                status, code, message = found[name]
                if kind == "blind" and name != "definer":
                    assert (status, code) == ("error", "denied-function"), (name, found[name])
                    assert "the login cannot read its body" in message, message
                elif chain is None:
                    assert (status, code) == ("passed", None), (name, found[name])
                else:
                    assert (status, code) == ("error", "denied-function"), (name, found[name])
                    assert chain.format(p=prefix, d=database) in message, (name, message)
    finally:
        mysql.execute(*(f"DROP USER IF EXISTS '{login}'@'%'" for login in readers.values()),
                      *(f"DROP FUNCTION IF EXISTS {prefix}_{name}"
                        for name in ("lock", "outer", "def", "plus")))

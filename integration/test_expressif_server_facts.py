"""What an engine's server, not only its dialect, lets an Expressif rule mean. PostgreSQL
renders `lower` and `upper` under glibc's "C.utf8" collation (Unicode's simple mapping, as
.NET's invariant culture maps case); a database that cannot name it (not encoded in UTF8, or
a server initialised without a C.UTF-8 locale) makes exactly those rules the finding
`expressif-unsupported-on-engine`, read from the server before the scan, while the object's
other rules still run in its one scan (docs/expressif.md)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from integration.conftest import Server
from integration.test_differential_metrics import contract_file
from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.base import TimedSession
from packata_sql.sessions.endpoint import Endpoint

TABLE = "pk_case_rules"
CASE_RULES = ("status-lower", "status-upper")


def _custom(rule_id: str, program: str, kind: str = "predicate", **more: Any) -> dict[str, Any]:
    return {"id": rule_id, "type": "custom", "engine": "expressif", "implementation":
            json.dumps({"version": "1", "kind": kind, "scope": "value", "program": program}),
            **more}


PROPERTIES = [
    {"name": "amount", "logicalType": "number", "quality": [
        {"id": "amount-nulls", "metric": "nullValues", "mustBe": 1},
        _custom("amount-positive", "positive"),
    ]},
    {"name": "status", "logicalType": "string", "quality": [
        _custom("status-lower", "lower | count-substring(é)", "expression", mustBe=0),
        _custom("status-upper", "upper | count-substring(N)", "expression", mustBe=1),
        # White space is written as the characters a LATIN1 database can hold.
        _custom("status-long", "count-substring(e)", "expression", mustBeLessThan=2),
    ]},
]


def _database(server: Server, name: str, options: str) -> Iterator[Endpoint]:
    server.execute(f'DROP DATABASE IF EXISTS "{name}"', f'CREATE DATABASE "{name}" {options}')
    endpoint = dataclasses.replace(server.admin, database=name)
    try:
        connection = _connect(endpoint)
        try:
            connection.execute(f"CREATE TABLE {TABLE} (amount numeric, status text)")
            connection.execute(f"INSERT INTO {TABLE} VALUES (10, 'new'), (-1, 'NEW'), "
                               "(NULL, 'closed'), (3, 'ÉTÉ')")
        finally:
            connection.close()
        yield endpoint
    finally:
        server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _connect(endpoint: Endpoint) -> Any:
    import psycopg

    return psycopg.connect(host=endpoint.host, port=endpoint.port, user=endpoint.user,
                           password=endpoint.password, dbname=endpoint.database,
                           autocommit=True)


@pytest.fixture
def latin1_database(postgres: Server) -> Iterator[Endpoint]:
    """A database encoded LATIN1: pg_collation's "C.utf8" is UTF8's, not its own."""
    yield from _database(postgres, "pk_loose_latin1", "TEMPLATE template0 ENCODING "
                         "'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C'")


@pytest.fixture
def utf8_database(postgres: Server) -> Iterator[Endpoint]:
    """The same object in a UTF8 database under the "C" locale, where "C.utf8" is named."""
    yield from _database(postgres, "pk_loose_utf8_c", "TEMPLATE template0 ENCODING 'UTF8' "
                         "LC_COLLATE 'C' LC_CTYPE 'C'")


def _checked(endpoint: Endpoint, tmp_path: Path,
             monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[str]]:
    contract = load_odcs(str(contract_file(tmp_path / "c.yaml", TABLE, PROPERTIES)))
    compiled = compile_contract(contract, get_dialect("postgres"), categories=[Category.QUALITY])
    assert not compiled.blocked  # the dialect alone cannot know: the server says
    sent: list[str] = []
    real = TimedSession.fetch_row

    def fetch_row(self: TimedSession, sql: str, limit_s: float,
                  parameters: Any = None) -> tuple[Any, ...]:
        sent.append(sql)
        return real(self, sql, limit_s, parameters)

    monkeypatch.setattr(TimedSession, "fetch_row", fetch_row)
    return run(contract, compiled, endpoint, RunOptions()), sent


def test_without_the_collation_only_the_case_rules_are_a_finding(
        latin1_database: Endpoint, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report, sent = _checked(latin1_database, tmp_path, monkeypatch)
    found = {r.key: r for r in report.results}
    measured = {key: (r.status, r.value) for key, r in found.items() if key not in CASE_RULES}
    assert measured == {"amount-nulls": (Status.PASSED, 1),
                        "amount-positive": (Status.FAILED, 2),  # -1 and NULL
                        "status-long": (Status.PASSED, 0)}
    assert len(sent) == 1 and all(found[k].fused for k in measured)  # still one scan
    assert all("C.utf8" not in sql for sql in sent)
    for key in CASE_RULES:
        assert found[key].status is Status.SKIPPED
        assert found[key].diagnostic is not None
        assert found[key].diagnostic.code == "expressif-unsupported-on-engine"
        assert '"C.utf8" collation' in found[key].diagnostic.message
    codes = {(f.code, f.rule_key) for f in report.findings}
    assert {("expressif-unsupported-on-engine", key) for key in CASE_RULES} <= codes


def test_with_the_collation_the_case_rules_map_as_dotnet(
        utf8_database: Endpoint, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report, sent = _checked(utf8_database, tmp_path, monkeypatch)
    found = {r.key: (r.status, r.value) for r in report.results}
    assert found == {"amount-nulls": (Status.PASSED, 1),
                     "amount-positive": (Status.FAILED, 2),
                     # 'ÉTÉ' is 'été' (under "C" alone it would be 'ÉtÉ', no violation)
                     "status-lower": (Status.FAILED, 1),
                     "status-upper": (Status.FAILED, 2),  # 'CLOSED' and 'ÉTÉ' hold no N
                     "status-long": (Status.PASSED, 0)}
    assert len(sent) == 1 and '"C.utf8"' in sent[0]
    assert not [f for f in report.findings if f.code == "expressif-unsupported-on-engine"]


MARIADB_TABLE = "pk_case_general_ci"
MARIADB_PROPERTIES = [
    {"name": "status", "logicalType": "string", "quality": [
        # utf8mb4_general_ci, the column's collation, would give 'straẞe', '𐐀' and 'i'.
        _custom("sharp-s", "lower | count-substring(ß)", "expression", mustBe=1),
        _custom("deseret", "lower | count-substring(\U00010428)", "expression", mustBe=0),
        _custom("dotted-i", "lower | count-substring(i)", "expression", mustBe=0),
        _custom("dotless-i", "upper | count-substring(I)", "expression", mustBe=0),
    ]},
]


def test_mariadb_maps_case_under_its_uca_collation(
        mysql: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """LOWER and UPPER follow the column's collation; the rendering converts the text to
    utf8mb4_uca1400_as_cs (Unicode's simple mapping), which the session found on the server,
    and keeps 'İ' and 'ı' as .NET's invariant culture does."""
    mysql.execute(f"DROP TABLE IF EXISTS `{MARIADB_TABLE}`",
                  f"CREATE TABLE `{MARIADB_TABLE}` (status VARCHAR(20) CHARACTER SET utf8mb4 "
                  "COLLATE utf8mb4_general_ci)",
                  f"INSERT INTO `{MARIADB_TABLE}` VALUES ('STRAẞE'), ('\U00010400'), ('İ'), "
                  "('ı')")
    try:
        contract = load_odcs(str(contract_file(tmp_path / "c.yaml", MARIADB_TABLE,
                                               MARIADB_PROPERTIES)))
        compiled = compile_contract(contract, get_dialect("mysql"),
                                    categories=[Category.QUALITY])
        report = run(contract, compiled, mysql.reader, RunOptions())
    finally:
        mysql.execute(f"DROP TABLE IF EXISTS `{MARIADB_TABLE}`")
    found = {r.key: (r.status, r.value) for r in report.results}
    assert found == {"sharp-s": (Status.FAILED, 3),  # only 'STRAẞE' holds a 'ß' once lowered
                     "deseret": (Status.FAILED, 1),  # '𐐀' lowered is '𐐨'
                     "dotted-i": (Status.PASSED, 0),  # 'İ' stays 'İ'
                     "dotless-i": (Status.PASSED, 0)}  # 'ı' stays 'ı'

"""What the drivers are given for a host the contract names (no ambient credentials) and for
one named with --url (issue 20 item 5); the real-server proof is
integration/test_ambient_credentials.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from packata_sql.contracts.model import Contract, Server
from packata_sql.sessions.drivers import LoginNeeded, mysql_arguments, postgres_arguments
from packata_sql.sessions.endpoint import from_server, parse_url

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"


def _contract_host(engine: str) -> Contract:
    settings = (("host", "db.example.org"), ("database", "shop"))
    return Contract("c.yaml", (), servers=(Server("prod", engine, settings),))


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("PACKATA_PROD_USERNAME", "PACKATA_PROD_PASSWORD", "PACKATA_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".my.cnf").write_text("[client]\npassword=ambient\n")


@pytest.mark.parametrize("libpq", [150000, 170000])
def test_a_contract_host_gets_no_password_file_and_an_empty_password(monkeypatch, libpq):
    monkeypatch.setenv("PACKATA_PROD_USERNAME", "alice")
    arguments = postgres_arguments(from_server(_contract_host("postgres"), "prod"), libpq)
    assert (arguments["user"], arguments["password"]) == ("alice", "")
    assert arguments["passfile"] == os.devnull
    assert arguments.get("sslcertmode") == ("disable" if libpq >= 160000 else None)
    monkeypatch.setenv("PACKATA_PROD_PASSWORD", "given")
    arguments = postgres_arguments(from_server(_contract_host("postgres"), "prod"), libpq)
    assert arguments["password"] == "given"


def test_a_url_leaves_the_password_to_libpq(monkeypatch):
    arguments = postgres_arguments(parse_url("postgresql://alice@db.example.org/shop"), 170000)
    assert arguments["password"] is None and "passfile" not in arguments
    assert "sslcertmode" not in arguments


def test_mysql_reads_the_option_file_only_for_a_url(monkeypatch):
    assert "read_default_file" in mysql_arguments(parse_url("mysql://alice@db.example.org/shop"))
    monkeypatch.setenv("PACKATA_PROD_USERNAME", "alice")
    arguments = mysql_arguments(from_server(_contract_host("mysql"), "prod"))
    assert "read_default_file" not in arguments and arguments["password"] == ""


@pytest.mark.parametrize("engine", ["postgres", "mysql"])
def test_a_contract_host_without_a_login_is_not_contacted(engine):
    endpoint = from_server(_contract_host(engine), "prod")
    build = (lambda: postgres_arguments(endpoint, 170000)) if engine == "postgres" \
        else (lambda: mysql_arguments(endpoint))
    with pytest.raises(LoginNeeded, match="set PACKATA_PROD_USERNAME"):
        build()


def test_doctor_names_the_variables_a_contract_host_needs(tmp_path):
    contract = tmp_path / "c.yaml"
    contract.write_text(HEAD + "servers:\n  - {server: prod, type: postgres, host: 127.0.0.1, "
                        "port: 1, database: shop}\nschema:\n  - name: people\n", "utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PACKATA_PROD")}
    done = subprocess.run([sys.executable, "-m", "packata_sql", "doctor", str(contract)],
                          capture_output=True, text=True, timeout=60,
                          env={**env, "PGUSER": "alice", "PGPASSWORD": "ambient"})
    assert "login: (driver default), from nowhere: PACKATA_PROD_USERNAME is not set" in done.stdout
    assert "password: none (PACKATA_PROD_PASSWORD is not set;" in done.stdout
    assert "connection: failed (authentication-failed): no login was given" in done.stdout

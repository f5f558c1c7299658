"""Ambient credentials go only where the user pointed (issue 20 item 5), on the real
PostgreSQL and MariaDB: PGPASSWORD, ~/.pgpass, PGUSER and ~/.my.cnf serve a host named with
`--url`; a host only a contract's `servers` names gets its login and password from
PACKATA_<SERVER>_USERNAME/_PASSWORD or nothing, and the message names the variable to set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from integration.conftest import READER, READER_PASSWORD, Server

TABLE = "ambient_probe"
USER_VARIABLE, PASSWORD_VARIABLE = "PACKATA_PROD_DB_USERNAME", "PACKATA_PROD_DB_PASSWORD"
SCHEMES = {"postgres": "postgresql", "mysql": "mysql"}


@pytest.fixture(params=sorted(SCHEMES))
def probe(request: pytest.FixtureRequest) -> Server:
    """The engines whose clients read ambient credentials (libpq's and PyMySQL's), each
    required in CI by its own session fixture."""
    server: Server = request.getfixturevalue(str(request.param))
    quoted = f'"{TABLE}"' if server.engine == "postgres" else f"`{TABLE}`"
    server.execute(f"DROP TABLE IF EXISTS {quoted}", f"CREATE TABLE {quoted} (c INT)",
                   f"INSERT INTO {quoted} VALUES (1)")
    return server


def _contract(tmp_path: Path, server: Server) -> Path:
    reader = server.reader
    document = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "ambient", "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "prod-db", "type": server.engine, "host": reader.host,
                     "port": reader.port, "database": reader.database}],
        "schema": [{"name": TABLE, "quality": [{"metric": "rowCount", "mustBe": 1}]}]}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


def _home(tmp_path: Path, server: Server, *, user: bool = False) -> dict[str, str]:
    """A HOME holding the reader's password where the engine's client looks for it
    (~/.pgpass or ~/.my.cnf), and the variables libpq reads."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    reader = server.reader
    if server.engine == "postgres":
        pgpass = home / ".pgpass"
        pgpass.write_text(f"*:*:*:{READER}:{READER_PASSWORD}\n")
        pgpass.chmod(0o600)
        return {"HOME": str(home), "PGPASSWORD": READER_PASSWORD,
                **({"PGUSER": READER} if user else {})}
    login = f"user={READER}\n" if user else ""
    (home / ".my.cnf").write_text(f"[client]\n{login}password={READER_PASSWORD}\n")
    return {"HOME": str(home), "MYSQL_HOST": reader.host or ""}


def _check(contract: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("PG", "PACKATA_PROD", "MYSQL")) and k != "PACKATA_PASSWORD"}
    return subprocess.run([sys.executable, "-m", "packata_sql", "check", str(contract),
                           "--format", "json", "--progress", "none", *args],
                          capture_output=True, text=True, timeout=120, env={**base, **env})


def _diagnostic(done: subprocess.CompletedProcess[str]) -> str:
    [rule] = json.loads(done.stdout)["rules"]
    return str(rule["diagnostic"]["code"])


def test_a_contract_host_gets_no_ambient_password(probe, tmp_path):
    contract = _contract(tmp_path, probe)
    env = {**_home(tmp_path, probe), USER_VARIABLE: READER}
    done = _check(contract, env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert _diagnostic(done) == "authentication-failed"
    assert f"set {PASSWORD_VARIABLE}" in done.stderr


def test_the_same_ambient_password_serves_a_host_named_with_url(probe, tmp_path):
    contract = _contract(tmp_path, probe)
    reader = probe.reader
    url = f"{SCHEMES[probe.engine]}://{READER}@{reader.host}:{reader.port}/{reader.database}"
    env = _home(tmp_path, probe)
    done = _check(contract, env, "--url", url)
    assert done.returncode == 0, done.stdout + done.stderr
    if probe.engine == "postgres":  # each of libpq's sources alone: PGPASSWORD, ~/.pgpass
        for alone in ({**env, "HOME": str(tmp_path)}, {k: v for k, v in env.items()
                                                      if k != "PGPASSWORD"}):
            done = _check(contract, alone, "--url", url)
            assert done.returncode == 0, done.stdout + done.stderr


def test_an_explicit_server_password_serves_the_contract_host(probe, tmp_path):
    contract = _contract(tmp_path, probe)
    done = _check(contract, {"HOME": str(tmp_path), USER_VARIABLE: READER,
                             PASSWORD_VARIABLE: READER_PASSWORD})
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["read_only"] in ("enforced", "credentials")


def test_a_contract_host_gets_no_ambient_login(probe, tmp_path):
    """PGUSER, ~/.my.cnf's user and the OS login name are the user's identity for the user's
    own servers: nothing is sent, and the variable to set is named."""
    contract = _contract(tmp_path, probe)
    done = _check(contract, _home(tmp_path, probe, user=True))
    assert done.returncode == 2, done.stdout + done.stderr
    assert _diagnostic(done) == "authentication-failed"
    assert f"set {USER_VARIABLE}" in done.stderr

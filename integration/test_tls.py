"""TLS for real, on throw-away servers started from the machine's own binaries with a
self-signed certificate for 127.0.0.1 (the shared servers run without TLS and stay untouched):
a PostgreSQL cluster whose login authenticates with a cleartext password, and a MariaDB server
whose login `REQUIRE SSL`. URL TLS parameters reach libpq and PyMySQL; the password goes only
over a connection the URL requires to be encrypted; nothing prints it."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

SENTINEL = "S3ntinel-pw-9c1e"
BINARY = str(Path(sys.executable).with_name("packata-sql"))
LOGIN = "tls_reader"


def _as(user: str, *command: str) -> list[str]:
    """The servers refuse to run as root: run them as their own system user then."""
    return ["runuser", "-u", user, "--", *command] if os.geteuid() == 0 else list(command)


def _as_postgres(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_as("postgres", *command), capture_output=True, text=True,
                          timeout=120, check=True)


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI requires the TLS suite: {reason}")
    pytest.skip(reason)


def _owned_by(user: str, root: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(root, user)
        for path in root.iterdir():
            shutil.chown(path, user)


def _certificate(directory: Path, name: str) -> Path:
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-keyout", str(directory / f"{name}.key"), "-out", str(directory / f"{name}.crt"),
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        capture_output=True, check=True, timeout=60,
    )
    (directory / f"{name}.key").chmod(0o600)
    return directory / f"{name}.crt"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def tls_server() -> Iterator[tuple[int, Path, Path]]:
    """(port, the server's certificate, another certificate) of a cluster with ssl=on."""
    tools = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
    if not tools or shutil.which("openssl") is None:
        _missing("no PostgreSQL server binaries or openssl on this machine")
    bin_dir = tools[-1]
    root = Path(tempfile.mkdtemp(prefix="packata-tls-"))
    certificate = _certificate(root, "server")
    stranger = _certificate(root, "stranger")
    _owned_by("postgres", root)
    data, port = root / "data", _free_port()
    _as_postgres(str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--no-sync",
                 "-A", "trust")
    (data / "pg_hba.conf").write_text(
        "local all all trust\n"
        f"hostssl all {LOGIN} 127.0.0.1/32 password\n"
        f"hostnossl all {LOGIN} 127.0.0.1/32 password\n"
    )
    settings = (f"-c port={port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={root}"
                f" -c ssl=on -c ssl_cert_file={certificate} -c ssl_key_file={root}/server.key"
                " -c fsync=off -c shared_buffers=16MB")
    _as_postgres(str(bin_dir / "pg_ctl"), "-D", str(data), "-o", settings, "-l",
                 str(root / "log"), "-w", "start")
    try:
        _as_postgres(
            str(bin_dir / "psql"), "-h", str(root), "-p", str(port), "-U", "postgres", "-d",
            "postgres", "-v", "ON_ERROR_STOP=1", "-q", "-c",
            f"CREATE ROLE {LOGIN} LOGIN PASSWORD '{SENTINEL}'; CREATE TABLE probe (c int);"
            f" INSERT INTO probe VALUES (1); GRANT SELECT ON probe TO {LOGIN};",
        )
        yield port, certificate, stranger
    finally:
        _as_postgres(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def contract(tmp_path: Path) -> str:
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "f", "version": "1.0.0",
                "status": "active",
                "schema": [{"name": "probe", "quality": [{"metric": "rowCount", "mustBe": 1}]}]}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def tls_mariadb() -> Iterator[tuple[int, Path, Path]]:
    """(port, the server's certificate, another certificate) of a MariaDB with TLS on."""
    server, install = shutil.which("mariadbd", path="/usr/sbin:/usr/bin"), \
        shutil.which("mariadb-install-db")
    if server is None or install is None or shutil.which("openssl") is None:
        _missing("no MariaDB server binaries or openssl on this machine")
    root = Path(tempfile.mkdtemp(prefix="packata-tls-"))
    certificate = _certificate(root, "server")
    stranger = _certificate(root, "stranger")
    _owned_by("mysql", root)
    subprocess.run(_as("mysql", install, "--no-defaults", f"--datadir={root}/data",
                       "--auth-root-authentication-method=normal", "--skip-test-db"),
                   capture_output=True, check=True, timeout=120)
    port, socket_path = _free_port(), root / "sock"
    process = subprocess.Popen(
        _as("mysql", server, "--no-defaults", f"--datadir={root}/data", f"--port={port}",
            "--bind-address=127.0.0.1", f"--socket={socket_path}", f"--ssl-cert={certificate}",
            f"--ssl-key={root}/server.key", "--skip-log-bin", "--innodb-buffer-pool-size=16M",
            f"--log-error={root}/error.log"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    admin = ["mariadb", "--no-defaults", f"--socket={socket_path}", "-u", "root"]
    try:
        _until_ready([*admin, "-e", "SELECT 1"], process)
        subprocess.run([*admin, "-e", f"""
            CREATE USER '{LOGIN}'@'%' IDENTIFIED BY '{SENTINEL}' REQUIRE SSL;
            CREATE DATABASE d; CREATE TABLE d.probe (c INT); INSERT INTO d.probe VALUES (1);
            GRANT SELECT ON d.* TO '{LOGIN}'@'%';"""], check=True, capture_output=True,
                       timeout=60)
        yield port, certificate, stranger
    finally:
        subprocess.run(["mariadb-admin", "--no-defaults", f"--socket={socket_path}", "-u",
                        "root", "shutdown"], capture_output=True, timeout=60)
        process.wait(timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def _until_ready(command: list[str], process: subprocess.Popen[bytes]) -> None:
    """Polls the server's readiness (a query through its socket), for at most a minute."""
    for _ in range(600):
        if process.poll() is not None:
            raise AssertionError("the MariaDB server stopped while starting")
        if subprocess.run(command, capture_output=True, timeout=30).returncode == 0:
            return
        time.sleep(0.1)
    raise AssertionError("the MariaDB server did not answer within a minute")


def check(contract: str, url: str, env: dict[str, str] | None = None,
          ) -> tuple[subprocess.CompletedProcess[str], dict]:
    """The binary with the password in PACKATA_PASSWORD, unless `env` says otherwise."""
    done = subprocess.run([BINARY, "check", contract, "--url", url, "--format", "json"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PACKATA_PASSWORD": SENTINEL, **(env or {})})
    assert SENTINEL not in done.stdout + done.stderr
    return done, json.loads(done.stdout)["rules"][0]


def test_tls_url_parameters_reach_libpq(tls_server, contract):
    port, certificate, stranger = tls_server
    base = f"postgresql://{LOGIN}@127.0.0.1:{port}/postgres"
    for query in ("sslmode=require", f"sslmode=verify-ca&sslrootcert={certificate}",
                  f"sslmode=verify-full&sslrootcert={certificate}"):
        done, rule = check(contract, f"{base}?{query}")
        assert (done.returncode, rule["status"]) == (0, "passed"), (query, done.stderr)
    done, rule = check(contract, f"{base}?sslmode=verify-full&sslrootcert={stranger}")
    assert (done.returncode, rule["diagnostic"]["code"]) == (2, "connection-failed")


@pytest.mark.parametrize("query", ["", "?sslmode=prefer", "?sslmode=disable"])
def test_cleartext_password_is_refused_unless_the_url_requires_tls(tls_server, contract, query):
    """The server asks for the password in clear text (pg_hba `password`): only a URL that
    requires TLS sends it, even when `prefer` would happen to encrypt."""
    port, _, _ = tls_server
    done, rule = check(contract, f"postgresql://{LOGIN}@127.0.0.1:{port}/postgres{query}")
    assert (done.returncode, rule["diagnostic"]["code"]) == (2, "insecure-connection")
    assert "in clear text" in done.stderr


def test_libpq_finds_the_password_in_pgpassword_and_pgpass(tls_server, contract, tmp_path):
    port, _, _ = tls_server
    url = f"postgresql://{LOGIN}@127.0.0.1:{port}/postgres?sslmode=require"
    none = {"PACKATA_PASSWORD": "", "PGPASSWORD": "", "PGPASSFILE": str(tmp_path / "absent")}
    done, rule = check(contract, url, none)
    assert (done.returncode, rule["status"]) == (2, "error")  # no password from anywhere
    done, rule = check(contract, url, {**none, "PGPASSWORD": SENTINEL})
    assert (done.returncode, rule["status"]) == (0, "passed"), done.stderr
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"127.0.0.1:{port}:postgres:{LOGIN}:{SENTINEL}\n")
    pgpass.chmod(0o600)
    done, rule = check(contract, url, {**none, "PGPASSFILE": str(pgpass)})
    assert (done.returncode, rule["status"]) == (0, "passed"), done.stderr
    done, rule = check(contract, url, {**none, "PGPASSWORD": SENTINEL + "x"})
    assert rule["diagnostic"]["code"] == "authentication-failed"


def test_mysql_tls_modes_reach_pymysql(tls_mariadb, contract):
    """The login REQUIRE SSL: it connects only through TLS, so every pass below went over it."""
    port, certificate, stranger = tls_mariadb
    base = f"mysql://{LOGIN}@127.0.0.1:{port}/d"
    for query in ("?ssl_mode=REQUIRED", f"?ssl_ca={certificate}",
                  f"?ssl_mode=VERIFY_IDENTITY&ssl_ca={certificate}", ""):  # "" prefers TLS
        done, rule = check(contract, base + query)
        assert (done.returncode, rule["status"]) == (0, "passed"), (query, done.stderr)
    done, rule = check(contract, f"{base}?ssl_mode=DISABLED")
    assert rule["diagnostic"]["code"] == "authentication-failed"  # refused without TLS
    done, rule = check(contract, f"{base}?ssl_mode=VERIFY_CA&ssl_ca={stranger}")
    assert (done.returncode, rule["diagnostic"]["code"]) == (2, "connection-failed")

"""Connection faults a real engine cannot be made to produce, played by a socket on 127.0.0.1:
a server that accepts TCP and never answers (the run ends within --timeout/--budget, for
`check` and `doctor`), and a server that asks for the password in clear text without TLS
(the password is never sent). The real `packata-sql` binary runs against them."""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

SENTINEL = "S3ntinel-pw-9c1e"
BINARY = str(Path(sys.executable).with_name("packata-sql"))
SCHEMES = ("postgresql", "mysql")


def packata(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def contract(tmp_path: Path) -> Path:
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "f", "version": "1.0.0",
                "status": "active",
                "schema": [{"name": "probe", "quality": [{"metric": "rowCount", "mustBe": 1}]}]}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


class FakeServer:
    """A listening socket whose connections a handler thread serves; it keeps every byte the
    client sent, and stays silent unless the handler speaks."""

    def __init__(self, handler: Callable[[socket.socket, FakeServer], None]) -> None:
        self.received = bytearray()
        self.reached_login = threading.Event()
        self._handler = handler
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._held: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            self._held.append(connection)
            threading.Thread(target=self._handler, args=(connection, self), daemon=True).start()

    def read(self, connection: socket.socket, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = connection.recv(size - len(data))
            if not chunk:
                break
            data += chunk
        self.received += data
        return data

    def drain(self, connection: socket.socket) -> None:
        """Everything the client still sends, until it closes (or 5 s of quiet)."""
        connection.settimeout(5)
        try:
            while chunk := connection.recv(4096):
                self.received += chunk
        except OSError:
            pass

    def close(self) -> None:
        self._listener.close()
        for connection in self._held:
            connection.close()


@pytest.fixture
def fake() -> Iterator[Callable[[Callable[[socket.socket, FakeServer], None]], FakeServer]]:
    servers: list[FakeServer] = []

    def start(handler: Callable[[socket.socket, FakeServer], None]) -> FakeServer:
        servers.append(FakeServer(handler))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def silent(connection: socket.socket, server: FakeServer) -> None:
    server.drain(connection)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("limit", [["--timeout", "2"], ["--budget", "2"]])
def test_check_against_a_server_that_never_answers_ends_within_the_limit(scheme, limit, fake,
                                                                         contract):
    server = fake(silent)
    started = time.monotonic()
    done = packata("check", str(contract), "--url", f"{scheme}://u@127.0.0.1:{server.port}/db",
                   "--format", "json", *limit)
    elapsed = time.monotonic() - started
    assert elapsed < 2 + 6, elapsed  # the limit plus start-up, below the 10 s default
    assert done.returncode == 2
    rule = json.loads(done.stdout)["rules"][0]
    assert (rule["status"], rule["diagnostic"]["code"], rule["diagnostic"]["provider_code"]) \
        == ("error", "connection-failed", "connect-timeout")
    assert "did not answer in time" in done.stderr


@pytest.mark.parametrize("scheme", SCHEMES)
def test_doctor_against_a_server_that_never_answers_ends_within_its_timeout(scheme, fake):
    server = fake(silent)
    started = time.monotonic()
    done = packata("doctor", "--url", f"{scheme}://u@127.0.0.1:{server.port}/db",
                   "--timeout", "2")
    assert time.monotonic() - started < 2 + 6
    assert done.returncode == 2
    assert "connection: failed (connection-failed): the server did not answer in time" \
        in done.stdout


def _mysql_packet(sequence: int, payload: bytes) -> bytes:
    return struct.pack("<I", len(payload))[:3] + bytes([sequence]) + payload


def _mysql_handshake() -> bytes:
    """Protocol 10 without CLIENT_SSL: PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH."""
    capabilities = 0x0001 | 0x0008 | 0x0200 | 0x8000 | 0x80000
    return (b"\x0a" + b"5.7.99-fake\0" + struct.pack("<I", 7) + b"12345678\0"
            + struct.pack("<H", capabilities & 0xFFFF) + b"\x21" + struct.pack("<H", 2)
            + struct.pack("<H", capabilities >> 16) + bytes([21]) + b"\0" * 10
            + b"123456789012\0" + b"mysql_native_password\0")


def mysql_asking_cleartext(plugin: bytes, data: bytes) -> Callable[[socket.socket, FakeServer],
                                                                    None]:
    def serve(connection: socket.socket, server: FakeServer) -> None:
        connection.sendall(_mysql_packet(0, _mysql_handshake()))
        header = server.read(connection, 4)
        server.read(connection, int.from_bytes(header[:3], "little"))  # the login request
        server.reached_login.set()
        connection.sendall(_mysql_packet(header[3] + 1, b"\xfe" + plugin + b"\0" + data))
        server.drain(connection)

    return serve


def postgres_asking_cleartext(connection: socket.socket, server: FakeServer) -> None:
    while True:  # SSLRequest / GSSENCRequest come first: refuse them
        length = int.from_bytes(server.read(connection, 4), "big")
        body = server.read(connection, length - 4)
        if body[:4] not in (struct.pack(">I", 80877103), struct.pack(">I", 80877104)):
            break
        connection.sendall(b"N")
    server.reached_login.set()
    connection.sendall(b"R" + struct.pack(">II", 8, 3))  # AuthenticationCleartextPassword
    server.drain(connection)


CLEARTEXT_SERVERS = {
    "mysql_clear_password": ("mysql", mysql_asking_cleartext(b"mysql_clear_password", b"")),
    "mariadb_pam_dialog": ("mysql", mysql_asking_cleartext(b"dialog", b"\x04Password: ")),
    "postgres_password": ("postgresql", postgres_asking_cleartext),
}


@pytest.mark.parametrize("kind", sorted(CLEARTEXT_SERVERS))
@pytest.mark.parametrize("where", ["url", "environment"])
def test_a_server_asking_for_a_cleartext_password_without_tls_never_receives_it(
        kind, where, fake, contract):
    scheme, handler = CLEARTEXT_SERVERS[kind]
    server = fake(handler)
    if where == "url":
        url, env = f"{scheme}://u:{SENTINEL}@127.0.0.1:{server.port}/db", {}
    else:
        url, env = f"{scheme}://u@127.0.0.1:{server.port}/db", {"PACKATA_PASSWORD": SENTINEL}
    done = packata("check", str(contract), "--url", url, "--format", "json", env=env)
    assert server.reached_login.wait(10)
    assert SENTINEL.encode() not in bytes(server.received)
    assert done.returncode == 2
    rule = json.loads(done.stdout)["rules"][0]
    assert rule["diagnostic"]["code"] == "insecure-connection"
    assert "in clear text" in done.stderr
    assert SENTINEL not in done.stdout + done.stderr

"""The run history against live engines (docs/cli.md, history): two `check --history` runs on
a DuckDB and on a PostgreSQL target, with the data changed between them, give a `history`
table that shows the change; a PostgreSQL store takes four racing writers, each once; an
unreachable one (a closed port) leaves the verdict alone, spools the run, and the same store
imports it exactly once when it answers again. The store is a database of its own
(`<test database>_store`), never the checked one."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from packata_sql.cli.main import main
from tests.history.conftest import (
    BAD,
    CONTRACT,
    GOOD,
    ROW_VALUE,
    SECRET,
    SQL_MARKER,
    write_warehouse,
)
from tests.history.racing import race

#: The store URL's password: the admin's where the server asks for one (containers), else a
#: planted one a trust login accepts (the local servers). Never to be kept or shown.
PLANTED = "planted-store-password-6e1f"


def _password(admin: Any) -> str:
    return str(admin.password or PLANTED)


@pytest.fixture
def store(postgres: Any) -> Iterator[str]:
    """A fresh store database beside the test database; its URL carries a password."""
    admin = postgres.admin
    name = f"{admin.database}_store"
    found = postgres.execute("SELECT count(*) FROM pg_database WHERE datname = %s",
                             parameters=(name,))
    if not found[0][0]:
        postgres.execute(f'CREATE DATABASE "{name}"')
    _drop_tables(admin, name)
    yield f"postgresql://{admin.user}:{_password(admin)}@{admin.host}:{admin.port}/{name}"
    _drop_tables(admin, name)


def _connect(admin: Any, database: str) -> psycopg.Connection[Any]:
    return psycopg.connect(host=admin.host, port=admin.port, user=admin.user,
                           password=admin.password, dbname=database, autocommit=True)


def _drop_tables(admin: Any, database: str) -> None:
    with _connect(admin, database) as connection:
        for table in ("packata_rule_results", "packata_runs", "packata_history_version"):
            connection.execute(f"DROP TABLE IF EXISTS {table}")


def _dump(store_url: str, postgres: Any) -> str:
    """Every stored value of the store's tables, as text."""
    database = store_url.rsplit("/", 1)[1]
    with _connect(postgres.admin, database) as connection:
        return "\n".join(str(row) for table in ("packata_runs", "packata_rule_results")
                         for row in connection.execute(f"SELECT * FROM {table}"))


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "orders.yaml").write_text(CONTRACT, encoding="utf-8")
    write_warehouse(tmp_path / "w.duckdb", GOOD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _pg_orders(postgres: Any, rows: list[tuple[Any, ...]]) -> None:
    postgres.execute("DROP TABLE IF EXISTS orders",
                     "CREATE TABLE orders (id INTEGER, status TEXT, amount INTEGER)")
    connection = postgres.connect()
    try:
        connection.cursor().executemany("INSERT INTO orders VALUES (%s, %s, %s)", rows)
    finally:
        connection.close()


@pytest.mark.parametrize("target", ["duckdb", "postgres"])
def test_two_runs_with_the_data_changed_show_the_change(
        target: str, place: Path, store: str, postgres: Any,
        capsys: pytest.CaptureFixture[str]) -> None:
    if target == "postgres":
        _pg_orders(postgres, GOOD)
        url = postgres.reader_url
    else:
        url = "duckdb:///w.duckdb"
    check = ("check", "orders.yaml", "--url", url, "--progress", "none", "--param",
             "floor:int=0", "--param", f"tag:string={SECRET}", "--history", store)
    try:
        first = _cli(capsys, *check)
        assert first[0] == 2, first[2]
        if target == "postgres":
            _pg_orders(postgres, BAD)
        else:
            write_warehouse(place / "w.duckdb", BAD)
        second = _cli(capsys, *check, "--samples", "3", "-v", "--format", "json")
        assert second[0] == 1, second[2]
        assert ROW_VALUE in second[2]  # --samples showed it on stderr ...
        document = json.loads(second[1])
        secret = _password(postgres.admin)
        assert secret not in second[1] and secret not in second[2]
        assert document["history"]["store"].endswith("_store")
        assert document["history"]["store"].startswith(f"postgresql://{postgres.admin.user}@")
        code, table, err = _cli(capsys, "history", "--history", store)
        assert code == 0, err
        row = next(line for line in table.splitlines() if "status_present" in line)
        assert "▁█" in row and "new failure" in row
        kept = _dump(store, postgres)
        assert "urn:history:orders" in kept
        for planted in (ROW_VALUE, SQL_MARKER, SECRET, secret, "SELECT"):
            assert planted not in kept, planted  # ... never the store
        if target == "postgres":  # the checked database itself is never the store
            same = _cli(capsys, *check[:-1], postgres.admin_url)
            assert same[0] == 3 and "is the checked target itself" in same[2]
    finally:
        if target == "postgres":
            postgres.execute("DROP TABLE IF EXISTS orders")


def test_four_writers_at_once_on_postgres_all_land_once(place: Path, store: str,
                                                        postgres: Any) -> None:
    ids = race(place, store)
    assert len(set(ids)) == 4
    database = store.rsplit("/", 1)[1]
    with _connect(postgres.admin, database) as connection:
        stored = sorted(r[0] for r in connection.execute("SELECT run_id FROM packata_runs"))
        rules = connection.execute("SELECT count(*) FROM packata_rule_results").fetchone()
    assert stored == sorted(ids) and rules == (28,)


class _Forwarder:
    """A TCP port that forwards to PostgreSQL once opened: the same store address first
    unreachable (nothing listens), then reachable."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()  # closed: connections are refused
        self.listener: socket.socket | None = None

    def open(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        assert self.listener is not None
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            sink.close()

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()


def test_an_unreachable_store_spools_and_the_same_store_imports_it_once(
        place: Path, store: str, postgres: Any, capsys: pytest.CaptureFixture[str]) -> None:
    admin = postgres.admin
    forwarder = _Forwarder((admin.host, admin.port))
    far = store.replace(f"{admin.host}:{admin.port}", f"127.0.0.1:{forwarder.port}")
    check = ("check", "orders.yaml", "--url", "duckdb:///w.duckdb", "--progress", "none",
             "--param", "floor:int=0", "--param", f"tag:string={SECRET}")
    plain = _cli(capsys, *check)
    refused = _cli(capsys, *check, "--history", far)
    assert refused[0] == plain[0] == 2
    [warning] = refused[2].splitlines()
    assert warning.startswith(f"packata-sql: warning: the history store postgresql://"
                              f"{admin.user}@127.0.0.1:{forwarder.port}/")
    assert "it cannot be reached; the run is spooled in .packata/spool/" in warning
    assert _password(admin) not in warning and "Connection refused" not in warning  # no engine text
    assert len(list((place / ".packata" / "spool").rglob("*.json"))) == 1
    forwarder.open()
    try:
        recovered = _cli(capsys, *check, "--history", far)
        assert recovered[0] == 2 and recovered[2] == "", recovered[2]
        assert "history: 2 runs" in recovered[1]
        assert list((place / ".packata" / "spool").rglob("*.json")) == []
        again = _cli(capsys, *check, "--history", far)
        assert "history: 3 runs" in again[1]
    finally:
        forwarder.close()
    database = store.rsplit("/", 1)[1]
    with _connect(admin, database) as connection:
        ids = [r[0] for r in connection.execute("SELECT run_id FROM packata_runs")]
    assert len(ids) == len(set(ids)) == 3

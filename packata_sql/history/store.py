"""Where the history is kept and how one opens it: a SQLite file (the default,
`.packata/history.sqlite` in the current directory), a PostgreSQL database or a DuckDB file,
through SQLAlchemy Core. Every write is one transaction that first takes the store's write
lock (SQLite `BEGIN IMMEDIATE`, a PostgreSQL advisory lock), so concurrent runs queue rather
than fail, and a fresh store is created (migrated) inside the same transaction."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from packata_sql.errors import UsageError
from packata_sql.history.errors import StoreUnavailable
from packata_sql.history.schema import VERSION, migrate, stored_version

DEFAULT_PATH = Path(".packata") / "history.sqlite"
#: Spooled runs wait here (relative to the current directory) for the next reachable store.
SPOOL_DIR = Path(".packata") / "spool"
#: Seconds a writer waits for the store's lock (another run writing) or a connection.
DEFAULT_TIMEOUT_S = 10.0
#: One constant for `pg_advisory_xact_lock`: the packata history's writers queue on it.
_PG_LOCK = 0x7061636B  # "pack"
_SCHEMES = "a path, sqlite:///FILE, postgresql://HOST/DATABASE or duckdb:///FILE"


@dataclass(frozen=True)
class Store:
    """A history store's address: `shown` is what messages and reports print."""

    url: URL
    shown: str
    family: str  # sqlite, postgresql or duckdb
    path: Path | None = None
    default: bool = False

    def same_file(self, other: Path) -> bool:
        return self.path is not None and _resolved(self.path) == _resolved(other)


def _resolved(path: Path) -> Path:
    return path.expanduser().resolve(strict=False)


def locate(target: str | None) -> Store:
    """`--history TARGET` as a store; None is the default SQLite file."""
    if target is None:
        return _file_store("sqlite", DEFAULT_PATH, default=True)
    if "://" not in target:
        return _file_store("sqlite", Path(target))
    try:
        url = make_url(target)
    except ArgumentError:
        raise UsageError(f"--history: not a store address (the value is not shown: it may "
                         f"hold a password); use {_SCHEMES}") from None
    family = url.get_backend_name()
    if family == "postgres":
        family = "postgresql"
    if family in ("sqlite", "duckdb"):
        if not url.database or url.database == ":memory:":
            raise UsageError(f"--history {family}:///FILE needs a file: an in-memory store "
                             "forgets every run")
        return _file_store(family, Path(url.database))
    if family != "postgresql":
        raise UsageError(f"--history: the store must be {_SCHEMES}")
    if not url.database:
        raise UsageError("--history postgresql://HOST/DATABASE needs a database name")
    url = url.set(drivername="postgresql+psycopg")
    who = f"{url.username}@" if url.username else ""
    port = f":{url.port}" if url.port else ""
    return Store(url, f"postgresql://{who}{url.host or 'localhost'}{port}/{url.database}",
                 "postgresql")


def _file_store(family: str, path: Path, *, default: bool = False) -> Store:
    url = URL.create(family, database=str(path))
    return Store(url, f"{family}:{path}", family, path, default)


def _engine(store: Store, timeout: float) -> Engine:
    arguments: dict[str, Any] = {}
    if store.family == "sqlite":
        arguments = {"timeout": timeout}
    elif store.family == "postgresql":
        arguments = {"connect_timeout": max(1, round(timeout))}
    try:
        engine = create_engine(store.url, poolclass=NullPool, connect_args=arguments)
    except (NoSuchModuleError, ImportError):
        extra = "postgres" if store.family == "postgresql" else store.family
        raise UsageError(f"the history store {store.shown} needs its driver: "
                         f"pip install 'packata-sql[{extra}]'") from None
    if store.family == "sqlite":
        _write_lock_on_begin(engine)
    return engine


def _write_lock_on_begin(engine: Engine) -> None:
    """SQLite: the driver's own transaction handling off, `BEGIN IMMEDIATE` on: the write
    lock is taken first and waited for (busy timeout), never upgraded midway (which fails at
    once under contention)."""

    @event.listens_for(engine, "connect")
    def _autocommit(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _immediate(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


@contextmanager
def writing(store: Store, timeout: float = DEFAULT_TIMEOUT_S) -> Iterator[Connection]:
    """One write transaction on a migrated store (created when missing): committed when the
    block ends, rolled back on any error. Unreachable, locked, read-only: `StoreUnavailable`."""
    if store.default and store.path is not None:
        try:
            store.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            raise StoreUnavailable(f"cannot create the history store {store.shown}") from None
    engine = _engine(store, timeout)
    try:
        with engine.begin() as connection:
            if store.family == "postgresql":
                connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_PG_LOCK})")
            migrate(connection, store.shown)
            yield connection
    except (DBAPIError, OSError) as error:
        raise StoreUnavailable(_why(store, error)) from None
    finally:
        engine.dispose()


@contextmanager
def reading(store: Store, timeout: float = DEFAULT_TIMEOUT_S) -> Iterator[Connection]:
    """A connection to an existing store, for reading. A store of an older schema is
    migrated first (a write); a missing one is a usage error."""
    if store.path is not None and not store.path.exists():
        raise UsageError(f"no history store at {store.shown} yet: `check --history` creates it")
    engine = _engine(store, timeout)
    try:
        with engine.connect() as connection:
            version = stored_version(connection)
            connection.rollback()
        if version != VERSION:
            with writing(store, timeout):
                pass
        with engine.connect() as connection:
            yield connection
    except (DBAPIError, OSError) as error:
        raise StoreUnavailable(_why(store, error)) from None
    finally:
        engine.dispose()


def _why(store: Store, error: SQLAlchemyError | OSError) -> str:
    """A short reason from the error's kind only: engine messages never reach the user."""
    text = str(getattr(error, "orig", error)).lower()
    if "locked" in text or ("lock" in text and "timeout" in text):
        reason = "it is locked by another writer"
    elif "readonly" in text or "read-only" in text or "permission" in text:
        reason = "it is read-only"
    elif "connect" in text or "refused" in text or "resolve" in text or "timeout" in text:
        reason = "it cannot be reached"
    elif "unable to open" in text:
        reason = "it cannot be opened"
    else:
        reason = f"the store refused it ({type(getattr(error, 'orig', error)).__name__})"
    return f"the history store {store.shown} was not written: {reason}"

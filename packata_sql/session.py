"""The only module that touches a database: one read-only connection per run.

Each engine family is one class behind the `Session` protocol. Provider messages never leave
this module: failures become a `ProviderError` with a category and the provider's error code.
"""

from __future__ import annotations

import datetime
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar, Protocol
from urllib.parse import quote

from packata_sql.catalog.patterns import pattern_problem
from packata_sql.dialects import Dialect, Family, get_dialect
from packata_sql.endpoint import Endpoint

ENFORCED = "enforced"
TRUSTED = "trusted"


class ProviderError(Exception):
    """A failure the engine reported, as a category users can act on plus the provider code."""

    MESSAGES: ClassVar[dict[str, str]] = {
        "connection-failed": "could not open a read-only connection to the database",
        "missing-object": "the object does not exist or cannot be read",
        "permission-denied": "the read-only session refused the statement",
        "provider-error": "the database reported an error while measuring",
        "refused": "the connection would not be read-only",
    }

    def __init__(self, category: str, code: str | None = None) -> None:
        super().__init__(self.MESSAGES.get(category, category))
        self.category = category
        self.code = code


Rows = list[tuple[Any, ...]]


@dataclass(frozen=True)
class Result:
    """What a statement returned, bounded: its column count (0 without a result set) and at
    most two rows, enough to tell one row from several without reading the rest."""

    width: int
    rows: Rows
_STOP_GRACE_S = 10.0


class _Refused(Exception):
    """The session refuses to send the statement at all (not exactly one SELECT)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class Interrupted(Exception):
    """The statement was cancelled because its time limit ran out."""


class Session(Protocol):
    dialect: Dialect
    read_only: str

    def columns(self, segments: Sequence[str]) -> dict[str, Family]: ...

    def fetch_row(self, sql: str, limit_s: float) -> tuple[Any, ...]: ...

    def fetch_cell(self, sql: str, parameters: Sequence[object], limit_s: float) -> Result: ...

    def cancel(self) -> None: ...

    def close(self) -> None: ...


def open_session(endpoint: Endpoint, *, trust_environment: bool) -> Session:
    if endpoint.engine == "duckdb":
        return DuckDBSession(endpoint, trust_environment=trust_environment)
    if endpoint.engine == "sqlite":
        return SQLiteSession(endpoint)
    raise ProviderError("connection-failed")


class _Timed:
    """Shared by the embedded engines: statements run under a deadline that interrupts them."""

    dialect: Dialect
    read_only: str

    def _interrupt(self) -> None:
        raise NotImplementedError

    def _classify(self, error: Exception) -> ProviderError:
        raise NotImplementedError

    def _execute(self, sql: str, parameters: Sequence[object] = ()) -> Result:
        raise NotImplementedError

    #: A statement that ignored its interruption still holds the connection.
    _stuck = False

    def cancel(self) -> None:
        self._interrupt()

    def _stop(self, finished: threading.Event) -> None:
        self._interrupt()
        if not finished.wait(_STOP_GRACE_S):
            self._stuck = True

    def _timed(self, action: Callable[[], Rows], limit_s: float) -> Rows:
        """Runs `action` on a worker thread so that the main thread stays responsive: it
        interrupts the statement when the limit passes or when Ctrl-C arrives (a statement
        inside the engine's C code would otherwise hold off Python's signal handling)."""
        if self._stuck:
            raise ProviderError("provider-error", "connection-busy")
        outcome: dict[str, Any] = {}
        finished = threading.Event()  # not Thread.join: an interrupted join corrupts it (< 3.13)

        def work() -> None:
            try:
                outcome["rows"] = action()
            except Exception as error:  # classified below, on the main thread
                outcome["error"] = error
            finally:
                finished.set()

        worker = threading.Thread(target=work, name="packata-sql-statement", daemon=True)
        deadline = time.monotonic() + max(limit_s, 0.0)
        worker.start()
        try:
            while not finished.wait(min(max(deadline - time.monotonic(), 0.0), 0.1)):
                if time.monotonic() >= deadline:
                    self._stop(finished)
                    raise Interrupted
        except KeyboardInterrupt:
            self._stop(finished)
            raise
        if "error" in outcome:
            error = outcome["error"]
            if isinstance(error, _Refused):
                raise ProviderError("permission-denied", error.code)
            raise self._classify(error)
        rows: Rows = outcome["rows"]
        return rows

    def fetch_row(self, sql: str, limit_s: float) -> tuple[Any, ...]:
        rows = self._timed(lambda: self._execute(sql).rows, limit_s)
        if len(rows) != 1:
            raise ProviderError("provider-error", "not-one-row")
        return rows[0]

    def fetch_cell(self, sql: str, parameters: Sequence[object], limit_s: float) -> Result:
        outcome: list[Result] = []

        def action() -> Rows:
            outcome.append(self._execute(sql, parameters))
            return []

        self._timed(action, limit_s)
        return outcome[0]


class DuckDBSession(_Timed):
    """DESIGN.md recipe: a file opened read-only, external access off, configuration locked."""

    def __init__(self, endpoint: Endpoint, *, trust_environment: bool) -> None:
        import duckdb

        self._duckdb = duckdb
        self.dialect = get_dialect("duckdb")
        if endpoint.in_memory:
            if not trust_environment:
                raise ProviderError("refused", "in-memory")
            self.read_only = TRUSTED
        else:
            self.read_only = ENFORCED
        config: dict[str, str | bool | int | float | list[str]] = {
            "enable_external_access": False,
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "lock_configuration": True,
        }
        try:
            self._conn = duckdb.connect(
                endpoint.database, read_only=not endpoint.in_memory, config=config
            )
        except Exception as error:
            raise ProviderError("connection-failed", type(error).__name__) from None

    def _interrupt(self) -> None:
        self._conn.interrupt()

    def _classify(self, error: Exception) -> ProviderError:
        name = type(error).__name__
        if name == "CatalogException":
            return ProviderError("missing-object", name)
        if name == "PermissionException":
            return ProviderError("permission-denied", name)
        return ProviderError("provider-error", name)

    def _execute(self, sql: str, parameters: Sequence[object] = ()) -> Result:
        statements = self._conn.extract_statements(sql)
        if len(statements) != 1 or statements[0].type != self._duckdb.StatementType.SELECT:
            raise _Refused("not-a-single-select")
        cursor = self._conn.execute(sql, list(parameters))
        width = len(cursor.description or ())
        return Result(width, list(cursor.fetchmany(2)) if width else [])

    def columns(self, segments: Sequence[str]) -> dict[str, Family]:
        sql = f"SELECT * FROM {self.dialect.render(self.dialect.table(segments))} LIMIT 0"

        def describe() -> Rows:
            return [(d[0], str(d[1])) for d in self._conn.execute(sql).description]

        described = self._timed(describe, 60)
        return {str(name): self.dialect.family(str(kind)) for name, kind in described}

    def close(self) -> None:
        if not self._stuck:  # a busy connection cannot close; it goes with the process
            self._conn.close()


_ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE}
_FORBIDDEN_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}


class SQLiteSession(_Timed):
    """`mode=ro` + `PRAGMA query_only` + an authorizer that allows reading and nothing else."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.dialect = get_dialect("sqlite")
        self.read_only = ENFORCED
        location = ":memory:" if endpoint.in_memory else quote(endpoint.database)
        target = f"file:{location}?mode=ro"
        try:
            self._conn = sqlite3.connect(target, uri=True, check_same_thread=False)
            self._conn.execute("PRAGMA query_only = ON")
        except sqlite3.Error as error:
            raise ProviderError("connection-failed", getattr(error, "sqlite_errorname", None)) from None
        self._patterns: dict[str, re.Pattern[str]] = {}
        self._conn.create_function("regexp", 2, self._regexp, deterministic=True)
        self._conn.set_authorizer(_authorize)

    def _regexp(self, pattern: object, value: object) -> int | None:
        """SEMANTICS 3.3 search semantics; patterns that fail the guard are refused."""
        if value is None or pattern is None:
            return None
        if not isinstance(value, str) or not isinstance(pattern, str):
            return 0
        compiled = self._patterns.get(pattern)
        if compiled is None:
            if pattern_problem(pattern) is not None:
                raise ValueError("pattern refused")
            compiled = self._patterns[pattern] = re.compile(pattern)
        return 1 if compiled.search(value) else 0

    def _interrupt(self) -> None:
        self._conn.interrupt()

    def _classify(self, error: Exception) -> ProviderError:
        code = getattr(error, "sqlite_errorname", None) or type(error).__name__
        text = str(error)
        if text.startswith("no such table"):
            return ProviderError("missing-object", code)
        if code == "SQLITE_AUTH" or "not authorized" in text:
            return ProviderError("permission-denied", code)
        return ProviderError("provider-error", code)

    def _execute(self, sql: str, parameters: Sequence[object] = ()) -> Result:
        cursor = self._conn.execute(sql, tuple(_sqlite_value(p) for p in parameters))
        try:
            width = len(cursor.description or ())
            return Result(width, list(cursor.fetchmany(2)) if width else [])
        finally:
            cursor.close()

    def columns(self, segments: Sequence[str]) -> dict[str, Family]:
        sql = f"SELECT * FROM {self.dialect.render(self.dialect.table(segments))} LIMIT 0"

        def describe() -> Rows:
            cursor = self._conn.execute(sql)
            try:
                return [(d[0],) for d in cursor.description]
            finally:
                cursor.close()

        return {str(row[0]): Family.DYNAMIC for row in self._timed(describe, 60)}

    def close(self) -> None:
        if not self._stuck:  # a busy connection cannot close; it goes with the process
            self._conn.close()


def _authorize(action: int, first: str | None, second: str | None, database: str | None,
               trigger: str | None) -> int:
    if action in _ALLOWED_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION and (second or "").lower() not in _FORBIDDEN_FUNCTIONS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def _sqlite_value(value: object) -> object:
    """SQLite has no decimal, date or boolean storage: integral decimals become integers,
    others REAL (all SQLite has), dates ISO text, booleans 0/1."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value

"""DuckDB and SQLite: in-process engines opened read-only on a database file."""

from __future__ import annotations

import datetime
import re
import sqlite3
from collections.abc import Sequence
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from packata_sql.catalog.patterns import compile_quietly, engine_problem
from packata_sql.dialects import Family, get_dialect
from packata_sql.endpoint import Endpoint
from packata_sql.session import LoginFacts, ProviderError, Refused, Result, TimedSession


class DuckDBSession(TimedSession):
    """DESIGN.md recipe: a file opened read-only, external access off, configuration locked,
    exactly one SELECT per statement according to DuckDB's own parser."""

    def __init__(self, endpoint: Endpoint) -> None:
        import duckdb

        self._duckdb = duckdb
        self.dialect = get_dialect("duckdb")
        # An in-memory database cannot be opened read-only: nothing guards it.
        self.facts = LoginFacts(provider_enforced=not endpoint.in_memory,
                                unguarded=endpoint.in_memory)
        config: dict[str, str | bool | int | float | list[str]] = {
            "enable_external_access": False,
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
        }
        try:
            self._conn = duckdb.connect(
                endpoint.database, read_only=not endpoint.in_memory, config=config
            )
            # The progress bar would write into the report on stdout; it is a session option,
            # so it is set before the configuration is locked.
            self._conn.execute("SET enable_progress_bar = false")
            self._conn.execute("SET lock_configuration = true")
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

    def _run(self, sql: str, parameters: Sequence[object] | None) -> Result:
        statements = self._conn.extract_statements(sql)
        if len(statements) != 1 or statements[0].type != self._duckdb.StatementType.SELECT:
            raise Refused("not-a-single-select")
        cursor = self._conn.execute(sql, list(parameters or ()))
        width = len(cursor.description or ())
        return Result(width, list(cursor.fetchmany(2)) if width else [])

    def _describe(self, segments: Sequence[str]) -> dict[str, Family]:
        description = self._conn.execute(self.dialect.probe_sql(segments)).description or []
        return {str(d[0]): self.dialect.family(str(d[1])) for d in description}

    def close(self) -> None:
        if not self._stuck:  # a busy connection cannot close; it goes with the process
            self._conn.close()


_ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE}
_FORBIDDEN_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}


class SQLiteSession(TimedSession):
    """`mode=ro` + `PRAGMA query_only` + an authorizer that allows reading and nothing else."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.dialect = get_dialect("sqlite")
        self.facts = LoginFacts(provider_enforced=True)
        location = ":memory:" if endpoint.in_memory else quote(endpoint.database)
        try:
            self._conn = sqlite3.connect(f"file:{location}?mode=ro", uri=True,
                                         check_same_thread=False)
            self._conn.execute("PRAGMA query_only = ON")
        except sqlite3.Error as error:
            raise ProviderError("connection-failed", getattr(error, "sqlite_errorname", None)) \
                from None
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
            if engine_problem(pattern) is not None:
                raise ValueError("pattern refused")
            compiled = self._patterns[pattern] = compile_quietly(pattern)
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

    def _run(self, sql: str, parameters: Sequence[object] | None) -> Result:
        cursor = self._conn.execute(sql, tuple(_sqlite_value(p) for p in parameters or ()))
        try:
            width = len(cursor.description or ())
            return Result(width, list(cursor.fetchmany(2)) if width else [])
        finally:
            cursor.close()

    def _describe(self, segments: Sequence[str]) -> dict[str, Family]:
        cursor = self._conn.execute(self.dialect.probe_sql(segments))
        try:
            return {str(d[0]): Family.DYNAMIC for d in cursor.description}
        finally:
            cursor.close()

    def close(self) -> None:
        if not self._stuck:
            self._conn.close()


def _authorize(action: int, first: str | None, second: str | None, database: str | None,
               trigger: str | None) -> int:
    if action in _ALLOWED_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION and (second or "").lower() not in _FORBIDDEN_FUNCTIONS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def _sqlite_value(value: Any) -> Any:
    """SQLite has no decimal, date or boolean storage: integral decimals become integers,
    others REAL (all SQLite has), dates ISO text, booleans 0/1."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value

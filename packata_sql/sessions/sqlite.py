"""SQLite: an in-process engine opened read-only on a database file."""

from __future__ import annotations

import datetime
import sqlite3
import time
from collections.abc import Sequence
from decimal import Decimal
from typing import Any
from urllib.parse import quote

import re2

from packata_sql.dialects import Family, get_dialect
from packata_sql.dialects.facts import ColumnFact
from packata_sql.dialects.regex import MAX_PATTERN_LENGTH
from packata_sql.sessions.base import (
    LoginFacts,
    ProviderError,
    Result,
    TimedSession,
)
from packata_sql.sessions.endpoint import Endpoint


def _decoded(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


_ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE}
_FORBIDDEN_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}
#: SQLite virtual-machine steps between two looks at the clock (about a millisecond of work).
_PROGRESS_STEPS = 10_000
#: Compiled patterns kept per session; a rule reading patterns from a column must not make
#: every row's RE2 program (up to `max_mem` each) live at once.
_PATTERN_CACHE = 16
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 would write the refused pattern to stderr


class SQLiteSession(TimedSession):
    """`mode=ro` + `PRAGMA query_only` + an authorizer that allows reading and nothing else."""

    schema: str | None = "main"

    def __init__(self, endpoint: Endpoint) -> None:
        self.dialect = get_dialect("sqlite")
        self.facts = LoginFacts(provider_enforced=True)
        location = ":memory:" if endpoint.in_memory else quote(endpoint.database)
        try:
            self._conn = sqlite3.connect(f"file:{location}?mode=ro", uri=True,
                                         check_same_thread=False)
            self._conn.execute("PRAGMA query_only = ON")
            # SQLite keeps any bytes as TEXT: a cell that is not UTF-8 reads with U+FFFD in
            # place of the bad bytes instead of failing the statement that fetched it.
            self._conn.text_factory = _decoded
        except sqlite3.Error as error:
            raise ProviderError("connection-failed", getattr(error, "sqlite_errorname", None)) \
                from None
        self._patterns: dict[str, Any] = {}
        self._conn.create_function("regexp", 2, self._regexp, deterministic=True)
        self._conn.set_authorizer(_authorize)
        # The statement's own deadline, checked inside SQLite: it holds even when the main
        # thread cannot run (a long stretch of callbacks) and covers every statement.
        self._deadline = float("inf")
        self._conn.set_progress_handler(self._past_deadline, _PROGRESS_STEPS)

    def _regexp(self, pattern: object, value: object) -> int | None:
        """docs/semantics.md 3.3 search semantics in RE2, linear in the text whatever the pattern, so
        no cell holds the statement past its deadline; patterns RE2 refuses are errors."""
        if value is None or pattern is None:
            return None
        if not isinstance(value, str) or not isinstance(pattern, str):
            return 0
        compiled = self._patterns.get(pattern)
        if compiled is None:
            if len(pattern) > 8 * MAX_PATTERN_LENGTH:
                raise ValueError("pattern refused")
            try:
                compiled = re2.compile(pattern, _RE2_OPTIONS)
            except re2.error:
                raise ValueError("pattern refused") from None
            if len(self._patterns) >= _PATTERN_CACHE:
                self._patterns.clear()
            self._patterns[pattern] = compiled
        return 1 if compiled.search(value) else 0

    def _past_deadline(self) -> int:
        """SQLite's progress handler: non-zero stops the statement with SQLITE_INTERRUPT."""
        return 1 if time.monotonic() >= self._deadline else 0

    def _start_clock(self) -> None:
        self._deadline = time.monotonic() + self.limit_s

    def _interrupt(self) -> None:
        self._deadline = float("-inf")  # holds even between two steps, where interrupt() is lost
        self._conn.interrupt()

    def _classify(self, error: Exception) -> ProviderError:
        code = getattr(error, "sqlite_errorname", None) or type(error).__name__
        text = str(error)
        if code == "SQLITE_INTERRUPT":
            return ProviderError("timeout", code)
        if text.startswith("no such table"):
            return ProviderError("missing-object", code)
        if code == "SQLITE_AUTH" or "not authorized" in text:
            return ProviderError("permission-denied", code)
        return ProviderError("provider-error", code)

    def _run(self, sql: str, parameters: Sequence[object] | None) -> Result:
        self._start_clock()
        cursor = self._conn.execute(sql, tuple(_sqlite_value(p) for p in parameters or ()))
        try:
            width = len(cursor.description or ())
            boolean = parameters is not None and width == 1 and self.dialect.boolean_valued(sql, "")
            return Result(width, list(cursor.fetchmany(2)) if width else [], boolean)
        finally:
            cursor.close()

    def _objects(self, schema: str | None) -> list[str]:
        cursor = self._conn.execute(self.dialect.objects_sql(), (schema,))
        try:
            return [str(row[0]) for row in cursor.fetchall()]
        finally:
            cursor.close()

    def _describe(self, segments: Sequence[str]) -> dict[str, Family]:
        self._start_clock()
        cursor = self._conn.execute(self.dialect.probe_sql(segments))
        try:
            return {str(d[0]): Family.DYNAMIC for d in cursor.description}
        finally:
            cursor.close()

    def _facts(self, segments: Sequence[str]) -> tuple[ColumnFact, ...]:
        *schema, table = segments
        # Our own fixed statement: SQLite asks to authorize the pragma and an "update" of
        # sqlite_master for pragma_table_info, so the authorizer is widened for it alone.
        self._conn.set_authorizer(_authorize_table_info)
        try:
            rows = self._conn.execute(
                'SELECT name, type, "notnull", pk FROM pragma_table_info(?, ?) ORDER BY cid',
                (table, schema[-1] if schema else "main"),
            ).fetchall()
        finally:
            self._conn.set_authorizer(_authorize)
        if not rows:
            raise ProviderError("missing-object", "no-such-table")
        # The column of a one-column INTEGER PRIMARY KEY (a rowid alias) is never NULL, though
        # not declared so; the columns of a composite key may hold NULL (SQLite's legacy rule).
        alias = sum(1 for r in rows if r[3]) == 1
        return tuple(ColumnFact(str(r[0]), i, str(r[1]), self.dialect.type_family(str(r[1])),
                                not (r[2] or (alias and r[3] and str(r[1]).upper() == "INTEGER")),
                                int(r[3]) or None)
                     for i, r in enumerate(rows, 1))

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


def _authorize_table_info(action: int, first: str | None, second: str | None,
                          database: str | None, trigger: str | None) -> int:
    if action == sqlite3.SQLITE_PRAGMA and (first or "").lower() == "table_info":
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_UPDATE and first == "sqlite_master":
        return sqlite3.SQLITE_OK  # asked by the pragma's schema lookup; mode=ro still holds
    return _authorize(action, first, second, database, trigger)


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

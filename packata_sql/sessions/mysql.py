"""MySQL and MariaDB through PyMySQL.

Every read-only mode is escapable there (`BEGIN NOT ATOMIC COMMIT; START TRANSACTION READ
WRITE; … END`), so authored SQL needs a login with no route beyond reading (`mysql_routes`:
grants, roles, definer objects; read-only level `credentials`) or `--trust-environment`.
Statements still run in `START TRANSACTION READ ONLY`
on a session marked read-only, without the multi-statement flag, on an unbuffered cursor that
reads two rows; the time limit is enforced server-side and by `KILL QUERY` from a control
connection; a result with more rows is cut off by killing the connection.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from packata_sql.dialects import Family
from packata_sql.dialects.facts import ColumnFact
from packata_sql.dialects.mysql import CASE_COLLATION_SQL, MySQL
from packata_sql.sessions import calls, mysql_routes
from packata_sql.sessions.base import (
    SCHEMAS_SQL,
    LoginFacts,
    ProviderError,
    Refused,
    Result,
    TimedSession,
)
from packata_sql.sessions.drivers import (
    mysql_arguments,
    mysql_connect_failure,
    mysql_relax_timeouts,
    password_needed,
)
from packata_sql.sessions.endpoint import Endpoint

_FACTS = ("SELECT c.column_name, c.column_type, c.is_nullable, k.ordinal_position"
          " FROM information_schema.columns c LEFT JOIN information_schema.key_column_usage k"
          " ON k.constraint_name = 'PRIMARY' AND k.table_schema = c.table_schema"
          " AND k.table_name = c.table_name AND k.column_name = c.column_name"
          " WHERE c.table_schema = COALESCE(%s, DATABASE()) AND c.table_name = %s"
          " ORDER BY c.ordinal_position")
_AUTHENTICATION = {1045, 1698}
_MISSING = {1146, 1049, 1051}
_DENIED = {1142, 1143, 1227, 1044, 1045, 1792, 1290, 1370}
_LOST = {2006, 2013, 2055, 1927, 1053}
_TIMEOUT = {1969, 3024, 1317}
# Warnings that mean the value is not the answer: PCRE gave up on a pattern (MariaDB counts the
# cell as "no match" and only warns).
_UNDECIDED = {1139}
# SQL modes under which the generated SQL and the binder would read text differently: no
# backslash escapes, "…" as identifiers, NOT binding tighter than IS, || as concatenation, ''
# read as NULL, CHAR values padded, and the composite modes (and MariaDB's Oracle grammar).
_FOREIGN_MODES = frozenset({
    "NO_BACKSLASH_ESCAPES", "ANSI_QUOTES", "HIGH_NOT_PRECEDENCE", "PIPES_AS_CONCAT",
    "EMPTY_STRING_IS_NULL", "PAD_CHAR_TO_FULL_LENGTH", "ANSI", "ORACLE", "MSSQL", "DB2",
    "POSTGRESQL", "MAXDB",
})


def session_sql_mode(configured: str) -> str:
    """The server's sql_mode without the modes that change how SQL text reads."""
    return ",".join(mode for mode in configured.split(",")
                    if mode and mode.strip().upper() not in _FOREIGN_MODES)


#: PyMySQL's 2003 "Can't connect" carries the socket error's text; 2005 is an unknown host.
_CONNECTION_TEXTS = (
    ("connection refused", "connection-refused"),
    ("errno 111", "connection-refused"),
    ("name or service not known", "host-not-found"),
    ("nodename nor servname", "host-not-found"),
    ("unknown mysql server host", "host-not-found"),
    ("timed out", "connection-timeout"),  # 2013 during the handshake: no greeting in time
)


class MySQLSession(TimedSession):
    def __init__(self, endpoint: Endpoint) -> None:
        import pymysql
        import pymysql.cursors

        self._pymysql = pymysql
        self._endpoint = endpoint
        self.dialect: MySQL = MySQL()
        self._conn: Any = None
        self._control: Any = None
        self._connect()
        routes, objects = self._inspect_login()
        # No provider enforcement: only a login without routes is read-only (`credentials`).
        self.facts = LoginFacts(provider_enforced=False, select_only=not routes,
                                routes=tuple(routes), definer_objects=objects)

    def _open(self) -> Any:
        endpoint = self._endpoint
        try:
            return self._pymysql.connect(
                **mysql_arguments(endpoint), autocommit=False, charset="utf8mb4",
                client_flag=0, local_infile=False,
                cursorclass=self._pymysql.cursors.SSCursor,
            )
        except self._pymysql.Error as error:
            raise password_needed(endpoint, self._connection_error(error)) from error

    def _connect(self) -> None:
        self._conn = self._open()
        self._mariadb = "mariadb" in str(self._conn.get_server_info()).lower()
        try:
            with self._conn.cursor() as cursor:
                cursor.execute("SET SESSION TRANSACTION READ ONLY")
                # The same round trip asks whether LOWER and UPPER can map case as .NET does.
                cursor.execute(f"SELECT @@SESSION.sql_mode, {CASE_COLLATION_SQL}")
                rows = cursor.fetchall()
                configured = str(rows[0][0]) if rows and rows[0][0] is not None else ""
                self.dialect.case_collation = bool(rows and rows[0][1])
                cursor.execute("SET SESSION sql_mode = %s", [session_sql_mode(configured)])
        except self._pymysql.Error as error:
            raise self._classify(error) from error
        self.schema = self._use_schema()
        mysql_relax_timeouts(self._conn)

    def _schemas(self) -> list[str]:
        with self._conn.cursor() as cursor:
            cursor.execute(SCHEMAS_SQL)
            return [str(row[0]) for row in cursor.fetchall()]

    def _use_schema(self) -> str | None:
        """The schema is the database on MySQL/MariaDB: a declared one becomes the connection's
        current database, so authored SQL reads the objects library metrics read."""
        declared = self._endpoint.declared_schema
        try:
            with self._conn.cursor() as cursor:
                if declared is not None:
                    cursor.execute(f"USE {self.dialect.quote_identifier(declared)}")
                cursor.execute("SELECT DATABASE()")
                rows = cursor.fetchall()
        except self._pymysql.Error as error:
            code = error.args[0] if error.args and isinstance(error.args[0], int) else None
            if declared is None:
                raise ProviderError("missing-schema", str(code) if code else None) from None
            raise self._missing_schema(declared, str(code) if code else None) from None
        current = rows[0][0] if rows else None
        if current is None and declared is not None:
            raise self._missing_schema(declared)
        return None if current is None else str(current)

    def _connection_error(self, error: Exception) -> ProviderError:
        known = mysql_connect_failure(error)
        if known is not None:
            return known
        code = error.args[0] if error.args and isinstance(error.args[0], int) else None
        if code in _AUTHENTICATION:
            return ProviderError("authentication-failed", str(code))
        if code in (1044, 1049):  # ER_DBACCESS_DENIED_ERROR (MySQL hides which), ER_BAD_DB_ERROR
            return ProviderError("unknown-database", str(code))
        text = str(error).lower()
        for needle, category in _CONNECTION_TEXTS:
            if code in (2003, 2005, 2013) and needle in text:
                return ProviderError(category, str(code))
        return ProviderError("connection-failed", str(code) if code else None)

    def _inspect_login(self) -> tuple[list[str], frozenset[tuple[str, ...]]]:
        try:
            with self._conn.cursor() as cursor:
                return mysql_routes.inspect(cursor)
        except self._pymysql.Error as error:
            raise self._classify(error) from error

    def _ensure(self) -> None:
        if self._conn is None or not self._conn.open:
            self._connect()

    def _run(self, sql: str, parameters: Sequence[object] | None) -> Result:
        self._ensure()
        statement = sql
        if self._mariadb:
            statement = f"SET STATEMENT max_statement_time={self.limit_s:.3f} FOR {sql}"
        cursor = self._conn.cursor()
        try:
            if parameters is not None:  # authored SQL
                self._follow_calls(sql, cursor)
            if not self._mariadb:
                cursor.execute(f"SET SESSION max_execution_time = {int(self.limit_s * 1000)}")
            cursor.execute("START TRANSACTION READ ONLY")
            cursor.execute(statement, parameters if parameters else None)
            width = len(cursor.description or ())
            boolean = self._boolean_valued(sql, parameters, cursor.description)
            rows = [tuple(r) for r in cursor.fetchmany(2)] if width else []
            if len(rows) == 2 or not width:
                # More rows may follow (reading them could take long), or another result
                # set: drop the connection instead of draining it.
                self._kill_connection(cursor)
                return Result(width, rows, boolean)
            if cursor.fetchone() is not None or cursor.nextset():
                self._kill_connection(cursor)
                return Result(width, rows if width else [], boolean)
            warnings = self._warning_codes(cursor)
            self._conn.rollback()
            self._release_locks(cursor)
            if warnings & _UNDECIDED:
                raise ProviderError("provider-error", str(min(warnings & _UNDECIDED)))
            return Result(width, rows, boolean)
        except self._pymysql.Error:
            self._discard()
            raise
        finally:
            if self._conn is not None and self._conn.open:
                cursor.close()

    def _follow_calls(self, sql: str, cursor: Any) -> None:
        """Every stored routine the statement calls, followed into its body (`calls.follow`);
        a refusal ends the rule before it runs."""
        refusal = calls.follow(sql, self.dialect, lambda found, nested: mysql_routes.routines(
            cursor, found, nested))
        if refusal is not None:
            raise ProviderError("denied-function", None, str(refusal))

    def _warning_codes(self, cursor: Any) -> set[int]:
        """The statement's warning codes (read before the rollback clears them)."""
        if not cursor.warning_count:
            return set()
        return {int(row[1]) for row in self._conn.show_warnings()}

    def _boolean_valued(self, sql: str, parameters: Sequence[object] | None,
                        description: Any) -> bool:
        """An authored one-column result the server reports as a boolean expression."""
        if parameters is None or not description or len(description) != 1:
            return False
        return self.dialect.boolean_valued(sql, f"{description[0][1]}:{description[0][3]}")

    def _release_locks(self, cursor: Any) -> None:
        """Named locks (GET_LOCK) outlive the transaction and block other applications:
        release them, and refuse the statement that took one."""
        cursor.execute("SELECT RELEASE_ALL_LOCKS()")
        released = cursor.fetchall()
        if released and released[0][0]:
            raise Refused("session-lock")

    def _discard(self) -> None:
        try:
            if self._conn is not None and self._conn.open:
                self._conn.rollback()
        except self._pymysql.Error:
            self._conn.close()

    def _control_connection(self) -> Any:
        if self._control is None or not self._control.open:
            self._control = self._open()
        return self._control

    def _kill(self, what: str) -> None:
        if self._conn is None or not self._conn.open:
            return
        try:
            with self._control_connection().cursor() as cursor:
                cursor.execute(f"KILL {what} {int(self._conn.thread_id())}")
        except self._pymysql.Error:
            pass  # the server-side limit still applies

    def _kill_connection(self, cursor: Any) -> None:
        self._kill("CONNECTION")
        # PyMySQL would drain the unbuffered result on close, from a dead socket: forget it.
        for holder in (cursor, self._conn):
            result = getattr(holder, "_result", None)
            if result is not None:
                result.unbuffered_active = False
            holder._result = None
        with contextlib.suppress(self._pymysql.Error):
            self._conn.close()

    def _read(self, sql: str, parameters: Sequence[object] | None = None
              ) -> tuple[Sequence[Any], list[Any]]:
        """One of our own catalog statements in a read-only transaction: description, rows."""
        self._ensure()
        cursor = self._conn.cursor()
        try:
            cursor.execute("START TRANSACTION READ ONLY")
            cursor.execute(sql, parameters)
            description = cursor.description or []
            return description, list(cursor.fetchall())
        except self._pymysql.Error:
            self._discard()
            raise
        finally:
            if self._conn.open:
                cursor.close()
                self._conn.rollback()

    def _describe(self, segments: Sequence[str]) -> dict[str, Family]:
        description, _ = self._read(self.dialect.probe_sql(segments))
        return {str(d[0]): self.dialect.family(f"{d[1]}:{d[3]}") for d in description}

    def _facts(self, segments: Sequence[str]) -> tuple[ColumnFact, ...]:
        *schema, table = segments
        _, rows = self._read(_FACTS, [schema[-1] if schema else None, table])
        if not rows:
            raise ProviderError("missing-object", "1146")
        return self._column_facts(rows)

    def _column_facts(self, rows: Sequence[Any]) -> tuple[ColumnFact, ...]:
        return tuple(ColumnFact(str(r[0]), i, str(r[1]), self.dialect.family(str(r[1])),
                                str(r[2]).upper() == "YES", int(r[3]) if r[3] else None)
                     for i, r in enumerate(rows, 1))

    def _objects(self, schema: str | None) -> list[str]:
        self._ensure()
        cursor = self._conn.cursor()
        try:
            cursor.execute(self.dialect.objects_sql(), [schema])
            return [str(row[0]) for row in cursor.fetchall()]
        except self._pymysql.Error:
            self._discard()
            raise
        finally:
            if self._conn.open:
                cursor.close()

    def _interrupt(self) -> None:
        self._kill("QUERY")

    def _terminate(self) -> None:
        """A statement that ignored KILL QUERY loses its connection; the next runs on a new one."""
        self._kill("CONNECTION")

    def _classify(self, error: Exception) -> ProviderError:
        code = error.args[0] if error.args and isinstance(error.args[0], int) else None
        label = str(code) if code is not None else type(error).__name__
        if code in _LOST or isinstance(error, self._pymysql.err.InterfaceError):
            return ProviderError("connection-lost", label)
        if code in _MISSING:
            return ProviderError("missing-object", label)
        if code in _DENIED:
            return ProviderError("permission-denied", label)
        if code in _TIMEOUT:
            return ProviderError("timeout", label)
        return ProviderError("provider-error", label)

    def close(self) -> None:
        if self._stuck:
            self._terminate()  # no server thread may outlive the run
        for connection in (self._conn, self._control):
            if connection is not None and connection.open and not self._stuck:
                with contextlib.suppress(self._pymysql.Error):
                    connection.close()

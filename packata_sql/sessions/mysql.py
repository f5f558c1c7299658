"""MySQL and MariaDB through PyMySQL.

Every read-only mode is escapable there (`BEGIN NOT ATOMIC COMMIT; START TRANSACTION READ
WRITE; … END`), so authored SQL needs a login whose grants are SELECT-only (read-only level
`credentials`) or `--trust-environment`. Statements still run in `START TRANSACTION READ ONLY`
on a session marked read-only, without the multi-statement flag, on an unbuffered cursor that
reads two rows; the time limit is enforced server-side and by `KILL QUERY` from a control
connection; a result with more rows is cut off by killing the connection.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from typing import Any

from packata_sql.dialects import Family, get_dialect
from packata_sql.endpoint import Endpoint
from packata_sql.session import (
    CONNECT_TIMEOUT_S,
    CREDENTIALS,
    ENFORCED,
    TRUSTED,
    ProviderError,
    Result,
    TimedSession,
)

_GRANT = re.compile(r"^GRANT\s+(.+?)\s+ON\s+", re.IGNORECASE | re.DOTALL)
_HARMLESS = {"SELECT", "USAGE", "SHOW VIEW"}
_AUTHENTICATION = {1045, 1698}
_MISSING = {1146, 1049, 1051}
_DENIED = {1142, 1143, 1227, 1044, 1792, 1290, 1370}
_LOST = {2006, 2013, 2055, 1927, 1053}
_TIMEOUT = {1969, 3024, 1317}
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


def write_privileges(grants: Sequence[str]) -> list[str]:
    """Privileges beyond SELECT in `SHOW GRANTS` lines (roles and proxies count as unknown)."""
    found: list[str] = []
    for line in grants:
        match = _GRANT.match(line.strip())
        if match is None:
            found.append("unrecognised grant")
            continue
        for privilege in match.group(1).split(","):
            name = re.sub(r"\s*\(.*\)$", "", privilege.strip()).upper()
            if name not in _HARMLESS:
                found.append(name)
    return found


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
    def __init__(self, endpoint: Endpoint, *, trust_environment: bool) -> None:
        import pymysql
        import pymysql.cursors

        self._pymysql = pymysql
        self._endpoint = endpoint
        self.dialect = get_dialect("mysql")
        self._conn: Any = None
        self._control: Any = None
        self._connect()
        self.privileges = self._inspect_login()
        self.authored_allowed = not self.privileges or trust_environment
        if not self.privileges:
            self.read_only = CREDENTIALS
        else:
            self.read_only = TRUSTED if trust_environment else ENFORCED

    def _open(self) -> Any:
        endpoint = self._endpoint
        try:
            # PyMySQL's connect_timeout covers the TCP connect only; a server that accepts
            # and never greets would hang the handshake, so reads are bounded until logged in.
            connection = self._pymysql.connect(
                host=endpoint.host, port=endpoint.port or 3306, user=endpoint.user or "",
                password=endpoint.password or "", database=endpoint.database or None,
                connect_timeout=CONNECT_TIMEOUT_S, read_timeout=CONNECT_TIMEOUT_S,
                autocommit=False, charset="utf8mb4", client_flag=0, local_infile=False,
                cursorclass=self._pymysql.cursors.SSCursor,
            )
        except self._pymysql.Error as error:
            raise self._connection_error(error) from None
        # Statements then read without a socket limit: their time limit is KILL QUERY from
        # the control connection (PyMySQL applies `_read_timeout` before each packet read).
        setattr(connection, "_read_timeout", None)  # noqa: B010 (no public setter)
        return connection

    def _connect(self) -> None:
        self._conn = self._open()
        self._mariadb = "mariadb" in str(self._conn.get_server_info()).lower()
        try:
            with self._conn.cursor() as cursor:
                cursor.execute("SET SESSION TRANSACTION READ ONLY")
                cursor.execute("SELECT @@SESSION.sql_mode")
                rows = cursor.fetchall()
                configured = str(rows[0][0]) if rows and rows[0][0] is not None else ""
                cursor.execute("SET SESSION sql_mode = %s", [session_sql_mode(configured)])
        except self._pymysql.Error as error:
            raise self._classify(error) from None
        self.schema = self._use_schema()

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
            raise ProviderError("missing-schema", str(code) if code else None) from None
        current = rows[0][0] if rows else None
        if current is None and declared is not None:
            raise ProviderError("missing-schema")
        return None if current is None else str(current)

    def _connection_error(self, error: Exception) -> ProviderError:
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

    def _inspect_login(self) -> list[str]:
        try:
            with self._conn.cursor() as cursor:
                cursor.execute("SHOW GRANTS")
                grants = [str(row[0]) for row in cursor.fetchall()]
        except self._pymysql.Error as error:
            raise self._classify(error) from None
        return write_privileges(grants)

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
            self._conn.rollback()
            return Result(width, rows, boolean)
        except self._pymysql.Error:
            self._discard()
            raise
        finally:
            if self._conn is not None and self._conn.open:
                cursor.close()

    def _boolean_valued(self, sql: str, parameters: Sequence[object] | None,
                        description: Any) -> bool:
        """An authored one-column result the server reports as a boolean expression."""
        if parameters is None or not description or len(description) != 1:
            return False
        return self.dialect.boolean_valued(sql, f"{description[0][1]}:{description[0][3]}")

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

    def _describe(self, segments: Sequence[str]) -> dict[str, Family]:
        self._ensure()
        cursor = self._conn.cursor()
        try:
            cursor.execute("START TRANSACTION READ ONLY")
            cursor.execute(self.dialect.probe_sql(segments))
            description = cursor.description or []
            cursor.fetchall()
        except self._pymysql.Error:
            self._discard()
            raise
        finally:
            if self._conn.open:
                cursor.close()
                self._conn.rollback()
        return {str(d[0]): self.dialect.family(f"{d[1]}:{d[3]}") for d in description}

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
        for connection in (self._conn, self._control):
            if connection is not None and connection.open and not self._stuck:
                with contextlib.suppress(self._pymysql.Error):
                    connection.close()

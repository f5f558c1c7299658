"""PostgreSQL through psycopg 3: a read-only transaction per statement, a server-side cursor
(DECLARE accepts one SELECT/VALUES/WITH only, and fetches two rows), `SET LOCAL
statement_timeout` plus a client-side cancel, always rolled back.

A read-only transaction does not stop superusers or members of the file/program roles from
reading or writing server files, nor `dblink_exec` from writing elsewhere: such logins run
generated SQL only, unless the host trusts the environment.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from packata_sql.dialects import Family, get_dialect
from packata_sql.endpoint import Endpoint
from packata_sql.session import (
    CONNECT_TIMEOUT_S,
    ENFORCED,
    TRUSTED,
    ProviderError,
    Refused,
    Result,
    TimedSession,
)

_RISKY_LOGIN = """
SELECT r.rolsuper,
       pg_has_role(current_user, 'pg_read_server_files', 'MEMBER'),
       pg_has_role(current_user, 'pg_write_server_files', 'MEMBER'),
       pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER'),
       EXISTS (SELECT 1 FROM pg_catalog.pg_proc p
               WHERE p.proname IN ('dblink_exec', 'dblink', 'dblink_send_query')
                 AND has_function_privilege(p.oid, 'EXECUTE'))
FROM pg_catalog.pg_roles r WHERE r.rolname = current_user
"""
_CURSOR = "packata_sql_cell"
# For the statement's transaction only: its time limit, and '…' literals without backslash
# escapes whatever the role or database sets (the generated SQL and the binder assume them).
_SETUP = ("SELECT set_config('statement_timeout', %s, true), "
          "set_config('standard_conforming_strings', 'on', true)")


def login_risks(row: Sequence[Any]) -> list[str]:
    """Names what lets this login escape a read-only transaction."""
    labels = ("superuser", "pg_read_server_files", "pg_write_server_files",
              "pg_execute_server_program", "dblink")
    return [label for label, flag in zip(labels, row, strict=True) if flag]


#: libpq reports network failures without a SQLSTATE: its message names the kind.
_CONNECTION_TEXTS = (
    ("connection refused", "connection-refused"),
    ("could not translate host name", "host-not-found"),
    ("name or service not known", "host-not-found"),
    ("timeout expired", "connection-timeout"),
    ("timed out", "connection-timeout"),
)

class PostgresSession(TimedSession):
    def __init__(self, endpoint: Endpoint, *, trust_environment: bool) -> None:
        import psycopg

        self._psycopg = psycopg
        self._endpoint = endpoint
        self.dialect = get_dialect("postgres")
        self._conn: Any = None
        self._connect()
        self.schema = self._resolve_schema()
        self.risks = self._inspect_login()
        self.authored_allowed = not self.risks or trust_environment
        self.read_only = TRUSTED if self.risks and trust_environment else ENFORCED

    def _connect(self) -> None:
        endpoint = self._endpoint
        try:
            self._conn = self._psycopg.connect(
                host=endpoint.host, port=endpoint.port, dbname=endpoint.database,
                user=endpoint.user, password=endpoint.password or None,
                connect_timeout=CONNECT_TIMEOUT_S, application_name="packata-sql",
                autocommit=False,
            )
        except self._psycopg.Error as error:
            raise self._connection_error(error) from None
        self._conn.read_only = True  # every transaction starts with BEGIN READ ONLY

    def _connection_error(self, error: Exception) -> ProviderError:
        code = getattr(error, "sqlstate", None)
        text = str(error).lower()
        if code == "3D000" or ("database" in text and "does not exist" in text):
            return ProviderError("unknown-database", code or "3D000")
        if "role" in text and "does not exist" in text:
            return ProviderError("unknown-role", code or "28000")
        if code in ("28P01", "28000") or "password authentication failed" in text:
            return ProviderError("authentication-failed", code or "28P01")
        for needle, category in _CONNECTION_TEXTS:
            if needle in text:
                return ProviderError(category, code)
        return ProviderError("connection-failed", code)

    def _inspect_login(self) -> list[str]:
        try:
            with self._conn.cursor() as cursor:
                cursor.execute(_RISKY_LOGIN)
                row = cursor.fetchone()
        except self._psycopg.Error as error:
            raise self._classify(error) from None
        finally:
            self._end()
        return login_risks(row) if row else ["unknown-role"]

    def _set_search_path(self, cursor: Any) -> None:
        """Unqualified names resolve in the declared schema, for this transaction only, as
        library metrics do (pg_catalog stays first implicitly); no declared schema, no change."""
        schema = self._endpoint.declared_schema
        if schema is not None:
            statement = self._psycopg.sql.SQL("SET LOCAL search_path TO {}")
            cursor.execute(statement.format(self._psycopg.sql.Identifier(schema)))

    def _resolve_schema(self) -> str | None:
        """The schema unqualified names resolve in; a declared one must exist and be usable."""
        try:
            with self._conn.cursor() as cursor:
                self._set_search_path(cursor)
                cursor.execute("SELECT current_schema()")
                row = cursor.fetchone()
        except self._psycopg.Error as error:
            raise self._classify(error) from None
        finally:
            self._end()
        current = row[0] if row else None
        if current is None and self._endpoint.declared_schema is not None:
            raise ProviderError("missing-schema")
        return None if current is None else str(current)

    def _end(self) -> None:
        """Ends the statement's transaction; a broken connection is replaced before the next."""
        try:
            if not self._conn.closed:
                self._conn.rollback()
        except self._psycopg.Error:
            self._conn.close()

    def _ensure(self) -> None:
        if self._conn.closed or self._conn.broken:
            self._connect()

    def _run(self, sql: str, parameters: Sequence[object] | None) -> Result:
        self._ensure()
        try:
            with self._conn.cursor() as setup:
                setup.execute(_SETUP, [str(max(1, int(self.limit_s * 1000)))])
                self._set_search_path(setup)
            cursor = self._conn.cursor(name=_CURSOR)
            try:
                cursor.execute(sql, parameters)
                width = len(cursor.description or ())
                rows = [tuple(r) for r in cursor.fetchmany(2)] if width else []
            finally:
                cursor.close()
            with self._conn.cursor() as check:
                # Some writes pass a read-only transaction (lo_from_bytea): any write assigns
                # a transaction id, so its presence unmasks them. The rollback undoes them.
                check.execute("SELECT pg_current_xact_id_if_assigned() IS NOT NULL")
                wrote = check.fetchone()
            if wrote and wrote[0]:
                raise Refused("wrote-in-read-only-transaction")
            return Result(width, rows)
        finally:
            self._end()

    def _describe(self, segments: Sequence[str]) -> dict[str, Family]:
        self._ensure()
        try:
            with self._conn.cursor() as cursor:
                cursor.execute(self.dialect.probe_sql(segments))
                description = list(cursor.description or [])
                # Extension types (citext, …) have OIDs psycopg does not know: ask the server.
                cursor.execute(
                    "SELECT oid, CASE typtype WHEN 'e' THEN 'enum' ELSE typname END"
                    " FROM pg_catalog.pg_type WHERE oid = ANY(%s)",
                    [[column.type_code for column in description]],
                )
                names = {oid: str(name) for oid, name in cursor.fetchall()}
        finally:
            self._end()
        return {column.name: self.dialect.family(names.get(column.type_code, ""))
                for column in description}

    def _objects(self, schema: str | None) -> list[str]:
        self._ensure()
        try:
            with self._conn.cursor() as cursor:
                self._set_search_path(cursor)
                cursor.execute(self.dialect.objects_sql(), [schema])
                return [str(row[0]) for row in cursor.fetchall()]
        finally:
            self._end()

    def _interrupt(self) -> None:
        conn = self._conn
        if conn is not None and not conn.closed:
            # On failure the server-side statement_timeout still ends the statement.
            with contextlib.suppress(self._psycopg.Error):
                conn.cancel_safe(timeout=5.0)

    def _classify(self, error: Exception) -> ProviderError:
        code = getattr(error, "sqlstate", None)
        if isinstance(error, self._psycopg.OperationalError) and (
            code is None or code.startswith("08") or code.startswith("57P")
        ):
            return ProviderError("connection-lost", code)
        if code in ("42P01", "3F000"):
            return ProviderError("missing-object", code)
        if code in ("42501", "25006"):
            return ProviderError("permission-denied", code)
        if code == "57014":
            return ProviderError("timeout", code)  # the server's own statement_timeout
        return ProviderError("provider-error", code or type(error).__name__)

    def close(self) -> None:
        if self._conn is not None and not self._stuck and not self._conn.closed:
            try:
                self._conn.rollback()
            finally:
                self._conn.close()

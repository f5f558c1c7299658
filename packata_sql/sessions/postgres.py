"""PostgreSQL through psycopg 3: read-only transactions, a server-side cursor (DECLARE accepts
one SELECT/VALUES/WITH only, and fetches two rows), a per-statement `statement_timeout` plus a
client-side cancel, always rolled back. Authored SQL runs in a transaction of its own; the
run's generated and catalog statements share one, each generated statement inside a savepoint
rolled back after it, its guards travelling with it in one round trip.

A read-only transaction does not stop a login from acting outside it (server files, dblink,
WAL messages, …): `postgres_routes` finds how the login could, and `readonly.decide` refuses
authored SQL when it can. After every statement, in its transaction, the session checks that
it still runs as the login with the settings it had; a statement that timed out and ignored
its cancel has its backend terminated from a control connection.
"""

from __future__ import annotations

import codecs
import contextlib
from collections.abc import Sequence
from typing import Any

from packata_sql.dialects import Family
from packata_sql.dialects.facts import ColumnFact
from packata_sql.dialects.postgres import CASE_COLLATION_SQL, Postgres
from packata_sql.sessions import calls, postgres_routes
from packata_sql.sessions.base import (
    SCHEMAS_SQL,
    LoginFacts,
    ProviderError,
    Refused,
    Result,
    TimedSession,
)
from packata_sql.sessions.drivers import (
    password_needed,
    postgres_arguments,
    postgres_connect_failure,
)
from packata_sql.sessions.endpoint import Endpoint

_CURSOR = "packata_sql_cell"
# An object's columns from the catalog: the type as written (format_type), the type name the
# dialect's family mapping reads (enums as 'enum', domains as their base type), nullability,
# key position, and a composite type's attributes (pg_type.typrelid → pg_attribute, nested
# composites followed) as [path, format_type, family type name] in attribute order (NULL for
# any other).
_FACTS_COLUMNS = """
a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
       (WITH RECURSIVE base(typtype, typname, typbasetype) AS (
          SELECT t.typtype, t.typname, t.typbasetype
          UNION ALL
          SELECT bt.typtype, bt.typname, bt.typbasetype
          FROM base JOIN pg_catalog.pg_type bt ON bt.oid = base.typbasetype
          WHERE base.typtype = 'd')
        SELECT CASE typtype WHEN 'e' THEN 'enum' ELSE typname END FROM base
        WHERE typtype <> 'd'),
       NOT a.attnotnull,
       (SELECT k.n FROM pg_catalog.pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
        WHERE i.indrelid = a.attrelid AND i.indisprimary AND k.attnum = a.attnum),
       (WITH RECURSIVE f(path, ord, typid, typmod) AS (
          SELECT ARRAY[c.attname::text], ARRAY[c.attnum::int], c.atttypid, c.atttypmod
          FROM pg_catalog.pg_attribute c
          WHERE t.typtype = 'c' AND c.attrelid = t.typrelid AND c.attnum > 0
                AND NOT c.attisdropped
          UNION ALL
          SELECT f.path || c.attname::text, f.ord || c.attnum::int, c.atttypid, c.atttypmod
          FROM f JOIN pg_catalog.pg_type ft ON ft.oid = f.typid
          JOIN pg_catalog.pg_attribute c ON c.attrelid = ft.typrelid AND c.attnum > 0
               AND NOT c.attisdropped
          WHERE ft.typtype = 'c' AND pg_catalog.cardinality(f.path) < 32)
        SELECT pg_catalog.json_agg(pg_catalog.json_build_array(
                 f.path, pg_catalog.format_type(f.typid, f.typmod),
                 CASE ft.typtype WHEN 'e' THEN 'enum' WHEN 'd' THEN fb.typname
                      ELSE ft.typname END) ORDER BY f.ord)
        FROM f JOIN pg_catalog.pg_type ft ON ft.oid = f.typid
        LEFT JOIN pg_catalog.pg_type fb ON fb.oid = ft.typbasetype)
"""
# The type name the family reads is the one a result column of the object would report: a
# domain's base type, followed through domains over domains (enums as 'enum').
_FACTS = f"""
SELECT {_FACTS_COLUMNS}
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
WHERE a.attrelid = pg_catalog.to_regclass(%s) AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum
"""
# The same for many objects in one statement, each row led by its object's ordinal.
_FACTS_OF = f"""
SELECT o.n, {_FACTS_COLUMNS}
FROM pg_catalog.unnest(%s::text[]) WITH ORDINALITY AS o(name, n)
JOIN pg_catalog.pg_attribute a ON a.attrelid = pg_catalog.to_regclass(o.name)
JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
WHERE a.attnum > 0 AND NOT a.attisdropped
ORDER BY o.n, a.attnum
"""
# For the statement's transaction only: its time limit, and '…' literals without backslash
# escapes whatever the role or database sets (the generated SQL and the binder assume them).
_SETUP = ("SELECT set_config('statement_timeout', %s, true), "
          "set_config('standard_conforming_strings', 'on', true)")


# Who the statement runs as and the settings it changed (SET, SET LOCAL and set_config all
# show as source 'session'); compared before and after each statement, in its transaction.
_IDENTITY_COLUMNS = ("current_user, session_user, pg_catalog.current_setting('role'),"
                     " pg_catalog.current_setting('session_authorization'),"
                     " (SELECT pg_catalog.array_agg(ARRAY[name, setting] ORDER BY name)"
                     "  FROM pg_catalog.pg_settings WHERE source = 'session')")
_IDENTITY = f"SELECT {_IDENTITY_COLUMNS}"
# Session-level advisory locks outlive the rollback and block other applications.
_HELD = ("EXISTS (SELECT 1 FROM pg_catalog.pg_locks WHERE locktype = 'advisory'"
         " AND pid = pg_catalog.pg_backend_pid())")
_HELD_LOCKS = f"SELECT {_HELD}"
_XACT_ID_SINCE = 130000  # pg_current_xact_id_if_assigned() appeared in PostgreSQL 13

# Generated statements share the run's read-only transaction (opened with these settings
# once), each inside its own savepoint: its time limit is set there, and rolling back to it
# undoes whatever the statement changed in the transaction and releases its locks.
_SHARED_SETUP = "SELECT pg_catalog.set_config('standard_conforming_strings', 'on', true)"
_SHARED_SCHEMA = ", pg_catalog.set_config('search_path', pg_catalog.quote_ident(%s), true)"
_SAVEPOINT = "SAVEPOINT packata_sql_statement"
_UNDO = "ROLLBACK TO SAVEPOINT packata_sql_statement"
_TIMEOUT = "SELECT pg_catalog.set_config('statement_timeout', %s, true)"
_DECLARE = f'DECLARE "{_CURSOR}" NO SCROLL CURSOR FOR '
_FETCH = f'FETCH FORWARD 2 FROM "{_CURSOR}"'


def _wrote(server_version: int) -> str:
    function = ("pg_current_xact_id_if_assigned" if server_version >= _XACT_ID_SINCE
                else "txid_current_if_assigned")
    return f"pg_catalog.{function}() IS NOT NULL"


def wrote_check_sql(server_version: int) -> str:
    """Any write assigns a transaction id, so its presence unmasks writes a read-only
    transaction lets through (lo_from_bytea); txid_current_if_assigned() before 13."""
    return f"SELECT {_wrote(server_version)}"


# In the shared transaction the state before each statement is the transaction's own (every
# statement's changes are rolled back to its savepoint), read once when it opens, apart from
# the statement's time limit, which is compared on its own.
_SHARED_IDENTITY_COLUMNS = _IDENTITY_COLUMNS.replace(
    "WHERE source = 'session'", "WHERE source = 'session' AND name <> 'statement_timeout'")
_SHARED_IDENTITY = f"SELECT {_SHARED_IDENTITY_COLUMNS}"


def statement_check_sql(server_version: int) -> str:
    """The checks after a generated statement in one row: wrote, holds a session lock, the
    identity and settings `identity_problem` compares with the transaction's, and the time
    limit the statement ran under."""
    return (f"SELECT {_wrote(server_version)}, {_HELD}, {_SHARED_IDENTITY_COLUMNS}, "
            "pg_catalog.current_setting('statement_timeout')")


def identity_problem(before: Sequence[Any], after: Sequence[Any]) -> str | None:
    """Why a statement's result cannot be trusted: it ran as another role, or it changed a
    setting that would outlive it in the transaction."""
    if after[0] != after[1] or after[:4] != before[:4]:
        return "identity-changed"
    if after[4] != before[4]:
        return "setting-changed"
    return None


#: libpq reports network failures without a SQLSTATE: its message names the kind.
_CONNECTION_TEXTS = (
    ("connection refused", "connection-refused"),
    ("could not translate host name", "host-not-found"),
    ("name or service not known", "host-not-found"),
    ("timeout expired", "connection-timeout"),
    ("timed out", "connection-timeout"),
)

class PostgresSession(TimedSession):
    _families_from_facts = True

    def __init__(self, endpoint: Endpoint) -> None:
        import psycopg

        self._psycopg = psycopg
        self._endpoint = endpoint
        self.dialect: Postgres = Postgres()
        self._conn: Any = None
        #: The run's shared transaction is open on this connection, set up, and the identity
        #: and settings it was opened with.
        self._shared_open = False
        self._shared_identity: Any = None
        self._connect()
        self.schema = self._resolve_schema()
        found = self._inspect_login()
        self.facts = LoginFacts(provider_enforced=True, routes=tuple(found.routes),
                                definer_objects=found.views, hardening=tuple(found.hardening))

    def _connect(self) -> None:
        endpoint = self._endpoint
        try:
            self._conn = self._psycopg.connect(
                **postgres_arguments(endpoint, self._psycopg.pq.version()), autocommit=False
            )
        except self._psycopg.Error as error:
            raise password_needed(endpoint, self._connection_error(error)) from error
        self._conn.read_only = True  # every transaction starts with BEGIN READ ONLY
        self._shared_open = False

    def _connection_error(self, error: Exception) -> ProviderError:
        known = postgres_connect_failure(error)
        if known is not None:
            return known
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

    def _inspect_login(self) -> postgres_routes.Inspection:
        try:
            with self._conn.cursor() as cursor:
                return postgres_routes.inspect(cursor)
        except self._psycopg.Error as error:
            raise self._classify(error) from error
        finally:
            self._end()

    def _follow_calls(self, sql: str, cursor: Any) -> None:
        """Every function the statement calls, followed into its body under the statement's
        own search path (`calls.follow`); a refusal ends the rule before it runs."""
        version = self._conn.info.server_version
        try:
            refusal = calls.follow(sql, self.dialect, lambda found, nested: postgres_routes.routines(
                cursor, found, nested, version))
        except self._psycopg.errors.InsufficientPrivilege as error:
            raise ProviderError("denied-function", "unreadable-body",
                                "the login cannot read the catalog's function bodies "
                                "(pg_proc)") from error
        if refusal is not None:
            raise ProviderError("denied-function", None, str(refusal))

    def _identity(self) -> Any:
        with self._conn.cursor() as cursor:
            cursor.execute(_IDENTITY)
            return cursor.fetchone()

    def _verify(self, before: Any) -> None:
        """After the statement, in its transaction: nothing written, same identity and
        settings (a rule that borrowed another role's rights ends in error)."""
        with self._conn.cursor() as check:
            check.execute(wrote_check_sql(self._conn.info.server_version))
            wrote = check.fetchone()
            check.execute(_HELD_LOCKS)
            locked = check.fetchone()
            if locked and locked[0]:
                check.execute("SELECT pg_catalog.pg_advisory_unlock_all()")
        if wrote and wrote[0]:
            raise Refused("wrote-in-read-only-transaction")
        if locked and locked[0]:
            raise Refused("session-lock")
        problem = identity_problem(before, self._identity())
        if problem is not None:
            raise Refused(problem)

    def _terminate(self) -> None:
        """Ends the backend of a statement that ignored its cancel, from a control connection
        of the same login (which may signal its own backends)."""
        conn = self._conn
        if conn is None or conn.closed:
            return
        arguments = {**postgres_arguments(self._endpoint, self._psycopg.pq.version()),
                     "application_name": "packata-sql control"}  # same TLS and time limits
        with contextlib.suppress(self._psycopg.Error), self._psycopg.connect(
            **arguments, autocommit=True
        ) as control:
            control.execute("SELECT pg_catalog.pg_terminate_backend(%s)",
                            [conn.info.backend_pid])

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
                # The same round trip asks whether LOWER and UPPER can map case as .NET does.
                cursor.execute(f"SELECT current_schema(), {CASE_COLLATION_SQL}")
                row = cursor.fetchone()
        except self._psycopg.Error as error:
            raise self._classify(error) from error
        finally:
            self._end()
        current = row[0] if row else None
        self.dialect.case_collation = bool(row[1]) if row else False
        # A database not in UTF8 holds fewer characters: generated SQL writes no other.
        encoding = str(self._conn.info.encoding)
        try:
            unicode = codecs.lookup(encoding).name == "utf-8"
        except LookupError:
            unicode = False
        self.dialect.text_encoding = None if unicode else encoding
        if current is None and self._endpoint.declared_schema is not None:
            raise self._missing_schema(self._endpoint.declared_schema)
        return None if current is None else str(current)

    def _schemas(self) -> list[str]:
        try:
            with self._conn.cursor() as cursor:
                cursor.execute(SCHEMAS_SQL)
                return [str(row[0]) for row in cursor.fetchall()]
        finally:
            self._end()

    def _end(self) -> None:
        """Ends the statement's transaction; a broken connection is replaced before the next."""
        self._shared_open = False
        try:
            if not self._conn.closed:
                self._conn.rollback()
        except self._psycopg.Error:
            self._conn.close()

    def _ensure(self) -> None:
        if self._conn.closed or self._conn.broken:
            self._connect()

    def _run(self, sql: str, parameters: Sequence[object] | None) -> Result:
        """Authored SQL (and generated SQL on request): a transaction of its own, its calls
        followed, each guard a statement of its own, as docs/engines.md describes."""
        self._ensure()
        self._end()  # the run's shared transaction, if open
        try:
            with self._conn.cursor() as setup:
                setup.execute(_SETUP, [str(max(1, int(self.limit_s * 1000)))])
                self._set_search_path(setup)
                if parameters is not None:  # authored SQL
                    self._follow_calls(sql, setup)
            before = self._identity()
            cursor = self._conn.cursor(name=_CURSOR)
            try:
                cursor.execute(sql, parameters)
                width = len(cursor.description or ())
                rows = [tuple(r) for r in cursor.fetchmany(2)] if width else []
            finally:
                cursor.close()
            self._verify(before)
            return Result(width, rows)
        finally:
            self._end()

    def _shared(self) -> None:
        """The run's transaction for generated and catalog statements, opened once (BEGIN
        READ ONLY, then its literal and search-path settings); an authored statement, a
        failure or a refusal ends it, and the next statement opens a new one."""
        self._ensure()
        status = self._conn.info.transaction_status
        if self._shared_open and status == self._psycopg.pq.TransactionStatus.INTRANS:
            return
        self._end()
        schema = self._endpoint.declared_schema
        try:
            with self._conn.cursor() as setup, self._conn.cursor() as identity:
                with self._batch():
                    if schema is None:
                        setup.execute(_SHARED_SETUP)
                    else:
                        setup.execute(_SHARED_SETUP + _SHARED_SCHEMA, [schema])
                    identity.execute(_SHARED_IDENTITY)
                self._shared_identity = identity.fetchone()
        except BaseException:
            self._end()
            raise
        self._shared_open = True

    def _batch(self) -> contextlib.AbstractContextManager[Any]:
        """The statements of one generated measurement travel together (libpq's pipeline: one
        round trip); without pipeline support in the client library, one by one."""
        if self._psycopg.Pipeline.is_supported():
            return self._conn.pipeline()  # type: ignore[no-any-return]
        return contextlib.nullcontext()

    def _run_generated(self, sql: str, parameters: Sequence[object] | None) -> Result:
        """Generated SQL in the run's transaction, inside a savepoint: its time limit, the
        statement as a server-side cursor (one SELECT/VALUES/WITH, two rows fetched), the
        checks after it (nothing written, no session lock, the transaction's identity and
        settings, its own time limit), and the rollback to the savepoint, in one round trip.
        A failure or a refusal ends the transaction (a statement that wrote leaves the
        transaction an id)."""
        self._shared()
        limit = str(max(1, int(self.limit_s * 1000)))
        cursors = [self._conn.cursor() for _ in range(5)]
        savepoint, timeout, declare, fetch, after = cursors
        try:
            with self._batch():
                savepoint.execute(_SAVEPOINT)
                timeout.execute(_TIMEOUT, [limit])
                declare.execute(_DECLARE + sql, parameters)
                fetch.execute(_FETCH)
                after.execute(statement_check_sql(self._conn.info.server_version))
                savepoint.execute(_UNDO)
            width = len(fetch.description or ())
            rows = [tuple(r) for r in fetch.fetchall()] if width else []
            limited, checked = timeout.fetchone(), after.fetchone()
        except BaseException:
            self._end()
            raise
        finally:
            for cursor in cursors:
                cursor.close()
        wrote, locked, now, ran_under = checked[0], checked[1], tuple(checked[2:7]), checked[7]
        problem = "wrote-in-read-only-transaction" if wrote else \
            "session-lock" if locked else identity_problem(self._shared_identity, now) or \
            (None if ran_under == limited[0] else "setting-changed")
        if problem is not None:
            if locked:
                with self._conn.cursor() as unlock:
                    unlock.execute("SELECT pg_catalog.pg_advisory_unlock_all()")
            self._end()
            raise Refused(problem)
        return Result(width, rows)

    def _describe(self, segments: Sequence[str]) -> dict[str, Family]:
        """The probe reads the object itself (a view's query is planned, and could act): in a
        transaction of its own, as before, never in the run's shared one, whose state the
        generated statements' checks rely on. Objects whose facts were read ahead need none."""
        self._ensure()
        self._end()
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

    def _facts(self, segments: Sequence[str]) -> tuple[ColumnFact, ...]:
        self._shared()
        try:
            with self._conn.cursor() as cursor:
                cursor.execute(_FACTS, [self.dialect.quote_path(segments)])
                rows = cursor.fetchall()
        except BaseException:
            self._end()
            raise
        if not rows:
            raise ProviderError("missing-object", "42P01")
        return self._column_facts(rows)

    def _facts_of(self, objects: Sequence[tuple[str, ...]]
                  ) -> dict[tuple[str, ...], tuple[ColumnFact, ...]]:
        """One catalog statement for all the run's objects (to_regclass under the run's
        search path, as `_facts` reads one); an object it does not find is left out."""
        self._shared()
        try:
            with self._conn.cursor() as local, self._conn.cursor() as cursor:
                with self._batch():
                    # Its estimated cost (a few subqueries per column) would have the server
                    # compile it (JIT): seconds for 500 objects, against a quarter of one to
                    # run.
                    local.execute(_SAVEPOINT)
                    local.execute("SELECT pg_catalog.set_config('jit', 'off', true)")
                    cursor.execute(_FACTS_OF, [[self.dialect.quote_path(o) for o in objects]])
                    local.execute(_UNDO)
                rows = cursor.fetchall()
        except BaseException:
            self._end()
            raise
        grouped: dict[int, list[Any]] = {}
        for row in rows:
            grouped.setdefault(int(row[0]), []).append(row[1:])
        return {objects[n - 1]: self._column_facts(found) for n, found in grouped.items()}

    def _column_facts(self, rows: Sequence[Any]) -> tuple[ColumnFact, ...]:
        for row in rows:  # a composite's attributes: its fields, as a STRUCT's type lists them
            if row[5]:
                self.dialect.read_composite(str(row[1]), [
                    ([str(name) for name in path], str(native), str(type_name))
                    for path, native, type_name in row[5]])
        return tuple(ColumnFact(str(r[0]), i, str(r[1]), self.dialect.family(str(r[2])),
                                bool(r[3]), int(r[4]) if r[4] is not None else None)
                     for i, r in enumerate(rows, 1))

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
        if self._stuck:
            self._terminate()  # no backend may outlive the run
        if self._conn is not None and not self._stuck and not self._conn.closed:
            try:
                self._conn.rollback()
            finally:
                self._conn.close()

"""DuckDB: an in-process engine opened read-only on a database file."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import sqlglot.expressions as exp

from packata_sql.dialects import Family, get_dialect
from packata_sql.dialects.facts import ColumnFact
from packata_sql.sessions.base import (
    SCHEMAS_SQL,
    LoginFacts,
    ProviderError,
    Refused,
    Result,
    TimedSession,
)
from packata_sql.sessions.drivers import import_driver
from packata_sql.sessions.endpoint import Endpoint

#: What DuckDB's Python client raises (a plain RuntimeError) when Ctrl-C arrives while one of
#: the opening statements runs; measured: about 2 % of interrupts sent while a session opens.
_CLIENT_INTERRUPTED = "Query interrupted"
#: DuckDB shares one database instance between a process's connections to a file, and its
#: configuration lock is the instance's: one session at a time opens, so each sees the lock
#: either unset (and sets it) or set with the settings it verifies. A lock, not state.
_OPENING = threading.Lock()
#: The progress bar computes the query's progress for `query_progress`, and prints nothing.
_PROGRESS = {"enable_progress_bar": True, "enable_progress_bar_print": False}


class DuckDBSession(TimedSession):
    """docs/engines.md recipe: a file opened read-only, external access off, configuration locked,
    exactly one SELECT per statement according to DuckDB's own parser."""

    #: An interrupt that arrives before the engine started the statement is lost: repeated.
    _interrupt_again_s = 0.05

    _families_from_facts = True  # DESCRIBE's types are the probe's result types

    def __init__(self, endpoint: Endpoint) -> None:
        duckdb: Any = import_driver("duckdb")

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
            with _OPENING:  # a connection sees its database instance locked, or locks it
                self._open(duckdb, endpoint, config)
        except ProviderError:
            self._conn.close()
            raise
        except duckdb.InterruptException:  # DuckDB turns Ctrl-C while opening into its own error
            raise KeyboardInterrupt from None
        except Exception as error:
            if isinstance(error, RuntimeError) and str(error) == _CLIENT_INTERRUPTED:
                raise KeyboardInterrupt from None
            raise ProviderError("connection-failed", type(error).__name__) from None

    def _open(self, duckdb: Any, endpoint: Endpoint, config: Mapping[str, object]) -> None:
        self._conn = duckdb.connect(endpoint.database, read_only=not endpoint.in_memory,
                                    config=dict(config))
        shared = self._setting("lock_configuration") is True
        if shared:
            # Another session of this process locked the database instance DuckDB shares
            # between connections to one file (runs in several threads): its settings are this
            # connection's too, so they are verified instead of set.
            self._verify_locked(config)
        else:
            # Query progress for the live display (`query_progress`), never printed: DuckDB's
            # own bar would write into the report on stdout. Set before the configuration is
            # locked.
            for name, value in _PROGRESS.items():
                self._conn.execute(f"SET {name} = {str(value).lower()}")
        self.schema = self._set_schema(endpoint.declared_schema)
        if not shared:
            self._conn.execute("SET lock_configuration = true")

    def _setting(self, name: str) -> object:
        row = self._conn.execute("SELECT current_setting(?)", [name]).fetchone()
        return row[0] if row else None

    def _verify_locked(self, config: Mapping[str, object]) -> None:
        # The progress settings are the connection's own (DuckDB scope LOCAL): this one has
        # the defaults, which may be a bar off (no progress, a spinner) but never one printed.
        printed = self._setting("enable_progress_bar") is not False \
            and self._setting("enable_progress_bar_print") is not False
        if printed or any(self._setting(name) != value for name, value in config.items()):
            raise ProviderError("connection-failed", "the database is open in this process "
                                "with other settings")

    def _set_schema(self, declared: str | None) -> str:
        """Unqualified names resolve in the declared schema first, as library metrics do. Set
        before the configuration is locked, so authored SQL cannot change it."""
        if declared is not None:
            value = self.dialect.render(exp.Literal.string(self.dialect.quote_identifier(declared)))
            try:
                self._conn.execute(f"SET schema = {value}")
            except self._duckdb.CatalogException:
                raise self._missing_schema(declared) from None
        row = self._conn.execute("SELECT current_schema()").fetchone()
        return str(row[0]) if row else "main"

    def _interrupt(self) -> None:
        self._conn.interrupt()

    def _progress(self) -> float | None:
        """DuckDB's progress of the running query (documented as callable from another
        thread while it runs); -1 when it has none to tell."""
        value = float(self._conn.query_progress())
        return value if value >= 0 else None

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
        # The statement the guard parsed is the one that runs: the text is not parsed again
        # (a second parse of a 1,000-rule scan costs ≈ 60 ms).
        cursor = self._conn.execute(statements[0], list(parameters or ()))
        width = len(cursor.description or ())
        return Result(width, list(cursor.fetchmany(2)) if width else [])

    def _objects(self, schema: str | None) -> list[str]:
        return [str(row[0]) for row in
                self._conn.execute(self.dialect.objects_sql(), [schema]).fetchall()]

    def _schemas(self) -> list[str]:
        return [str(row[0]) for row in self._conn.execute(SCHEMAS_SQL).fetchall()]

    def _describe(self, segments: Sequence[str]) -> dict[str, Family]:
        description = self._conn.execute(self.dialect.probe_sql(segments)).description or []
        return {str(d[0]): self.dialect.family(str(d[1])) for d in description}

    def _facts(self, segments: Sequence[str]) -> tuple[ColumnFact, ...]:
        rows = self._conn.execute(f"DESCRIBE {self.dialect.render(self.dialect.table(segments))}"
                                  ).fetchall()
        keys = self._primary_key(segments) if any(r[3] == "PRI" for r in rows) else []
        return self._described(rows, keys)

    def _described(self, rows: Sequence[Any], keys: list[str]) -> tuple[ColumnFact, ...]:
        """DESCRIBE's rows (name, type, null, key, …) and the key's columns in key order."""
        return tuple(ColumnFact(str(r[0]), i, str(r[1]), self.dialect.family(str(r[1])),
                                str(r[2]).upper() == "YES",
                                keys.index(str(r[0])) + 1 if str(r[0]) in keys else None)
                     for i, r in enumerate(rows, 1))

    def _facts_of(self, objects: Sequence[tuple[str, ...]]
                  ) -> dict[tuple[str, ...], tuple[ColumnFact, ...]]:
        """Every object's DESCRIBE in one statement (each part names its object as DESCRIBE
        alone would, so it resolves the same), and the primary keys in one more when any
        object has one; a missing object fails the statement, and each is read alone."""
        parts = [f"SELECT {n} AS n, row_number() OVER () AS k, * FROM (DESCRIBE "
                 f"{self.dialect.render(self.dialect.table(segments))})"
                 for n, segments in enumerate(objects)]
        rows = self._conn.execute(" UNION ALL ".join(parts) + " ORDER BY n, k").fetchall()
        grouped: dict[int, list[Any]] = {}
        for row in rows:
            grouped.setdefault(int(row[0]), []).append(row[2:])
        keyed = {n for n, found in grouped.items() if any(r[3] == "PRI" for r in found)}
        keys = self._primary_keys([objects[n] for n in sorted(keyed)]) if keyed else {}
        return {objects[n]: self._described(found, keys.get(objects[n], []))
                for n, found in grouped.items()}

    def _primary_key(self, segments: Sequence[str]) -> list[str]:
        """The key's columns in key order (DESCRIBE marks them, without their order)."""
        return self._primary_keys([tuple(segments)]).get(tuple(segments), [])

    def _primary_keys(self, objects: Sequence[tuple[str, ...]]
                      ) -> dict[tuple[str, ...], list[str]]:
        """Each object's primary key from one read of the constraints, matched by table and
        schema name (the object's own, or the session's) without case, the first match."""
        rows = self._conn.execute(
            "SELECT lower(table_name), lower(schema_name), constraint_column_names "
            "FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY'").fetchall()
        first: dict[tuple[str, str], list[str]] = {}
        for table, schema, names in rows:
            first.setdefault((str(table), str(schema)), [str(name) for name in names])
        found = {}
        for segments in objects:
            schema = segments[-2] if len(segments) > 1 else self.schema
            key = None if schema is None else first.get((segments[-1].lower(), schema.lower()))
            if key is not None:
                found[segments] = key
        return found

    def close(self) -> None:
        if not self._stuck:  # a busy connection cannot close; it goes with the process
            self._conn.close()

"""The store's tables and their forward migrations.

Portable SQLAlchemy Core DDL, so one schema serves SQLite, PostgreSQL and DuckDB. What the
tables may hold is the report's evidence minus anything that can hold a row value, SQL text,
a secret or an engine message (docs/semantics.md, run history): codes, counts, exact numbers,
the contract's own expectation words.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    select,
)

from packata_sql.history.errors import StoreUnavailable

metadata = MetaData()

version_table = Table(
    "packata_history_version", metadata,
    Column("version", Integer, nullable=False),
)

runs = Table(
    "packata_runs", metadata,
    Column("run_id", String(64), primary_key=True),
    Column("contract_id", Text, nullable=False),
    Column("contract_version", Text),
    Column("contract_path", Text, nullable=False),
    Column("target", Text, nullable=False),
    # ISO 8601 UTC, microseconds: text orders as time does, on every engine alike.
    Column("observed_at", String(40), nullable=False),
    Column("started_at", String(40)),
    Column("duration_ms", Integer),
    Column("outcome", String(16), nullable=False),
    Column("complete", Boolean, nullable=False),
    # The selection document as JSON text (rule keys, categories, counts), or NULL.
    Column("selection", Text),
    Column("packata_sql_version", String(40), nullable=False),
    Column("recorded_at", String(40), nullable=False),
)

rule_results = Table(
    "packata_rule_results", metadata,
    # No foreign key: DuckDB refuses cascades; the store deletes a run's rules itself.
    Column("run_id", String(64), primary_key=True),
    Column("rule_key", Text, primary_key=True),
    Column("category", String(16), nullable=False),
    Column("severity", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    # Exact: a terminating decimal as written, else `numerator/denominator`; booleans
    # `true`/`false`; NULL when nothing was measured.
    Column("value", Text),
    Column("numerator", Text),
    Column("denominator", Text),
    Column("rows_counted", Text),
    Column("expectation", Text),
    Column("diagnostic_code", String(64)),
)

Step = Callable[[Connection], None]


def _create_tables(connection: Connection) -> None:
    for table in (runs, rule_results):
        table.create(connection)


def _index_runs_by_contract(connection: Connection) -> None:
    # Plain DDL (the same on SQLite, PostgreSQL and DuckDB): an `Index` object would join the
    # `runs` table and be created again by step 1 on a fresh store.
    connection.exec_driver_sql("CREATE INDEX packata_runs_by_contract "
                               "ON packata_runs (contract_id, observed_at)")


#: Forward migrations: step i takes a store from version i to i + 1. Never edit a released
#: step; append one.
MIGRATIONS: tuple[Step, ...] = (_create_tables, _index_runs_by_contract)
VERSION = len(MIGRATIONS)


def stored_version(connection: Connection) -> int:
    """0 for an empty store (no version table yet)."""
    if not connection.dialect.has_table(connection, version_table.name):
        return 0
    found = connection.execute(select(version_table.c.version)).scalar()
    return int(found or 0)


def migrate(connection: Connection, store: str, *, to: int = VERSION) -> int:
    """Brings the store up to `to` inside the caller's transaction; a store written by a
    newer packata-sql is refused (its tables may mean something this one does not know)."""
    current = stored_version(connection)
    if current > VERSION:
        raise StoreUnavailable(f"the history store {store} is at schema version {current}, "
                               f"newer than this packata-sql knows ({VERSION}): upgrade "
                               "packata-sql to use it")
    if current == 0:
        version_table.create(connection)
        connection.execute(version_table.insert().values(version=0))
    for step in MIGRATIONS[current:to]:
        step(connection)
    if to > current:
        connection.execute(version_table.update().values(version=to))
    return current

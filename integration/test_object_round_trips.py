"""What an object costs on PostgreSQL (issue 26.2): the run's column facts come from one
catalog read, and each object's scan travels with its guards in one round trip, inside the
run's shared read-only transaction. Counted on the real server from libpq's protocol trace (a
count, not a time), and the shared transaction shown to leave no statement's effects to the
next: a statement that wrote, changed a setting or failed ends its rules, and the objects
after it are measured as if it had never run."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from integration.conftest import READER, Server
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report, Status
from packata_sql.run.run_state import Progress
from packata_sql.run.runner import RunOptions, run

SCHEMA = "packata_trips"
#: The target: at most this many round trips per object (docs/engines.md).
PER_OBJECT = 3


@pytest.fixture
def schema(postgres: Server) -> Iterator[Server]:
    postgres.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE", f"CREATE SCHEMA {SCHEMA}",
                     f"GRANT USAGE ON SCHEMA {SCHEMA} TO {READER}")
    try:
        yield postgres
    finally:
        postgres.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


def _tables(server: Server, *names: str) -> None:
    server.execute(*(f"CREATE TABLE {SCHEMA}.{name} AS SELECT i AS id, "
                     "CASE WHEN i % 2 = 0 THEN 'active' ELSE 'inactive' END AS status "
                     "FROM generate_series(1, 10) AS s(i)" for name in names),
                   f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {READER}")


def _contract(tmp_path: Path, names: list[str], typed: bool = True) -> Path:
    """A few rules on each object: row count, a key, nulls, valid values, and (typed) the
    properties' logical types, which the catalog answers."""
    schema = []
    for name in names:
        properties: list[dict[str, Any]] = [
            {"name": "id", "quality": [{"metric": "duplicateValues", "mustBe": 0}]},
            {"name": "status", "quality": [
                {"metric": "nullValues", "mustBe": 0},
                {"metric": "invalidValues", "arguments": {"validValues": ["active", "inactive"]},
                 "mustBe": 0}]}]
        if typed:
            properties[0]["logicalType"] = "integer"
            properties[1]["logicalType"] = "string"
        schema.append({"name": name, "quality": [{"metric": "rowCount", "mustBe": 10}],
                       **({"properties": properties} if typed else {})})
    path = tmp_path / f"c{len(names)}.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v3.1.0", "kind": "DataContract", "id": "c",
                                    "version": "1", "status": "active", "schema": schema}),
                    encoding="utf-8")
    return path


def _check(server: Server, contract: Path) -> Report:
    loaded = load_odcs(str(contract))
    compiled = compile_contract(loaded, get_dialect("postgres"), parameters={})
    endpoint = dataclasses.replace(server.reader, schema=(SCHEMA,))
    return run(loaded, compiled, endpoint, RunOptions(timeout_s=30))


def round_trips(trace: str) -> int:
    """Times the client sent and then waited for the server, in a libpq trace: each switch
    from a client line (`F`) to a server line (`B`)."""
    count, last = 0, ""
    for line in trace.splitlines():
        direction = line.split("\t", 1)[0]
        if direction == "B" and last == "F":
            count += 1
        if direction in ("F", "B"):
            last = direction
    return count


def _traced(server: Server, contract: Path, tmp_path: Path,
            monkeypatch: pytest.MonkeyPatch) -> tuple[Report, int]:
    """The report and the round trips of every connection the run opened."""
    import psycopg

    connect = psycopg.connect
    traces: list[Any] = []

    def traced(*args: Any, **kwargs: Any) -> Any:
        connection = connect(*args, **kwargs)
        handle = (tmp_path / f"trace-{len(traces)}.log").open("w")
        traces.append(handle)
        connection.pgconn.trace(handle.fileno())
        connection.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
        return connection

    monkeypatch.setattr(psycopg, "connect", traced)
    report = _check(server, contract)
    monkeypatch.setattr(psycopg, "connect", connect)
    total = 0
    for handle in traces:
        handle.close()
        total += round_trips(Path(handle.name).read_text(encoding="utf-8"))
    return report, total


def test_an_object_costs_at_most_three_round_trips(schema: Server, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch):
    names = [f"t_{i:02d}" for i in range(20)]
    _tables(schema, *names)
    small, few = _traced(schema, _contract(tmp_path, names[:10]), tmp_path, monkeypatch)
    large, many = _traced(schema, _contract(tmp_path, names), tmp_path, monkeypatch)
    assert {r.status for r in (*small.results, *large.results)} == {Status.PASSED}
    assert len(large.results) == 20 * 6
    per_object = (many - few) / 10
    print(f"round trips: {few} for 10 objects, {many} for 20")
    assert per_object <= PER_OBJECT, (few, many)
    # The run's own cost (connect, login inspection, the read ahead) included.
    assert many / 20 <= PER_OBJECT, many


VIEWS = {
    # A large object written inside the read-only transaction: refused, and undone.
    "v_write": "SELECT pg_catalog.lo_from_bytea(0, 'x'::bytea) AS x",
    # A setting changed for the rest of the transaction: refused, and undone.
    "v_setting": "SELECT pg_catalog.set_config('search_path', 'pg_temp', true) AS x",
    # Its own time limit lifted: refused (the limit is compared on its own), and undone.
    "v_timeout": "SELECT pg_catalog.set_config('statement_timeout', '0', true) AS x",
    # A statement that fails (division by zero) aborts the transaction.
    "v_error": "SELECT 1 / (pg_catalog.random() * 0)::int AS x",
}


def test_a_statement_that_wrote_changed_or_failed_leaves_the_next_objects_clean(
        schema: Server, tmp_path: Path):
    order = ["v_write", "t_1", "v_setting", "t_2", "v_timeout", "t_4", "v_error", "t_3"]
    schema.execute(*(f"CREATE VIEW {SCHEMA}.{name} AS {view}" for name, view in VIEWS.items()))
    _tables(schema, *(name for name in order if name not in VIEWS))
    objects = schema.execute("SELECT count(*) FROM pg_catalog.pg_largeobject_metadata")[0][0]
    report = _check(schema, _contract(tmp_path, order, typed=False))
    found = {r.key.split("]")[0].removeprefix("schema["): (
        r.status, r.diagnostic.provider_code if r.diagnostic else None)
        for r in report.results}
    assert found == {"v_write": (Status.ERROR, "wrote-in-read-only-transaction"),
                     "t_1": (Status.PASSED, None),
                     "v_setting": (Status.ERROR, "setting-changed"),
                     "t_2": (Status.PASSED, None),
                     "v_timeout": (Status.ERROR, "setting-changed"),
                     "t_4": (Status.PASSED, None),
                     "v_error": (Status.ERROR, "22012"),
                     "t_3": (Status.PASSED, None)}
    assert schema.execute("SELECT count(*) FROM pg_catalog.pg_largeobject_metadata")[0][0] \
        == objects


def test_a_measured_object_holds_no_lock_while_the_run_goes_on(schema: Server, tmp_path: Path):
    """The shared transaction would keep every table it read locked until the run ends
    (blocking a DBA's ALTER or TRUNCATE); rolling back to each statement's savepoint releases
    what the statement took. Asked from another connection after each object is done."""
    names = ["t_1", "t_2", "t_3"]
    _tables(schema, *names)
    held: list[int] = []
    locks = ("SELECT count(*) FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_class c ON "
             f"c.oid = l.relation WHERE c.relnamespace = '{SCHEMA}'::regnamespace "
             "AND l.pid <> pg_catalog.pg_backend_pid()")

    def done(step: Progress) -> None:
        if step.step == "done":
            held.append(schema.execute(locks)[0][0])

    loaded = load_odcs(str(_contract(tmp_path, names)))
    compiled = compile_contract(loaded, get_dialect("postgres"), parameters={})
    endpoint = dataclasses.replace(schema.reader, schema=(SCHEMA,))
    report = run(loaded, compiled, endpoint, RunOptions(timeout_s=30, progress=done))
    assert {r.status for r in report.results} == {Status.PASSED}
    assert held == [0, 0, 0]

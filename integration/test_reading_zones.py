"""docs/semantics.md 1.1 on the five live engines: a timestamp without a zone is read in the
zone its property declares (`logicalTypeOptions.defaultTimezone`), else the one the run's
server declares (its `customProperties` `defaultTimezone`), else the contract's, else UTC; the
report says which (the latency's expectation, JSON `settings.time_zone`/`time_zone_from`). An
SLA latency and date/timestamp bounds both read it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from integration.conftest import table_on
from packata_sql import api
from packata_sql.report import Report
from packata_sql.sessions.endpoint import Endpoint

TABLE = "reading_zones"
WALL = {"duckdb": "TIMESTAMP", "sqlite": "TIMESTAMP", "postgres": "timestamp",
        "mysql": "DATETIME", "spark": "TIMESTAMP_NTZ"}
CELL = {"spark": "TIMESTAMP_NTZ'2024-01-01 00:00:00'"}
#: The cells' wall clock 2024-01-01 00:00 is this instant in each zone: Paris 23:00Z the day
#: before, New York 05:00Z; the run observes 00:00Z.
OBSERVED = datetime(2024, 1, 1, tzinfo=UTC)
#: zone → (minimum violations, maximum violations, latency age in seconds), with both bounds
#: at 2024-01-01T00:00:00Z.
READ_AS = {"UTC": (0, 0, 0), "Europe/Paris": (1, 0, 3600), "America/New_York": (0, 1, -18000)}
SERVER_TYPES = {"mysql": "mysql", "postgres": "postgres", "duckdb": "duckdb",
                "sqlite": "sqlite", "spark": "spark"}


def statements(engine: str, table: str) -> list[str]:
    using = " USING parquet" if engine == "spark" else ""
    cell = CELL.get(engine, "'2024-01-01 00:00:00'")
    return [f"CREATE TABLE {table} (a {WALL[engine]}, b {WALL[engine]}){using}",
            f"INSERT INTO {table} VALUES ({cell}, {cell})"]


def contract(tmp_path: Path, engine: str, *, server_zone: str | None,
             contract_zone: str | None) -> Path:
    bounds = {"minimum": "2024-01-01T00:00:00Z", "maximum": "2024-01-01T00:00:00Z"}
    server: dict[str, Any] = {"server": "warehouse", "type": SERVER_TYPES[engine]}
    if server_zone:
        server["customProperties"] = [{"property": "defaultTimezone", "value": server_zone}]
    document: dict[str, Any] = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "z", "version": "1",
        "status": "active", "servers": [server],
        "schema": [{"name": TABLE, "properties": [
            {"name": "a", "logicalType": "timestamp", "logicalTypeOptions": bounds},
            # the property's own zone wins over the server's and the contract's
            {"name": "b", "logicalType": "timestamp",
             "logicalTypeOptions": {**bounds, "defaultTimezone": "UTC"}}]}],
        "slaProperties": [{"property": "latency", "value": 1, "unit": "d",
                           "element": f"{TABLE}.a"}]}
    if contract_zone:
        document["customProperties"] = [{"property": "defaultTimezone", "value": contract_zone}]
    path = tmp_path / "zones.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(params=["duckdb", "sqlite", "postgres", "mysql", "spark"])
def endpoint(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Endpoint]:
    yield from table_on(request, tmp_path, request.param, TABLE,
                        lambda name: statements(request.param, name))


def measured(report: Report, name: str) -> tuple[Any, Any]:
    results = {r.key: r for r in report.results}
    return tuple(results[f"schema[{TABLE}].properties[{name}].logicalTypeOptions.{option}"].value
                 for option in ("minimum", "maximum"))  # type: ignore[return-value]


@pytest.mark.parametrize(("server_zone", "contract_zone", "zone", "said"), [
    ("Europe/Paris", "America/New_York", "Europe/Paris", "server warehouse"),
    (None, "America/New_York", "America/New_York", "contract"),
    (None, None, "UTC", "default"),
])
def test_the_server_then_the_contract_then_utc(endpoint, tmp_path, server_zone, contract_zone,
                                                zone, said):
    path = contract(tmp_path, endpoint.engine, server_zone=server_zone,
                    contract_zone=contract_zone)
    report = api.check(api.load(path), endpoint, observed_at=OBSERVED)
    low, high, age = READ_AS[zone]
    assert measured(report, "a") == (low, high)
    assert measured(report, "b") == (0, 0)  # its property says UTC
    latency = next(r for r in report.results if r.key == "slaProperties[0]")
    assert latency.value == Fraction(age)
    declared = {"server warehouse": ", as server 'warehouse' declares",
                "contract": ", as the contract declares", "default": ""}[said]
    assert latency.expectation == f"no older than 1 d (values without a zone read in {zone}{declared})"
    assert (report.settings["time_zone"], report.settings["time_zone_from"]) == (zone, said)


def test_a_zone_that_is_no_iana_name_is_a_finding_and_not_used(endpoint, tmp_path):
    path = contract(tmp_path, endpoint.engine, server_zone="Mars/Olympus",
                    contract_zone="America/New_York")
    loaded = api.load(path)
    assert [(f.code, f.source_path) for f in loaded.findings if f.code == "unknown-time-zone"] \
        == [("unknown-time-zone", "servers[0].customProperties[0]")]
    report = api.check(loaded, endpoint, observed_at=OBSERVED)
    assert measured(report, "a") == READ_AS["America/New_York"][:2]

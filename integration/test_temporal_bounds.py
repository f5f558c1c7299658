"""docs/semantics.md 3.2 on the five live engines: a logicalTypeOptions bound (minimum,
maximum, exclusiveMinimum, exclusiveMaximum) written as an ISO date or timestamp compares
instants. On a column of instants the bound is that instant; on a zone-less column the cell's
wall clock, read in the property's defaultTimezone (else UTC), is compared with it; a date
column compares dates. A bound its property cannot hold (an instant on a date, a date on a
string) is a `bound-type-mismatch` finding and its rule is skipped; one only the live column
type refuses (a time of day on an undeclared DATE column, a date on an undeclared text column)
is `inconclusive` `type-mismatch`. The bounds are driver parameters, never SQL text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from integration.conftest import table_on
from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.endpoint import Endpoint

TABLE = "temporal_bounds"
#: wall/paris: zone-less timestamps; zoned: instants; day, noted: dates; label: text.
TYPES = {
    "duckdb": ("TIMESTAMP", "TIMESTAMPTZ", "DATE", "VARCHAR"),
    "sqlite": ("TIMESTAMP", "TIMESTAMP", "DATE", "TEXT"),
    "postgres": ("timestamp", "timestamptz", "date", "text"),
    "mysql": ("DATETIME", "TIMESTAMP NULL", "DATE", "VARCHAR(40)"),
    "spark": ("TIMESTAMP_NTZ", "TIMESTAMP", "DATE", "STRING"),
}
#: Row 1 is 2024-01-01 00:00 UTC in every temporal column, row 2 2024-06-01 00:00 UTC (Paris
#: is UTC+1 in winter, UTC+2 in summer).
ROWS = {
    "duckdb": ["'2024-01-01 00:00:00', '2024-01-01 01:00:00', '2024-01-01 02:00:00+02:00', "
               "'2024-01-01', '2024-01-01', '2024-01-01T00:00:00Z'",
               "'2024-06-01 00:00:00', '2024-06-01 02:00:00', '2024-06-01 00:00:00+00:00', "
               "'2024-06-01', '2024-06-01', 'x'"],
}
ROWS["postgres"] = ROWS["sqlite"] = ROWS["duckdb"]
ROWS["mysql"] = [r.replace("'2024-01-01 02:00:00+02:00'", "'2024-01-01 00:00:00'")
                 .replace("'2024-06-01 00:00:00+00:00'", "'2024-06-01 00:00:00'")
                 for r in ROWS["duckdb"]]
ROWS["spark"] = [
    "TIMESTAMP_NTZ'2024-01-01 00:00:00', TIMESTAMP_NTZ'2024-01-01 01:00:00', "
    "TIMESTAMP'2024-01-01 02:00:00+02:00', DATE'2024-01-01', DATE'2024-01-01', "
    "'2024-01-01T00:00:00Z'",
    "TIMESTAMP_NTZ'2024-06-01 00:00:00', TIMESTAMP_NTZ'2024-06-01 02:00:00', "
    "TIMESTAMP'2024-06-01 00:00:00+00:00', DATE'2024-06-01', DATE'2024-06-01', 'x'"]

#: property → (logicalType, defaultTimezone, {option: bound}), and the violations each bound
#: counts (None: the rule does not run, see FINDINGS and MISMATCHED).
BOUNDS: dict[str, tuple[str | None, str | None, dict[str, tuple[str, int | None]]]] = {
    "wall": ("timestamp", None, {
        "minimum": ("2024-01-01T01:00:00+01:00", 0),   # row 1 is that instant
        "exclusiveMinimum": ("2024-01-01T01:00:00+01:00", 1),
        "maximum": ("2024-06-01T00:00:00Z", 0),
        "exclusiveMaximum": ("2024-06-01", 1)}),       # midnight, read in UTC
    "paris": ("timestamp", "Europe/Paris", {
        "minimum": ("2024-01-01T00:00:00Z", 0),
        "exclusiveMinimum": ("2024-01-01T00:00:00Z", 1),
        # 02:00 in Paris on 1 June is 00:00Z: read in UTC it would be a violation
        "maximum": ("2024-06-01T00:00:00Z", 0),
        "exclusiveMaximum": ("2024-06-01T02:00:00", 1)}),  # a Paris wall clock
    "zoned": ("timestamp", None, {
        "minimum": ("2024-01-01T00:00:00Z", 0),
        "exclusiveMinimum": ("2024-01-01T03:00:00+03:00", 1),
        "maximum": ("2024-06-01", 0),
        "exclusiveMaximum": ("2024-06-01T02:00:00+02:00", 1)}),
    "day": ("date", None, {
        "minimum": ("2024-01-01", 0),
        "maximum": ("2024-05-31", 1),
        "exclusiveMaximum": ("2024-01-01T00:00:00Z", None)}),  # an instant on a date
    "noted": (None, None, {"minimum": ("2024-01-01T10:00:00", None)}),  # live type: a date
    "label": (None, None, {"minimum": ("2024-01-01", None)}),  # live type: text
    "named": ("string", None, {"minimum": ("2024-01-01", None)}),  # declared text
}


def key(name: str, option: str) -> str:
    return f"schema[{TABLE}].properties[{name}].logicalTypeOptions.{option}"


def statements(engine: str, table: str) -> list[str]:
    wall, zoned, day, text = TYPES[engine]
    using = " USING parquet" if engine == "spark" else ""
    return [f"CREATE TABLE {table} (wall {wall}, paris {wall}, zoned {zoned}, day {day}, "
            f"noted {day}, label {text}){using}",
            f"INSERT INTO {table} VALUES " + ", ".join(f"({r})" for r in ROWS[engine])]


def contract(tmp_path: Path) -> Path:
    properties: list[dict[str, Any]] = []
    for name, (logical, zone, bounds) in BOUNDS.items():
        options: dict[str, object] = {o: bound for o, (bound, _) in bounds.items()}
        if zone:
            options["defaultTimezone"] = zone
        physical = {"physicalName": "label"} if name == "named" else {}
        properties.append({"name": name, **physical,
                           **({"logicalType": logical} if logical else {}),
                           "logicalTypeOptions": options})
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "b", "version": "1",
                "status": "active", "schema": [{"name": TABLE, "properties": properties}]}
    path = tmp_path / "bounds.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def check(endpoint: Endpoint, path: Path, *, sql: bool = False,
          categories: tuple[Category, ...] = (Category.CONSTRAINT,)) -> Report:
    loaded = load_odcs(str(path))
    compiled = compile_contract(loaded, get_dialect(endpoint.engine), prefix=endpoint.schema,
                                categories=categories)
    return run(loaded, compiled, endpoint, RunOptions(show_sql=sql))


@pytest.fixture(params=["duckdb", "sqlite", "postgres", "mysql", "spark"])
def endpoint(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Endpoint]:
    yield from table_on(request, tmp_path, request.param, TABLE,
                        lambda name: statements(request.param, name))


def test_temporal_bounds_compare_instants(endpoint, tmp_path):
    report = check(endpoint, contract(tmp_path), sql=True)
    results = {r.key: r for r in report.results}
    measured = {key(name, option): violations
                for name, (_, _, bounds) in BOUNDS.items()
                for option, (_, violations) in bounds.items() if violations is not None}
    assert {k: (results[k].status.value, results[k].value) for k in measured} == {
        k: ("failed" if v else "passed", v) for k, v in measured.items()}
    # Bound through the driver: no bound's text reaches the statement.
    statement = results[key("wall", "minimum")].sql or ""
    assert "2024" not in statement and "packata-param" not in statement
    skipped = {(f.rule_key, f.code) for f in report.findings}
    for name, option in (("day", "exclusiveMaximum"), ("named", "minimum")):
        assert results[key(name, option)].status.value == "skipped"
        assert (key(name, option), "bound-type-mismatch") in skipped
    live = {}
    for name in ("noted", "label"):
        result = results[key(name, "minimum")]
        live[name] = (result.status.value, result.diagnostic.code if result.diagnostic else None)
    if endpoint.engine == "sqlite":  # untyped: the first date is before 10:00, 'x' no date
        assert {n: results[key(n, "minimum")].value for n in live} == {"noted": 1, "label": 1}
    else:
        assert live == {"noted": ("inconclusive", "type-mismatch"),
                        "label": ("inconclusive", "type-mismatch")}


NESTED = "temporal_nested"
#: A struct holding 2024-01-01 00:00 UTC as an instant, as a Paris wall clock and as a date.
STRUCTS = {
    "duckdb": ("CREATE TABLE {t} (s STRUCT(zoned TIMESTAMPTZ, paris TIMESTAMP, day DATE))",
               "INSERT INTO {t} VALUES ({{'zoned': TIMESTAMPTZ '2024-01-01 02:00:00+02:00', "
               "'paris': TIMESTAMP '2024-01-01 01:00:00', 'day': DATE '2024-01-01'}})"),
    "spark": ("CREATE TABLE {t} (s STRUCT<zoned: TIMESTAMP, paris: TIMESTAMP_NTZ, day: DATE>) "
              "USING parquet",
              "INSERT INTO {t} SELECT named_struct('zoned', "
              "TIMESTAMP'2024-01-01 02:00:00+02:00', 'paris', "
              "TIMESTAMP_NTZ'2024-01-01 01:00:00', 'day', DATE'2024-01-01')"),
}


@pytest.fixture(params=["duckdb", "spark"])
def struct_endpoint(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Endpoint]:
    yield from table_on(request, tmp_path, request.param, NESTED,
                        lambda name: [s.format(t=name) for s in STRUCTS[request.param]])


def test_struct_fields_compare_as_their_own_type(struct_endpoint, tmp_path):
    """The field's type, not its struct column's, decides: an instant field compares instants,
    a zone-less one its wall clock in the field's zone, a date field dates."""
    def field(name: str, logical: str, bounds: dict[str, str], **options: str) -> dict[str, Any]:
        return {"name": name, "logicalType": logical,
                "logicalTypeOptions": {**bounds, **options},
                "quality": [{"id": f"{name}-member", "metric": "invalidValues",
                             "arguments": {"validValues": ["2024-01-01T00:00:00Z"]},
                             "mustBe": 0 if logical == "timestamp" else 1}]}

    exact = {"minimum": "2024-01-01T00:00:00Z", "maximum": "2024-01-01T01:00:00+01:00"}
    strict = {"exclusiveMinimum": "2024-01-01T00:00:00Z"}
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "n", "version": "1",
                "status": "active", "schema": [{"name": NESTED, "properties": [
                    {"name": "s", "logicalType": "object", "properties": [
                        field("zoned", "timestamp", {**exact, **strict}),
                        field("paris", "timestamp", {**exact, **strict},
                              defaultTimezone="Europe/Paris"),
                        field("day", "date", {"minimum": "2024-01-01", "maximum": "2024-01-01",
                                              "exclusiveMinimum": "2023-12-31"}),
                    ]}]}]}
    path = tmp_path / "nested.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    report = check(struct_endpoint, path, categories=(Category.CONSTRAINT, Category.QUALITY))
    got = {r.key: (r.status.value, r.value) for r in report.results
           if r.key.endswith(("imum", "member"))}
    prefix = f"schema[{NESTED}].properties[s].properties"
    expected = {}
    for name in ("zoned", "paris", "day"):
        for option in ("minimum", "maximum", "exclusiveMinimum"):
            violated = 1 if option == "exclusiveMinimum" and name != "day" else 0
            expected[f"{prefix}[{name}].logicalTypeOptions.{option}"] = (
                "failed" if violated else "passed", violated)
        # an instant member: equal on both timestamps, never on a date (a warning)
        expected[f"{name}-member"] = ("passed", 0 if name != "day" else 1)
    assert got == expected

"""docs/semantics.md 3.2 on the live engines with typed columns: a timestamp member written with
an offset (`Z`, `+02:00`) is an instant. It equals a cell of a column of instants at that
instant, and a zone-less cell whose wall clock, read in the property's defaultTimezone (else
UTC), is that instant; on a text column it stays the text it is. A member the column cannot
hold (an instant on a date column) stays a member-type-mismatch-style warning and matches
nothing."""

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

TABLE = "offset_members"
TYPES = {
    "duckdb": ("TIMESTAMP", "TIMESTAMPTZ", "VARCHAR", "DATE"),
    "postgres": ("timestamp", "timestamptz", "text", "date"),
    "mysql": ("DATETIME", "TIMESTAMP NULL", "VARCHAR(40)", "DATE"),
    "spark": ("TIMESTAMP_NTZ", "TIMESTAMP", "STRING", "DATE"),
}
#: 2024-01-01 00:00 UTC in each column; the second row is months away from it.
ROWS = {
    "duckdb": ["'2024-01-01 00:00:00', '2024-01-01 01:00:00', '2024-01-01 02:00:00+02:00', "
               "'2024-01-01T00:00:00Z', '2024-01-01'",
               "'2024-06-01 00:00:00', '2024-06-01 00:00:00', '2024-06-01 00:00:00+00:00', "
               "'x', '2024-06-01'"],
}
ROWS["postgres"] = ROWS["duckdb"]
ROWS["mysql"] = [r.replace("'2024-01-01 02:00:00+02:00'", "'2024-01-01 00:00:00'")
                 .replace("'2024-06-01 00:00:00+00:00'", "'2024-06-01 00:00:00'")
                 for r in ROWS["duckdb"]]
ROWS["spark"] = [
    "TIMESTAMP_NTZ'2024-01-01 00:00:00', TIMESTAMP_NTZ'2024-01-01 01:00:00', "
    "TIMESTAMP'2024-01-01 02:00:00+02:00', '2024-01-01T00:00:00Z', DATE'2024-01-01'",
    "TIMESTAMP_NTZ'2024-06-01 00:00:00', TIMESTAMP_NTZ'2024-06-01 00:00:00', "
    "TIMESTAMP'2024-06-01 00:00:00+00:00', 'x', DATE'2024-06-01'"]
MEMBERS = ["2024-01-01T00:00:00Z", "2024-01-01T02:00:00+02:00", "2023-12-31T19:00:00-05:00"]


def statements(engine: str, table: str) -> list[str]:
    wall, zoned, text, day = TYPES[engine]
    using = " USING parquet" if engine == "spark" else ""
    return [f"CREATE TABLE {table} (wall {wall}, paris {wall}, zoned {zoned}, label {text}, "
            f"day {day}){using}",
            f"INSERT INTO {table} VALUES " + ", ".join(f"({r})" for r in ROWS[engine])]


def contract(tmp_path: Path) -> Path:
    def prop(name: str, logical: str, members: list[str], **options: Any) -> dict[str, Any]:
        return {"name": name, "logicalType": logical, **options, "quality": [
            {"id": name, "metric": "invalidValues", "arguments": {"validValues": members},
             "mustBe": 1}]}

    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "o", "version": "1",
                "status": "active", "schema": [{"name": TABLE, "properties": [
                    prop("wall", "timestamp", MEMBERS),
                    prop("paris", "timestamp", MEMBERS,
                         logicalTypeOptions={"defaultTimezone": "Europe/Paris"}),
                    prop("zoned", "timestamp", MEMBERS),
                    # text: the member is its text, so only the identical text matches
                    prop("label", "string", ["2024-01-01T00:00:00Z", "2024-01-01T02:00:00+02:00"]),
                    # a date holds no instant: the member matches nothing (both rows invalid)
                    {"name": "day", "logicalType": "date", "quality": [
                        {"id": "day", "metric": "invalidValues",
                         "arguments": {"validValues": ["2024-01-01T00:00:00Z"]}, "mustBe": 2}]},
                ]}]}
    path = tmp_path / "offsets.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def check(endpoint: Endpoint, path: Path) -> Report:
    loaded = load_odcs(str(path))
    compiled = compile_contract(loaded, get_dialect(endpoint.engine), prefix=endpoint.schema,
                                categories=[Category.QUALITY])
    return run(loaded, compiled, endpoint, RunOptions())


@pytest.fixture(params=["duckdb", "postgres", "mysql", "spark"])
def endpoint(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Endpoint]:
    yield from table_on(request, tmp_path, request.param, TABLE,
                        lambda name: statements(request.param, name))


def test_offset_members_compare_instants(endpoint, tmp_path):
    report = check(endpoint, contract(tmp_path))
    assert {r.key: (r.status.value, r.value) for r in report.results} == {
        "wall": ("passed", 1), "paris": ("passed", 1), "zoned": ("passed", 1),
        "label": ("passed", 1), "day": ("passed", 2)}
    warned = {(f.rule_key, f.code) for f in report.findings}
    assert ("day", "member-not-representable") in warned

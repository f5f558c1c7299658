"""How a missing name is read again (issue 10.3): the unquoted reading per dialect, and the
closest existing name for the diagnostic. Executed end to end in integration/test_engine_names.py."""

from __future__ import annotations

import pytest

from packata_sql.dialects import get_dialect
from packata_sql.run.names import find_column, unquoted_reading
from packata_sql.spelling import closest


@pytest.mark.parametrize("engine,reading", [
    ("postgres", "air_quality"), ("snowflake", "AIR_QUALITY"), ("duckdb", None),
    ("sqlite", None), ("mysql", None), ("sqlserver", None), ("bigquery", None),
])
def test_unquoted_reading_per_dialect(engine: str, reading: str | None) -> None:
    assert unquoted_reading(get_dialect(engine), "Air_Quality", exact=False) == reading


def test_a_physical_name_has_no_other_reading() -> None:
    assert unquoted_reading(get_dialect("postgres"), "Air_Quality", exact=True) is None
    assert unquoted_reading(get_dialect("postgres"), "already_lower", exact=False) is None


def test_closest_ignores_case_and_refuses_far_names() -> None:
    names = ["air_quality", "stations", "Readings"]
    assert closest("Air_Qualty", names) == "air_quality"
    assert closest("READING", names) == "Readings"
    assert closest("zzz", names) is None
    assert closest("x", []) is None


def test_find_column_reads_unquoted_only_without_a_physical_name() -> None:
    columns = {"station_id": None, "pm25": None}
    postgres = get_dialect("postgres")
    assert find_column(postgres, columns, "Station_ID", exact=False) == "station_id"
    assert find_column(postgres, columns, "Station_ID", exact=True) is None
    assert find_column(get_dialect("duckdb"), {"Station_ID": None}, "station_id",
                       exact=True) == "Station_ID"

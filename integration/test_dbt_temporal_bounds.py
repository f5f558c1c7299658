"""docs/semantics.md 3.2 (date and timestamp bounds) in the dbt gate, through real dbt: a
contract's bound is the contract's value, not the run's, and the gate compares it as `check`
does: a date on a DATE column, the wall clock in the declared zone on a zone-less timestamp,
the instant on a column of instants (whatever the zone a value without one is read in). Good
rows pass the model; a row past a bound fails it, counted as `check` counts it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .dbt_harness import Project, gated_model

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: urn:example:dbt-bounds
version: 1.0.0
status: active
schema:
  - name: bounds
    physicalName: bounded
    properties:
      - {name: id, logicalType: integer}
      - name: day
        logicalType: date
        logicalTypeOptions: {maximum: "2024-12-31"}
      - name: at
        logicalType: timestamp
        logicalTypeOptions: {minimum: "2024-01-01T00:00:00"}
      - name: at_tz
        logicalType: timestamp
        logicalTypeOptions: {minimum: "2024-01-01T00:00:00Z", defaultTimezone: Europe/Zurich}
"""
#: The second row is past each bound when the defect is on: a day in 2025, a wall clock an
#: hour before 2024, an instant half an hour before. The good rows' instant (00:30 UTC) is
#: after the bound's instant yet before its wall clock in Zurich (01:00): only an instant
#: comparison passes it.
MODEL = """\
{% set bad = env_var('PACKATA_DBT_BOUNDS_BAD', 'false') == 'true' %}
{% set tz = 'timestamptz' if target.type == 'postgres' else 'TIMESTAMPTZ' %}
select 1 as id, cast('2024-06-01' as date) as day,
       cast('2024-03-01 10:00:00' as timestamp) as at,
       cast('2024-01-01 00:30:00+00:00' as {{ tz }}) as at_tz
union all
select 2, cast('{{ "2025-01-05" if bad else "2024-12-31" }}' as date),
       cast('{{ "2023-12-31 23:00:00" if bad else "2024-01-01 00:00:00" }}' as timestamp),
       cast('{{ "2023-12-31 23:30:00+00:00" if bad else "2024-01-01 00:30:00+00:00" }}'
            as {{ tz }})
"""
OPTIONS = "schema[bounds].properties[{}].logicalTypeOptions.{}"
KEYS = (OPTIONS.format("day", "maximum"), OPTIONS.format("at", "minimum"),
        OPTIONS.format("at_tz", "minimum"))


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
def project(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    yield from gated_model(request, tmp_path_factory, "bounds.odcs.yaml", CONTRACT, "bounded",
                           MODEL)


def test_date_and_timestamp_bounds_gate_the_model(project: Project) -> None:
    good = project.invoke("--select", "bounded")
    assert {k: v[:2] for k, v in good.rules("bounded").items() if k in KEYS} == {
        key: ("passed", [0, 1]) for key in KEYS}, good.rules("bounded")
    assert good.statuses == {"bounded": "success"}, good.messages

    bad = project.invoke("--select", "bounded", defects=("bounds_bad",))
    assert bad.statuses == {"bounded": "error"}  # error-severity failures fail it
    assert {k: v[:2] for k, v in bad.rules("bounded").items() if k in KEYS} == {
        key: ("failed", [1, 1]) for key in KEYS}

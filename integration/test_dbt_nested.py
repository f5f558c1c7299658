"""docs/semantics.md 3.5 (nested fields) in the dbt gate, through real dbt: a model with a
STRUCT column (DuckDB) or a jsonb document (PostgreSQL), gated by a contract whose rules sit
on fields inside it (a library metric, `required` and a numeric bound), passes on good rows and
fails the model when a field breaks them, with the values worked by hand from the rows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .dbt_harness import Project, gated_model

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: urn:example:dbt-nested
version: 1.0.0
status: active
schema:
  - name: nested
    physicalName: nested_orders
    properties:
      - {name: id, logicalType: integer}
      - name: customer
        logicalType: object
        properties:
          - name: city
            logicalType: string
            required: true
            quality:
              - {id: city-nulls, metric: nullValues, mustBe: 0}
          - name: zip
            logicalType: integer
            logicalTypeOptions: {minimum: 1000}
"""
#: The second row's customer has no city and a zip below the minimum when the defect is on.
MODEL = """\
{% set bad = env_var('PACKATA_DBT_NESTED_BAD', 'false') == 'true' %}
{% if target.type == 'duckdb' %}
select 1 as id, {'city': 'Bern', 'zip': 3000} as customer
union all
select 2, {'city': {{ "cast(null as varchar)" if bad else "'Zug'" }},
           'zip': {{ 999 if bad else 6300 }}}
{% else %}
select 1 as id, '{"city": "Bern", "zip": 3000}'::jsonb as customer
union all
select 2, {{ "'{\\"zip\\": 999}'" if bad else "'{\\"city\\": \\"Zug\\", \\"zip\\": 6300}'" }}::jsonb
{% endif %}
"""
PREFIX = "schema[nested].properties[customer].properties"
KEYS = ("city-nulls", f"{PREFIX}[city].required", f"{PREFIX}[zip].logicalTypeOptions.minimum")


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
def project(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    yield from gated_model(request, tmp_path_factory, "nested.odcs.yaml", CONTRACT, "nested_orders",
                           MODEL)


def test_nested_rules_gate_the_model(project: Project) -> None:
    good = project.invoke("--select", "nested_orders")
    assert good.statuses == {"nested_orders": "success"}, good.messages
    assert {k: v[:2] for k, v in good.rules("nested_orders").items() if k in KEYS} == {
        key: ("passed", [0, 1]) for key in KEYS}

    bad = project.invoke("--select", "nested_orders", defects=("nested_bad",))
    assert bad.statuses == {"nested_orders": "error"}  # error-severity failures fail it
    # On PostgreSQL the city is absent from the document, on DuckDB a NULL field: both NULL.
    assert {k: v[:2] for k, v in bad.rules("nested_orders").items() if k in KEYS} == {
        key: ("failed", [1, 1]) for key in KEYS}

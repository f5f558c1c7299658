"""Issue 14.5 on the live servers: a failed rule's inspect_sql lists the offending keys when run
by hand, and `--samples` folds a few of them into one cell through the read-only session."""

from __future__ import annotations

from pathlib import Path

import yaml

from packata_sql.compiler import compile_contract
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.report import Status
from packata_sql.runner import RunOptions, run

TABLE = "triage_people"


def test_inspect_sql_and_samples_on_the_server(server, tables, tmp_path: Path) -> None:
    tables.append(TABLE)
    server.execute(f"DROP TABLE IF EXISTS {TABLE}",
                   f"CREATE TABLE {TABLE} (name VARCHAR(20), email VARCHAR(40))",
                   f"INSERT INTO {TABLE} VALUES ('ann', 'a@x'), ('bob', NULL), ('bob', 'odd''s')")
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "t", "version": "1",
                "status": "active", "schema": [{"name": TABLE, "properties": [
                    {"name": "name", "quality": [{"metric": "duplicateValues", "mustBe": 0}]},
                    {"name": "email", "logicalType": "string", "quality": [
                        {"metric": "invalidValues", "arguments": {"validValues": ["a@x"]},
                         "mustBe": 0}]}]}]}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    endpoint = server.reader
    contract = load_odcs(str(path))
    compiled = compile_contract(contract, get_dialect(endpoint.engine), prefix=endpoint.schema)
    samples: dict[str, str] = {}
    report = run(contract, compiled, endpoint, RunOptions(
        samples=5, on_samples=lambda key, values: samples.__setitem__(key, values)))
    by_key = {r.key: r for r in report.results}
    duplicate = by_key[f"schema[{TABLE}].properties[name].quality[0]"]
    invalid = by_key[f"schema[{TABLE}].properties[email].quality[0]"]
    assert duplicate.status is Status.FAILED and invalid.status is Status.FAILED
    assert duplicate.inspect_sql is not None and invalid.inspect_sql is not None
    found = (sorted(server.execute(duplicate.inspect_sql)),
             sorted(server.execute(invalid.inspect_sql), key=str))
    assert found == ([("bob", 2)], [("odd's",), (None,)])
    assert samples[duplicate.key] == "'bob', '2'"
    assert sorted(samples[invalid.key].split(" | ")) == ["'odd's'", "NULL"]

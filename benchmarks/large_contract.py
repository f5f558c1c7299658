"""A contract of any number of rules over one wide DuckDB table, for the cost of large
contracts (issue 26.3): `compile` and `check`'s own Python per rule, and peak RSS, at 10 to
3,000 rules. Each column carries the same cycle of library metrics and schema constraints, so
N rules spread over about N / RULES_PER_COLUMN columns of one table (one fused scan).

Usage: python benchmarks/large_contract.py --rules 1000 [--rows 100000] [--out DIR]
writes DIR/large-<rules>.yaml and the table DIR/large-<rows>x<columns>.duckdb (built once);
`run.py`'s rules sweep imports `contract_document` and `build` from here."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"

#: Library rules on each text column (`c<i>`: 'v0' to 'v10', and '' in one row of 53); each
#: passes on that data, so a check runs no failure triage.
TEXT_RULES: list[dict[str, Any]] = [
    {"metric": "nullValues", "mustBe": 0},
    {"metric": "missingValues", "arguments": {"missingValues": ["", None]},
     "unit": "percent", "mustBeLessThan": 5},
    {"metric": "missingValues", "arguments": {"missingValues": ["n/a", "-"]}, "mustBe": 0},
    {"metric": "invalidValues", "arguments": {"validValues": ["", *(f"v{j}" for j in range(11))]},
     "mustBe": 0},
    {"metric": "invalidValues", "arguments": {"pattern": "^v[0-9]+$"},
     "unit": "percent", "mustBeLessThan": 5},
    {"metric": "duplicateValues", "mustBeGreaterThan": 0},
]
#: The schema's constraints on each text column, one rule each (`required` shares its
#: COUNT(column) with nullValues: the shared-aggregates statement).
TEXT_CONSTRAINTS: dict[str, Any] = {
    "required": True,
    "logicalTypeOptions": {"minLength": 0, "maxLength": 8, "pattern": "^v?[0-9]*$"},
}
#: Declaring a column's logicalType and physicalType makes two catalog checks (no rows read).
RULES_PER_COLUMN = 2 + len(TEXT_RULES) + 4  # required, minLength, maxLength, pattern

BUILD = """
CREATE TABLE wide AS
SELECT i AS id, {columns}
FROM range({rows}) AS t(i)
"""


def columns_for(rules: int) -> int:
    return max(1, -(-(rules - 1) // RULES_PER_COLUMN))


def _column_sql(index: int) -> str:
    step = 2 * index + 3  # each column its own mix of values
    return f"CASE WHEN (i + {index}) % 53 = 0 THEN '' ELSE 'v' || ((i * {step}) % 11) END AS c{index}"


def table_path(rows: int, columns: int, data: Path = DATA) -> Path:
    return data / f"large-{rows}x{columns}.duckdb"


def build(rows: int, columns: int, python: str, path: Path) -> None:
    """The table `wide` (an `id` and `columns` text columns), once per path."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    sql = BUILD.format(rows=rows, columns=", ".join(_column_sql(i) for i in range(columns)))
    script = (f"import duckdb; c = duckdb.connect({str(path)!r}); "
              "c.execute('SET enable_progress_bar = false'); "
              f"c.execute({sql!r}); c.close()")
    subprocess.run([python, "-c", script], check=True)


def contract_document(rules: int, server_path: Path) -> dict[str, Any]:
    """Exactly `rules` rules: the per-column cycle (type checks, library rules, then
    constraints) over as many columns as it takes, the last column's cycle cut short."""
    properties: list[dict[str, Any]] = [{"name": "id"}]  # one rule: the column is present
    left = rules - 1
    for index in range(columns_for(rules)):
        entry: dict[str, Any] = {"name": f"c{index}"}
        for key, value in (("logicalType", "string"), ("physicalType", "VARCHAR")):
            if left > 0:
                entry[key] = value
                left -= 1
        quality = [{"id": f"c{index}_q{j}", **rule}
                   for j, rule in enumerate(TEXT_RULES[:left])]
        left -= len(quality)
        if quality:
            entry["quality"] = quality
        constraints = _constraints(left)
        left -= _constraint_rules(constraints)
        entry.update(constraints)
        properties.append(entry)
    return {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": f"large-{rules}",
        "version": "1.0.0", "status": "active",
        "servers": [{"server": "local", "type": "duckdb", "database": str(server_path)}],
        "schema": [{"name": "wide", "physicalName": "wide", "physicalType": "table",
                    "properties": properties}],
    }


def _constraints(budget: int) -> dict[str, Any]:
    """The text constraints, as many as `budget` rules allows."""
    chosen: dict[str, Any] = {}
    for key in ("required",):
        if budget > 0:
            chosen[key] = TEXT_CONSTRAINTS[key]
            budget -= 1
    options = dict(list(TEXT_CONSTRAINTS["logicalTypeOptions"].items())[:max(budget, 0)])
    if options:
        chosen["logicalTypeOptions"] = options
    return chosen


def _constraint_rules(constraints: dict[str, Any]) -> int:
    return ("required" in constraints) + len(constraints.get("logicalTypeOptions", {}))


def write(rules: int, rows: int, out: Path, python: str = sys.executable) -> Path:
    """The contract file (JSON is YAML) over its table, building the table if absent."""
    database = table_path(rows, columns_for(rules), out.resolve())
    build(rows, columns_for(rules), python, database)
    contract = out / f"large-{rules}.yaml"
    contract.write_text(json.dumps(contract_document(rules, database), indent=1))
    return contract


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=DATA)
    arguments = parser.parse_args()
    print(write(arguments.rules, arguments.rows, arguments.out))


if __name__ == "__main__":
    main()

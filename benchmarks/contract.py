"""The benchmark's table and contract, shared by `run.py` (whole processes), `spark.py` (the
Spark row) and `constraints.py` (the constraint checks' cost): 13 library rules and the
schema's constraints over one `events` table, and FLOOR, the one hand-written statement that
computes the same numbers (the floor no tool can beat)."""

from __future__ import annotations

import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
PATTERN = r"^[a-z0-9.]+@[a-z]+\.[a-z]{2,}$"
BUILD = """
CREATE TABLE events AS
SELECT
    i AS id,
    (i * 7919) % {half} AS user_id,
    md5(CAST(i AS VARCHAR)) AS session_id,
    CASE WHEN i % 97 = 0 THEN NULL WHEN i % 89 = 0 THEN 'bad-email'
         ELSE 'user' || (i % 50000) || '@example.com' END AS email,
    ['DE', 'FR', 'GB', 'US', 'NL', 'XX'][1 + i % 6] AS country,
    CASE WHEN i % 53 = 0 THEN '' WHEN i % 7 = 0 THEN 'inactive' ELSE 'active' END AS status,
    CASE WHEN i % 101 = 0 THEN NULL ELSE CAST((i % 100000) / 100 AS DECIMAL(12, 2)) END AS amount
FROM range({rows}) AS t(i)
"""
RULES = [
    ("rows", None, {"metric": "rowCount", "mustBeGreaterThan": 0}),
    ("id_unique", "id", {"metric": "duplicateValues", "mustBe": 0}),
    ("session_unique", "session_id", {"metric": "duplicateValues", "mustBe": 0}),
    ("pair_unique", None, {"metric": "duplicateValues",
                           "arguments": {"properties": ["user_id", "session_id"]}, "mustBe": 0}),
    ("email_nulls", "email", {"metric": "nullValues", "unit": "percent", "mustBeLessThan": 2}),
    ("email_format", "email", {"metric": "invalidValues", "arguments": {"pattern": PATTERN},
                               "unit": "percent", "mustBeLessThan": 5}),
    ("country_valid", "country", {"metric": "invalidValues",
                                  "arguments": {"validValues": ["DE", "FR", "GB", "US", "NL"]},
                                  "unit": "percent", "mustBeLessThan": 20}),
    ("status_missing", "status", {"metric": "missingValues",
                                  "arguments": {"missingValues": ["", None]},
                                  "unit": "percent", "mustBeLessThan": 5}),
    ("status_valid", "status", {"metric": "invalidValues",
                                "arguments": {"validValues": ["active", "inactive", ""]},
                                "mustBe": 0}),
    ("amount_nulls", "amount", {"metric": "nullValues", "unit": "percent", "mustBeLessThan": 2}),
    ("user_nulls", "user_id", {"metric": "nullValues", "mustBe": 0}),
    ("country_nulls", "country", {"metric": "nullValues", "mustBe": 0}),
    ("id_nulls", "id", {"metric": "nullValues", "mustBe": 0}),
]
# What the schema declares (issue 11): constraint checks that fuse into the same scan.
CONSTRAINTS = {
    "id": {"primaryKey": True, "required": True},
    "session_id": {"unique": True, "logicalTypeOptions": {"minLength": 32, "maxLength": 32}},
    "user_id": {"required": True, "logicalTypeOptions": {"minimum": 0}},
    "email": {"logicalTypeOptions": {"maxLength": 64}},
    "country": {"logicalTypeOptions": {"validValues": ["DE", "FR", "GB", "US", "NL", "XX"]}},
    "status": {"logicalTypeOptions": {"pattern": "^[a-z]*$"}},
    "amount": {"logicalTypeOptions": {"minimum": 0, "maximum": 1000}},
}
TYPES = {"id": "integer", "user_id": "integer", "session_id": "string", "email": "string",
         "country": "string", "status": "string", "amount": "number"}
FLOOR = f"""
SELECT COUNT(*),
       COUNT(*) - COUNT(DISTINCT id),
       COUNT(*) - COUNT(DISTINCT session_id),
       COUNT(*) - COUNT(DISTINCT (user_id, session_id)),
       COUNT(*) - COUNT(email),
       COUNT(*) FILTER (WHERE email IS NULL OR NOT regexp_matches(email, '{PATTERN}')),
       COUNT(*) FILTER (WHERE country IS NULL OR country NOT IN ('DE', 'FR', 'GB', 'US', 'NL')),
       COUNT(*) FILTER (WHERE status = '' OR status IS NULL),
       COUNT(*) FILTER (WHERE status IS NULL OR status NOT IN ('active', 'inactive', '')),
       COUNT(*) - COUNT(amount), COUNT(*) - COUNT(user_id), COUNT(*) - COUNT(country),
       COUNT(*) - COUNT(id)
FROM events
"""


def contract_document(server_path: Path, *, constraints: bool = False) -> dict:
    properties = []
    for column, logical in TYPES.items():
        quality = [{"id": key, **rule} for key, target, rule in RULES if target == column]
        entry: dict = {"name": column, "logicalType": logical,
                       **(CONSTRAINTS.get(column, {}) if constraints else {})}
        if quality:
            entry["quality"] = quality
        properties.append(entry)
    return {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "bench", "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "local", "type": "duckdb", "database": str(server_path)}],
        "schema": [{"name": "events", "physicalName": "events", "physicalType": "table",
                    "quality": [{"id": k, **r} for k, t, r in RULES if t is None],
                    "properties": properties}],
    }


def build(rows: int, python: str, path: Path) -> None:
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    script = (f"import duckdb; c = duckdb.connect({str(path)!r}); "
              "c.execute('SET enable_progress_bar = false'); "
              f"c.execute({BUILD.format(rows=rows, half=max(rows // 2, 1))!r}); c.close()")
    subprocess.run([python, "-c", script], check=True)

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
#: The engines the floor is written for, with how each spells a composite distinct count, a
#: regex mismatch and a filtered count.
_SPELLING = {
    "duckdb": ("COUNT(DISTINCT (user_id, session_id))", "NOT regexp_matches(email, '{p}')"),
    "postgres": ("COUNT(DISTINCT ROW(user_id, session_id))", "email !~ '{p}'"),
    "mysql": ("COUNT(DISTINCT user_id, session_id)", "email NOT REGEXP '{p}'"),
}
#: The hand-written forms of the floor (issue 26.5), keyed by the name `run.py` prints: the
#: distinct counts in the one aggregate; each in its own scalar subquery; the composite key
#: as a `SELECT DISTINCT` subquery with the single-column counts in the aggregate.
FLOOR_FORMS = ("one aggregate", "scalar subqueries", "distinct subquery")


#: What CONSTRAINTS count on the rows, as hand-written conditions of violating rows (the
#: identical counts, `required` and `unique` on the library rules' columns, are not repeated).
CONSTRAINT_CONDITIONS = [
    "LENGTH(session_id) < 32", "LENGTH(session_id) > 32", "user_id < 0", "LENGTH(email) > 64",
    "country NOT IN ('DE', 'FR', 'GB', 'US', 'NL', 'XX')", "NOT regexp_matches(status, '^[a-z]*$')",
    "amount < 0", "amount > 1000",
]


def floor_sql(engine: str = "duckdb", form: str = "one aggregate", table: str = "events",
              constraints: bool = False) -> str:
    """The one hand-written statement that computes the 13 rules' numbers, in `form`;
    `constraints` (DuckDB) adds the counts of the schema's constraint checks."""
    composite, mismatch = _SPELLING[engine]
    mismatch = mismatch.format(p=PATTERN)

    def count(condition: str) -> str:
        if engine == "mysql":  # no FILTER clause
            return f"COUNT(CASE WHEN {condition} THEN 1 END)"
        return f"COUNT(*) FILTER (WHERE {condition})"

    distinct = {"id": "COUNT(DISTINCT id)", "session": "COUNT(DISTINCT session_id)",
                "pair": composite}
    if form == "scalar subqueries":
        distinct = {k: f"(SELECT {v} FROM {table})" for k, v in distinct.items()}
    elif form == "distinct subquery":
        distinct["pair"] = (f"(SELECT COUNT(*) FROM (SELECT DISTINCT user_id, session_id "
                            f"FROM {table}) AS pair_keys)")
    elif form != "one aggregate":
        raise ValueError(form)
    return f"""
SELECT COUNT(*),
       COUNT(*) - {distinct["id"]},
       COUNT(*) - {distinct["session"]},
       COUNT(*) - {distinct["pair"]},
       COUNT(*) - COUNT(email),
       {count(f"email IS NULL OR {mismatch}")},
       {count("country IS NULL OR country NOT IN ('DE', 'FR', 'GB', 'US', 'NL')")},
       {count("status = '' OR status IS NULL")},
       {count("status IS NULL OR status NOT IN ('active', 'inactive', '')")},
       COUNT(*) - COUNT(amount), COUNT(*) - COUNT(user_id), COUNT(*) - COUNT(country),
       COUNT(*) - COUNT(id){"".join(f", {count(c)}" for c in CONSTRAINT_CONDITIONS) if constraints else ""}
FROM {table}
"""


FLOOR = floor_sql()


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


def rules_document(count: int, server_path: Path) -> dict:
    """The bench contract with `count` library rules on `events`: the 13 rules, then more of
    the same metrics with other thresholds (each a rule of its own, one fused scan); the rules
    sweep's contract when benchmarks/large_contract.py is not there."""
    document = contract_document(server_path)
    obj = document["schema"][0]
    by_column = {p["name"]: p for p in obj["properties"]}
    made = len(RULES)
    cycle = [(key, target, rule) for key, target, rule in RULES if target is not None
             and "mustBeLessThan" in rule]
    while made < count:
        key, target, rule = cycle[made % len(cycle)]
        extra = {**rule, "id": f"{key}_{made}", "mustBeLessThan": rule["mustBeLessThan"] + made}
        by_column[target].setdefault("quality", []).append(extra)
        made += 1
    return document


def build(rows: int, python: str, path: Path) -> None:
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    script = (f"import duckdb; c = duckdb.connect({str(path)!r}); "
              "c.execute('SET enable_progress_bar = false'); "
              f"c.execute({BUILD.format(rows=rows, half=max(rows // 2, 1))!r}); c.close()")
    subprocess.run([python, "-c", script], check=True)

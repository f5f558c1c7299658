"""Policy and pipeline row checks on DuckDB and SQLite: odd column names, SQLite's dynamic
typing (a text cell in a numeric column), NULL defaults, and a broken expression that must not
take the object's other rules down (issue 12)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import re2

from packata_sql.report import Status

ODD = ('we"ird', "back`tick", "sp ace", "ünï")
ROWS = [
    (1, "a", 1, "x"),
    (1, "a", 2, None),
    (None, None, None, "y"),
    (None, None, 5, "x"),
]


def _policy(*rules: dict) -> str:
    return json.dumps({"object": "od d", "rules": list(rules)})


def test_policy_rules_on_odd_names(engine, check):
    table = ("od d", [(ODD[0], "int"), (ODD[1], "text"), (ODD[2], "decimal"), (ODD[3], "text")],
             ROWS)
    report = check(engine, _policy(
        {"id": "nn", "type": "not_null", "fields": [ODD[0], ODD[3]]},
        {"id": "pair", "type": "unique", "fields": [ODD[0], ODD[1]]},
        {"id": "pair-nn", "type": "unique", "fields": [ODD[0], ODD[1]], "ignore_nulls": True},
        {"id": "rng", "type": "range", "field": ODD[2], "minimum": 1, "maximum": 4},
        {"id": "rng-nn", "type": "range", "field": ODD[2], "maximum": 4, "allow_null": False},
        {"id": "ref", "type": "referential", "field": ODD[3], "allowed_values": ["x"]},
        {"id": "need", "type": "required_fields", "fields": list(ODD)},
    ), [table], categories=None)
    assert {r.key: (r.status, r.value) for r in report.results} == {
        "nn": (Status.FAILED, 3),  # rows 2, 3, 4
        "pair": (Status.FAILED, 2),  # (1, a) and (NULL, NULL) twice each
        "pair-nn": (Status.FAILED, 1),
        "rng": (Status.FAILED, 1),  # 5
        "rng-nn": (Status.FAILED, 2),  # 5 and NULL
        "ref": (Status.FAILED, 1),  # 'y'; NULL allowed by default
        "need": (Status.PASSED, True),
    }


def test_dynamic_typing_counts_cells_of_another_type(check):
    table = ("od d", [("n", "decimal"), ("s", "any")], [(1, 1), ("abc", "1"), (3, 2.0)])
    report = check("sqlite", _policy(
        {"id": "rng", "type": "range", "field": "n", "minimum": 0, "maximum": 10},
        {"id": "ref", "type": "referential", "field": "s", "allowed_values": [1, 2]},
    ), [table], categories=None)
    # 'abc' is no number; '1' (text) is not the member 1, and 2.0 equals 2.
    assert {r.key: r.value for r in report.results} == {"rng": 1, "ref": 1}


PIPELINE = """\
table: t
data_quality:
  rules:
    - {name: volume, rule: row_count, mustBe: 3}
    - {name: broken, rule: expression, expression: no_such_column > 0}
    - {name: fine, rule: expression, expression: n > 1}
"""


def test_a_broken_expression_errors_alone(engine, check):
    table = ("t", [("n", "int")], [(1,), (2,), (3,)])
    report = check(engine, PIPELINE, [table])
    assert {r.key: r.status for r in report.results} == {
        "volume": Status.PASSED, "broken": Status.ERROR, "fine": Status.FAILED}
    assert next(r for r in report.results if r.key == "fine").value == 1


def test_limits_and_types(engine, check):
    table = ("od d", [("s", "text"), ("n", "int")], [("a", 1)])
    report = check(engine, _policy(
        {"id": "big", "type": "referential", "field": "s",
         "allowed_values": [f"v{i}" for i in range(1001)]},
        {"id": "cap", "type": "referential", "field": "s",
         "allowed_values": [f"v{i}" for i in range(999)] + ["a"]},
        {"id": "text-range", "type": "range", "field": "s", "minimum": 0},
        {"id": "text-member", "type": "referential", "field": "n", "allowed_values": ["1"]},
    ), [table], categories=None)
    results = {r.key: r for r in report.results}
    assert results["big"].status is Status.SKIPPED
    assert results["big"].diagnostic.code == "too-many-values"
    assert (results["cap"].status, results["cap"].value) == (Status.PASSED, 0)
    # A range over text cannot be compared without a cast (SQLite cells carry their own type).
    expected = (Status.INCONCLUSIVE, None) if engine == "duckdb" else (Status.FAILED, 1)
    assert (results["text-range"].status, results["text-range"].value) == expected
    assert (results["text-member"].status, results["text-member"].value) == (Status.FAILED, 1)


def _listing(engine: str, database: Path, sql: str) -> list[tuple[object, ...]]:
    """An inspect query run by hand on the file (SQLite gets a `regexp` function, as the
    sqlite3 shell gets one from an extension)."""
    if engine == "duckdb":
        connection: Any = duckdb.connect(str(database), read_only=True)
    else:
        connection = sqlite3.connect(database)
        connection.create_function("regexp", 2, lambda p, v: None if v is None else int(
            isinstance(v, str) and re2.search(p, v) is not None))
    try:
        return sorted(connection.execute(sql).fetchall(), key=str)
    finally:
        connection.close()


def test_every_failed_row_check_lists_what_its_count_counts(engine, check, tmp_path):
    """Issue 14.5 for policy and pipeline rules: the inspect query of each failed rule lists
    exactly the rows (or repeated keys) its count counts, NULL defaults included."""
    table = ("t", [("k", "int"), ("s", "nocase"), ("n", "decimal")], [
        (1, "a", 1), (1, "A", 2), (None, "a ", None), (None, None, 5), (2, "b", 7)])
    pipeline = """\
        table: t
        data_quality:
          rules:
            - {name: nn, rule: not_null, columns: [k, s]}
            - {name: uniq, rule: unique, columns: [k]}
            - {name: uniq-nn, rule: unique, columns: [k], ignore_nulls: true}
            - {name: vals, rule: accepted_values, column: s, values: [a, b], allow_null: false}
            - {name: rx, rule: regex, column: s, pattern: '^[a-z]$'}
            - {name: rng, rule: range, column: n, minimum: 1, maximum: 5}
            - {name: expr, rule: expression, expression: n < 6}
        """
    sampled: dict[str, tuple[str, ...]] = {}
    report = check(engine, pipeline, [table], categories=None, samples=10,
                   on_samples=lambda key, values: sampled.__setitem__(key, values))
    database = tmp_path / f"db0.{engine}"
    listed = {r.key: _listing(engine, database, str(r.inspect_sql)) for r in report.results
              if r.key != "expr"}
    assert {r.key: r.value for r in report.results} == {
        "nn": 2, "uniq": 2, "uniq-nn": 1, "vals": 3, "rx": 2, "rng": 1, "expr": 2}
    assert listed == {
        "nn": [(None, "a "), (None, None)],
        "uniq": [(1, 2), (None, 2)],  # NULL keys are one key, as duplicateValues counts them
        "uniq-nn": [(1, 2)],
        "vals": [("A",), ("a ",), (None,)],  # 'A' and 'a ' are other values; NULL not allowed
        "rx": [("A",), ("a ",)],  # NULL passes a regex rule by default
        "rng": [(7,)],
    }
    # An expression is authored SQL (issue 20.1): its own query, no listing that would carry
    # its text into the report, and no samples.
    assert next(r for r in report.results if r.key == "expr").inspect_sql is None
    assert set(sampled) == {"nn", "uniq", "uniq-nn", "vals", "rx", "rng"}
    head, *values = sampled["vals"]  # each value typed, with its count (issue 24.2)
    assert head == "3 offending rows, 1 of them NULL"
    assert sorted(values) == ["s 'A' × 1", "s 'a ' × 1", "s NULL × 1"]

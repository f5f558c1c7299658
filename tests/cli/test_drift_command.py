"""`schema snapshot` and `check --baseline / --schema-drift / --drift` end to end on DuckDB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import duckdb

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
CONTRACT = HEAD + """schema:
  - name: orders
    properties:
      - {name: id, logicalType: integer, required: true}
      - {name: email, logicalType: string}
"""


def packata(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})


def warehouse(path: Path, *statements: str) -> str:
    connection = duckdb.connect(str(path))
    for statement in statements:
        connection.execute(statement)
    connection.close()
    return f"duckdb:///{path}"


def test_snapshot_is_deterministic_and_holds_no_data(tmp_path):
    url = warehouse(tmp_path / "w.duckdb",
                    "CREATE TABLE orders (id INTEGER NOT NULL, email VARCHAR)",
                    "INSERT INTO orders VALUES (1, 'secret@x.org')")
    first, second = (packata("schema", "snapshot", "--url", url, "--object", "orders")
                     for _ in range(2))
    assert first.returncode == 0 and first.stdout == second.stdout
    assert "secret" not in first.stdout and str(tmp_path) not in first.stdout
    assert json.loads(first.stdout) == {
        "format": "packata-sql/schema@1", "engine": "duckdb", "objects": [{
            "object": "orders", "fields": [
                {"name": "id", "position": 1, "native_type": "INTEGER", "family": "number",
                 "nullable": False},
                {"name": "email", "position": 2, "native_type": "VARCHAR", "family": "text",
                 "nullable": True}]}]}
    missing = packata("schema", "snapshot", "--url", url, "--object", "nope")
    assert missing.returncode == 3 and "no object 'nope'" in missing.stderr
    misspelt = packata("schema", "snapshot", "--url", url, "--object", "ordres")
    assert misspelt.returncode == 3 and "did you mean 'orders'?" in misspelt.stderr


def drift_run(tmp_path: Path) -> tuple[Path, Path, str, Path]:
    database = tmp_path / "w.duckdb"
    url = warehouse(database, "CREATE TABLE orders (id INTEGER NOT NULL, email VARCHAR)")
    baseline = tmp_path / "baseline.json"
    baseline.write_text(packata("schema", "snapshot", "--url", url, "--object", "orders").stdout)
    contract = tmp_path / "c.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    return baseline, contract, url, database


def check(contract: Path, url: str, *args: str) -> tuple[int, dict]:
    done = packata("check", str(contract), "--url", url, "--format", "json",
                   "--category", "constraint", *args)
    return done.returncode, json.loads(done.stdout)


def test_breaking_drift_fails_warning_warns_and_overrides_apply(tmp_path):
    baseline, contract, url, database = drift_run(tmp_path)
    warehouse(database, "ALTER TABLE orders ADD COLUMN note VARCHAR NOT NULL DEFAULT ''")
    code, report = check(contract, url, "--baseline", str(baseline))
    drift = next(r for r in report["rules"] if r["key"] == "baseline[orders].drift")
    assert (code, report["outcome"], drift["status"], drift["severity"]) == \
        (0, "warn", "failed", "warning")
    assert drift["changes"] == [{"field": "note", "change": "field-added-required",
                                 "classification": "warning", "before": None,
                                 "after": "VARCHAR"}]
    assert check(contract, url, "--baseline", str(baseline), "--fail-on", "warning")[0] == 1
    warehouse(database, "ALTER TABLE orders DROP COLUMN email")
    code, report = check(contract, url, "--baseline", str(baseline))
    drift = next(r for r in report["rules"] if r["key"] == "baseline[orders].drift")
    assert (code, drift["severity"]) == (1, "error")
    assert [c["change"] for c in drift["changes"]] == ["field-removed", "field-added-required"]
    code, report = check(contract, url, "--baseline", str(baseline),
                         "--drift", "field-removed=compatible",
                         "--drift", "field-added-required=compatible",
                         "--select", "baseline[orders].drift")
    assert (code, report["outcome"], len(report["rules"])) == (0, "pass", 1)


def test_schema_drift_compares_the_declared_schema(tmp_path):
    _, contract, url, database = drift_run(tmp_path)
    code, report = check(contract, url, "--schema-drift")
    drift = next(r for r in report["rules"] if r["key"] == "schema[orders].drift")
    assert (code, drift["status"], drift.get("changes", [])) == (0, "passed", [])
    warehouse(database, "ALTER TABLE orders ALTER COLUMN id DROP NOT NULL")
    code, report = check(contract, url, "--schema-drift")
    drift = next(r for r in report["rules"] if r["key"] == "schema[orders].drift")
    assert code == 1
    assert drift["changes"] == [{"field": "id", "change": "nullability-relaxed",
                                 "classification": "breaking", "before": "not null",
                                 "after": "nullable"}]


def test_bad_baseline_and_overrides_are_usage_errors(tmp_path):
    baseline, contract, url, _ = drift_run(tmp_path)
    baseline.write_text("{}", encoding="utf-8")
    done = packata("check", str(contract), "--url", url, "--baseline", str(baseline))
    assert done.returncode == 3 and "snapshot" in done.stderr and "Traceback" not in done.stderr
    done = packata("check", str(contract), "--url", url, "--schema-drift",
                   "--drift", "field-removed=fatal")
    assert done.returncode == 3 and "field-removed" in done.stderr


def test_a_null_native_type_in_the_baseline_is_an_unknown_type(tmp_path):
    """`"native_type": null` is a type the baseline did not know (type-resolved, compatible),
    never the type named 'None' and a breaking type-changed."""
    baseline, contract, url, _ = drift_run(tmp_path)
    document = json.loads(baseline.read_text(encoding="utf-8"))
    document["objects"][0]["fields"][0]["native_type"] = None
    baseline.write_text(json.dumps(document), encoding="utf-8")
    code, report = check(contract, url, "--baseline", str(baseline))
    drift = next(r for r in report["rules"] if r["key"] == "baseline[orders].drift")
    assert (code, drift["status"]) == (0, "passed")
    assert drift["changes"] == [{"field": "id", "change": "type-resolved",
                                 "classification": "compatible", "before": None,
                                 "after": "INTEGER"}]
    document["objects"][0]["fields"][0]["native_type"] = 4
    baseline.write_text(json.dumps(document), encoding="utf-8")
    done = packata("check", str(contract), "--url", url, "--baseline", str(baseline))
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert f"{baseline}: object 'orders' field 'id': 'native_type' must be a type name" \
        in done.stderr


def test_the_contract_can_enable_drift_with_its_own_overrides(tmp_path):
    _, contract, url, database = drift_run(tmp_path)
    contract.write_text(CONTRACT + "customProperties:\n  - property: schemaDrift\n"
                        "    value: {nullability-relaxed: warning}\n", encoding="utf-8")
    warehouse(database, "ALTER TABLE orders ALTER COLUMN id DROP NOT NULL")
    code, report = check(contract, url)
    drift = next(r for r in report["rules"] if r["key"] == "schema[orders].drift")
    assert (code, report["outcome"], drift["severity"]) == (0, "warn", "warning")
    code, report = check(contract, url, "--drift", "nullability-relaxed=breaking")
    assert (code, report["outcome"]) == (1, "fail")  # the command line has the last word


def test_a_wide_drift_is_bounded_but_classified_in_full():
    from packata_sql.contracts.drift import Classification, Field
    from packata_sql.dialects import Family, get_dialect
    from packata_sql.dialects.facts import ColumnFact
    from packata_sql.run.drift import MAX_CHANGES, classify

    dialect = get_dialect("duckdb")
    added = [ColumnFact(f"c{i}", i + 1, "INTEGER", Family.NUMBER, True) for i in range(300)]
    removed = [Field("gone", "INTEGER", None, True)]
    drift = classify(removed, added, dialect)  # removals first, then 300 additions
    assert len(drift.changes) == MAX_CHANGES and drift.omitted == 101
    assert drift.classification is Classification.BREAKING
    late = classify([], [*added, ColumnFact("z", 301, "INTEGER", Family.NUMBER, False)], dialect)
    assert late.changes[-1].change == "field-added-nullable"  # the required one was cut off
    assert late.classification is Classification.WARNING  # and still counts
    untyped = classify([Field("x")], [ColumnFact("x", 1, "", Family.DYNAMIC, None)],
                       get_dialect("sqlite"))
    assert untyped.changes == ()  # an untyped SQLite column stays untyped: no change


def test_drift_results_name_the_changes_in_every_report(tmp_path):
    """Not only JSON: the table, Markdown, JUnit and GitHub annotations say which field changed
    how (the most serious first), under the object, with an expectation."""
    baseline, contract, url, database = drift_run(tmp_path)
    warehouse(database, "ALTER TABLE orders DROP COLUMN email",
              "ALTER TABLE orders ADD COLUMN note VARCHAR")
    said = "email field-removed (breaking), note field-added-nullable (compatible)"
    outputs = {fmt: packata("check", str(contract), "--url", url, "--baseline", str(baseline),
                            "--format", fmt, "--progress", "none", env={"COLUMNS": "200"})
               for fmt in ("table", "markdown", "junit", "github", "json")}
    assert {done.returncode for done in outputs.values()} == {1}
    assert f"false: {said}" in outputs["table"].stdout
    row = next(line for line in outputs["markdown"].stdout.replace("\u00a0", " ").splitlines()
               if "baseline[orders].drift" in line)
    assert f"| false: {said}<br>expected no breaking schema drift |" in row  # what failed
    case = ElementTree.fromstring(outputs["junit"].stdout).find(
        "testcase[@name='baseline[orders].drift']")
    assert case is not None and case.get("classname") == "orders"
    assert said in case.find("failure").get("message")
    annotation = next(line for line in outputs["github"].stdout.splitlines()
                      if "baseline[orders].drift" in line)
    assert annotation.startswith("::error ") and said in annotation
    drift = next(r for r in json.loads(outputs["json"].stdout)["rules"] if r["kind"] == "drift")
    assert (drift["target"], drift["expectation"]) == \
        ("orders", "no warning or breaking schema drift")
    # A drift that passes with compatible changes names them too.
    done = packata("check", str(contract), "--url", url, "--baseline", str(baseline),
                   "--drift", "field-removed=compatible", "--format", "markdown",
                   "--select", "baseline[orders].drift")
    assert done.returncode == 0
    assert "true: email field-removed (compatible), note field-added-nullable (compatible)" \
        in done.stdout.replace("\u00a0", " ")


def test_declared_drift_points_at_the_object_line(tmp_path):
    _, contract, url, database = drift_run(tmp_path)
    warehouse(database, "ALTER TABLE orders DROP COLUMN email")
    done = packata("check", str(contract), "--url", url, "--schema-drift", "--format", "github")
    annotation = next(line for line in done.stdout.splitlines() if "schema[orders].drift" in line)
    assert ",line=7," in annotation and "email field-removed (breaking)" in annotation

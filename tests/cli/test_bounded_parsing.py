"""Hostile or clumsy input files end as usage errors (exit 3) that name the file and where in
it, before any expensive step: deep JSON policies, baselines and dbt manifests, mistyped
baselines and manifests, and pipeline expressions the SQL parser cannot read in bounded
stack or time (issue 20, item 7). Each runs the real CLI in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from packata_sql.contracts.drift import SNAPSHOT_FORMAT

BINARY = str(Path(sys.executable).with_name("packata-sql"))
DEEP = 100_000
ODCS = ("apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
        "schema:\n  - name: orders\n    properties:\n      - {name: id, logicalType: integer}\n")
MANIFEST_VERSION = {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"}


def packata(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=120, cwd=cwd,
                          check=False)
    return done, time.monotonic() - started


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    connection = duckdb.connect(str(tmp_path / "w.duckdb"))
    connection.execute("CREATE TABLE orders (id INTEGER, amount DECIMAL(8, 2))")
    connection.close()
    (tmp_path / "odcs.yaml").write_text(ODCS, "utf-8")
    return tmp_path


def refused(folder: Path, *args: str) -> str:
    """The CLI's stderr for a run that must stop with a usage error, quickly."""
    done, elapsed = packata(*args, "--url", "duckdb:///w.duckdb", cwd=folder)
    assert done.returncode == 3, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert elapsed < 20  # generous: the refusal comes before any parse of the deep part
    return done.stderr


def nested_list(depth: int) -> str:
    return "[" * depth + "]" * depth


def nested_object(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


@pytest.mark.parametrize("body", [
    '{"rules": ' + nested_list(DEEP) + "}",
    '{"object": "orders", "rules": [{"id": "x", "type": "row_count", "extra": '
    + nested_object(DEEP) + "}]}",
])
def test_a_deeply_nested_json_policy_is_a_usage_error(folder, body):
    (folder / "p.json").write_text(body, "utf-8")
    stderr = refused(folder, "check", "p.json")
    assert "p.json:1: nested deeper than 100 levels" in stderr


def test_a_policy_nested_a_few_hundred_deep_is_refused_where_it_nests(folder):
    inner: list[object] = []
    for _ in range(300):
        inner = [inner]
    document = {"object": "orders", "rules": [{"id": "x", "type": "row_count"}], "extra": inner}
    (folder / "p.json").write_text(json.dumps(document), "utf-8")
    stderr = refused(folder, "check", "p.json", "--declaration", "policy")
    assert "p.json: not a JSON quality policy: nested deeper than 100 levels at $.extra[0]" \
        in stderr


@pytest.mark.parametrize("objects,message", [
    ("5", "'objects' must be a list of objects"),
    ('[1, 2]', "objects[0] must be an object with 'object' and 'fields'"),
    ('[{"object": "orders", "fields": "id"}]', "objects[0].fields must be a list of objects"),
    ('[{"object": "orders", "fields": [3]}]', "objects[0].fields must be a list of objects"),
    (nested_list(DEEP), "nested deeper than 100 levels"),
])
def test_a_mistyped_or_deep_baseline_is_a_usage_error(folder, objects, message):
    (folder / "base.json").write_text(
        f'{{"format": "{SNAPSHOT_FORMAT}", "engine": "duckdb", "objects": {objects}}}', "utf-8")
    stderr = refused(folder, "check", "odcs.yaml", "--baseline", "base.json")
    assert f"base.json: {message}" in stderr


def test_a_baseline_that_is_not_text_is_a_usage_error(folder):
    (folder / "base.json").write_bytes(b"\xff\xfe\x00{")
    assert "base.json: not UTF-8 text" in refused(folder, "check", "odcs.yaml", "--baseline",
                                                  "base.json")


def model(meta: object) -> dict[str, object]:
    return {"resource_type": "model", "name": "orders", "alias": "orders", "schema": "main",
            "config": {"meta": meta}}


@pytest.mark.parametrize("manifest,message", [
    (f'{{"metadata": {json.dumps(MANIFEST_VERSION)}, "nodes": {nested_list(DEEP)}}}',
     "manifest.json: nested deeper than a JSON reader follows (line 1)"),
    (json.dumps({"metadata": MANIFEST_VERSION, "nodes": [1, 2]}),
     "manifest.json: nodes must be an object"),
    (json.dumps({"metadata": "v12", "nodes": {}}), "manifest.json: metadata must be an object"),
    (json.dumps({"metadata": MANIFEST_VERSION,
                 "nodes": {"model.p.orders": model({"packata_sql": "orders"})}}),
     "manifest.json: nodes.model.p.orders.config.meta.packata_sql must be an object; "
     "write it in the model's config as meta: {packata_sql: {object: NAME}}"),
    (json.dumps({"metadata": MANIFEST_VERSION,
                 "nodes": {"model.p.orders": model({"packata_sql": {"object": 5}})}}),
     "nodes.model.p.orders.config.meta.packata_sql.object must be text"),
    (json.dumps({"metadata": MANIFEST_VERSION,
                 "nodes": {"model.p.orders": {**model({}), "config": "x"}}}),
     "nodes.model.p.orders.config must be an object"),
])
def test_a_deep_or_mistyped_dbt_manifest_is_a_usage_error(folder, manifest, message):
    (folder / "target").mkdir()
    (folder / "target" / "manifest.json").write_text(manifest, "utf-8")
    stderr = refused(folder, "check", "odcs.yaml", "--dbt-project", ".")
    assert message in stderr


def test_mistyped_run_results_are_a_usage_error(folder):
    (folder / "target").mkdir()
    (folder / "target" / "manifest.json").write_text(
        json.dumps({"metadata": MANIFEST_VERSION, "nodes": {}}), "utf-8")
    (folder / "target" / "run_results.json").write_text('{"results": [1]}', "utf-8")
    stderr = refused(folder, "check", "odcs.yaml", "--dbt-project", ".")
    assert "run_results.json: results must be a list of objects" in stderr


def pipeline(folder: Path, expression: str) -> str:
    (folder / "p.yaml").write_text(
        "table: orders\ndata_quality:\n  rules:\n"
        f"    - {{name: e, rule: expression, expression: '{expression}'}}\n", "utf-8")
    return "p.yaml"


@pytest.mark.parametrize("expression", [
    "(" * 3000 + "amount > 0" + ")" * 3000,
    "(" * 33 + "amount > 0" + ")" * 33,
    "NOT " * 2400 + "amount > 0",
    "amount > " + "- " * 4000 + "1",
    "CASE WHEN " * 40 + "amount > 0" + " THEN 1 END" * 40 + " = 1",
])
def test_deeply_nested_expressions_are_refused_before_parsing(folder, expression):
    stderr = refused(folder, "check", pipeline(folder, expression), "--budget", "3")
    assert "p.yaml:4: data_quality.rules[0] (name 'e'): 'expression' nests parentheses, CASE " \
           "or NOT deeper than 32 levels" in stderr


def test_an_oversized_expression_is_refused_before_planning(folder):
    expression = " OR ".join(f"amount > {n}" for n in range(30_000))  # about 400 kB
    stderr = refused(folder, "check", pipeline(folder, expression), "--budget", "3")
    assert "'expression' is longer than 10,000 characters" in stderr


def test_expressions_within_the_bounds_still_run(folder):
    flat = " OR ".join("amount > 0" for _ in range(700))  # long but flat: ~9,000 characters
    nested = "(" * 32 + "amount > 0" + ")" * 32 + " OR amount IS NULL"
    for expression in (flat, nested):
        done, _ = packata("check", pipeline(folder, expression), "--url", "duckdb:///w.duckdb",
                          cwd=folder)
        assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("expression", [
    "amount" + "::INT" * 400 + " > 0",  # flat to the tokenizer, 400 levels deep once parsed
    "amount" + "[1]" * 900 + " > 0",  # deep enough to exhaust the parser's stack
    "amount" + " IS NOT NULL = TRUE" * 100,
])
def test_expressions_deep_once_parsed_are_a_finding_not_a_crash(folder, expression):
    done, _ = packata("check", pipeline(folder, expression), "--url", "duckdb:///w.duckdb",
                      "--format", "json", cwd=folder)
    assert done.returncode == 2, done.stderr
    rule = json.loads(done.stdout)["rules"][0]
    assert (rule["status"], rule["diagnostic"]["code"]) == ("skipped", "invalid-expression")

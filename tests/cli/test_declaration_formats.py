"""Declaration formats on the command line: detection from content, `--declaration`,
`--object`, `compile` output, the policy's evidence in the JSON report and `schema_policy`
overriding drift classifications (issue 12), end to end on DuckDB."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from packata_sql.cli.main import main
from packata_sql.contracts.formats import detect, load_declaration
from packata_sql.contracts.yaml_source import SourceError

ODCS = "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
POLICY = {"version": "v7", "rules": [
    {"id": "non-empty", "type": "row_count", "minimum": 1},
    {"id": "known-status", "type": "referential", "field": "status",
     "allowed_values": ["new", "closed"]}]}
PIPELINE = ("data_quality:\n  rules:\n    - {name: few_nulls, rule: not_null, column: status, "
            "mustBeLessThan: 2}\n")


def _write(path: Path, content: object) -> str:
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return str(path)


@pytest.fixture
def url(tmp_path: Path) -> str:
    connection = duckdb.connect(str(tmp_path / "w.duckdb"))
    connection.execute("CREATE TABLE orders (id INTEGER, status VARCHAR, amount DECIMAL(8, 2))")
    connection.execute("INSERT INTO orders VALUES (1, 'new', 1), (2, 'secret-status', 2), "
                       "(3, NULL, 3)")
    connection.close()
    return f"duckdb:///{tmp_path / 'w.duckdb'}"


@pytest.mark.parametrize("document,expected", [
    ({"apiVersion": "v3.1.0", "rules": []}, "odcs"),
    ({"data_quality": {"rules": []}, "rules": []}, "pipeline"),
    ({"rules": []}, "policy"),
    ({"rules": "x"}, None),
    ([1], None),
])
def test_detection_from_content(document, expected):
    assert detect(document) == expected


def test_each_format_loads_by_content_and_by_override(tmp_path):
    policy = _write(tmp_path / "p.json", {**POLICY, "object": "orders"})
    pipeline = _write(tmp_path / "p.yaml", "table: orders\n" + PIPELINE)
    tabbed = _write(tmp_path / "tabbed.json",
                    json.dumps({**POLICY, "object": "orders"}, indent="\t"))
    assert dict(load_declaration(policy).declaration)["format"] == "policy"
    assert dict(load_declaration(tabbed).declaration)["format"] == "policy"
    assert dict(load_declaration(pipeline).declaration) == {"format": "pipeline"}
    assert [r.key for r in load_declaration(policy, declaration="policy").rules] == \
        ["non-empty", "known-status"]
    with pytest.raises(SourceError, match="'data_quality' must hold a 'rules' list"):
        load_declaration(policy, declaration="pipeline")
    with pytest.raises(SourceError, match="not a JSON quality policy"):
        load_declaration(pipeline, declaration="policy")


def test_the_object_comes_from_the_file_else_from_the_option(tmp_path):
    policy = _write(tmp_path / "p.json", POLICY)
    pipeline = _write(tmp_path / "p.yaml", PIPELINE)
    for path in (policy, pipeline):
        assert {r.target.physical_object for r in load_declaration(path, object_name="t").rules} \
            == {"t"}
        with pytest.raises(SourceError, match="pass --object NAME"):
            load_declaration(path)
    inner = _write(tmp_path / "inner.yaml", PIPELINE.replace("  rules:", "  object: o\n  rules:"))
    assert load_declaration(inner).rules[0].target.physical_object == "o"
    named = _write(tmp_path / "named.json", {**POLICY, "object": "orders"})
    with pytest.raises(SourceError, match="--object names another one"):
        load_declaration(named, object_name="elsewhere")
    assert load_declaration(named, object_name="orders").rules[0].target.object_name == "orders"
    odcs = _write(tmp_path / "c.yaml", ODCS)
    with pytest.raises(SourceError, match="--object applies to policy and pipeline"):
        load_declaration(odcs, object_name="orders")


@pytest.mark.parametrize("args,message", [
    ([], "pass --object NAME"),
    (["--declaration", "odcs"], "not an ODCS v3 contract"),
    (["--declaration", "yaml"], "invalid choice"),
])
def test_usage_errors_exit_3(tmp_path, url, capsys, args, message):
    path = _write(tmp_path / "p.json", POLICY)
    try:
        code = main(["check", path, "--url", url, *args])
    except SystemExit as exit_:  # argparse's own usage errors
        code = exit_.code
    assert code == 3
    assert message in capsys.readouterr().err


def test_policy_report_carries_evidence_and_no_values(tmp_path, url, capsys):
    path = _write(tmp_path / "p.json", POLICY)
    code = main(["check", path, "--url", url, "--object", "orders", "--format", "json"])
    captured = capsys.readouterr()
    text = captured.out
    assert text, (code, captured.err)
    report = json.loads(text)
    assert code == 1
    assert report["declaration"]["format"] == "policy"
    assert report["declaration"]["version"] == "v7"
    assert len(report["declaration"]["sha256"]) == 64
    assert report["summary"] == {"passed": 1, "failed": 1, "error": 0, "inconclusive": 0,
                                 "skipped": 0}
    assert [(r["key"], r["status"], r["value"]) for r in report["rules"]] == [
        ("non-empty", "passed", 3), ("known-status", "failed", 1)]
    assert "secret-status" not in text


def test_compile_shows_the_fused_sql(tmp_path, capsys):
    path = _write(tmp_path / "p.yaml", "table: orders\n" + PIPELINE)
    assert main(["compile", path, "--dialect", "postgres"]) == 0
    plan = json.loads(capsys.readouterr().out)
    [scan] = plan["scans"]
    assert scan["rules"] == ["few_nulls"] and scan["object"] == ["orders"]
    assert scan["sql"] == ('SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN ("status" IS NULL)'
                           ' THEN 1 END) AS "m1" FROM "orders"')


def _snapshot_then_drop_amount(tmp_path: Path, url: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["schema", "snapshot", "--url", url, "--object", "orders"]) == 0
    snapshot = _write(tmp_path / "snap.json", capsys.readouterr().out)
    connection = duckdb.connect(url.removeprefix("duckdb:///"))
    connection.execute("ALTER TABLE orders DROP COLUMN amount")
    connection.close()
    return snapshot


@pytest.mark.parametrize("schema_policy,outcome,code", [
    (None, "fail", 1),  # a removed field is breaking by default
    ({"field_removed": "warning"}, "warn", 0),
    ({"field-removed": "compatible"}, "pass", 0),
])
def test_schema_policy_overrides_drift(tmp_path, url, capsys, schema_policy, outcome, code):
    snapshot = _snapshot_then_drop_amount(tmp_path, url, capsys)
    document = {"object": "orders", "rules": [{"id": "n", "type": "row_count", "minimum": 1}]}
    if schema_policy:
        document["schema_policy"] = schema_policy
    path = _write(tmp_path / "p.json", document)
    assert main(["check", path, "--url", url, "--baseline", snapshot, "--format", "json"]) == code
    report = json.loads(capsys.readouterr().out)
    assert report["outcome"] == outcome
    drift = next(r for r in report["rules"] if r["key"] == "baseline[orders].drift")
    assert [c["change"] for c in drift["changes"]] == ["field-removed"]


def test_compile_shows_a_policy_field_rule_in_the_scan(tmp_path, capsys):
    path = _write(tmp_path / "p.json", {"object": "orders", "rules": [
        {"id": "id-shape", "type": "field", "field": "id", "data_type": "integer",
         "nullable": False},
        {"id": "columns", "type": "required_fields", "fields": ["id"]}]})
    assert main(["compile", path, "--dialect", "duckdb"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["scans"][0]["rules"] == ["id-shape"]
    rules = {r["key"]: r for r in plan["rules"]}
    assert list(rules) == ["id-shape", "columns"]
    assert rules["id-shape"]["sql"] == ('SELECT COUNT(*) AS "packata_rows", COUNT(CASE WHEN '
                                        '("id" IS NULL) THEN 1 END) AS "m1" FROM "orders"')
    assert rules["columns"]["sql"] is None  # answered from the catalog

"""Path 2: `packata-sql check CONTRACT --dbt-project DIR` after real dbt runs, and the
differential between the two paths on the same data (dbt.md §6.5 scenarios 2 and 14)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from packata_sql.cli.main import main as packata_main

from .dbt_harness import CONTRACT, Project, projects


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
def project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    kind = str(request.param)
    server = request.getfixturevalue("postgres") if kind == "postgres" else None
    yield from projects(kind, tmp_path_factory.mktemp(f"dbt_manifest_{kind}"), server)


def path2(project: Project, tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    """The CLI's report on what dbt just built, through a SELECT-only login on PostgreSQL."""
    if project.target == "duckdb":
        url = project.reader_copy(tmp_path / "after_dbt")
    else:
        project.grant_reader()
        assert project.reader_url is not None
        url = project.reader_url
    output = tmp_path / "report.json"
    code = packata_main(["check", str(project.root / CONTRACT), "--dbt-project", str(project.root),
                         "--url", url, "--format", "json", "--output", str(output), *extra])
    return code, json.loads(output.read_text(encoding="utf-8"))


def by_key(report: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {r["key"]: (r["status"], (r.get("diagnostic") or {}).get("code")) for r in report["rules"]}


def test_both_paths_give_the_same_statuses_and_values(project: Project, tmp_path: Path) -> None:
    hook = project.invoke("--select", "orders", defects=("bad_email",))  # min_amount 0, SQL rules run
    assert hook.success
    code, report = path2(project, tmp_path, "--param", "min_amount=0")
    assert report["read_only"] == "enforced"
    rules = {r["key"]: r for r in report["rules"]}
    compared = 0
    for key, (status, value, diagnostic) in hook.rules().items():
        assert rules[key]["status"] == status, key
        assert (rules[key].get("diagnostic") or {}).get("code") == diagnostic, key
        if value is not None:
            assert Fraction(Decimal(str(rules[key]["value"]))) == Fraction(value[0], value[1]), key
            compared += 1
    assert compared == 7
    assert by_key(report)["odd_id_unique"] == ("skipped", "dbt-not-run")
    assert code == 2  # complete runs only: the text rule, a missing parameter, odd not run


def test_a_failed_model_is_not_checked(project: Project, tmp_path: Path) -> None:
    outcome = project.invoke("--select", "orders", "odd_orders", defects=("dup",))
    assert outcome.statuses == {"orders": "error", "odd_orders": "success"}
    code, report = path2(project, tmp_path)
    statuses = by_key(report)
    assert statuses["order_id_unique"] == ("skipped", "dbt-model-not-built")
    assert statuses["no_negative_amounts"] == ("skipped", "dbt-model-not-built")
    assert statuses["odd_id_unique"] == ("passed", None)
    assert statuses["odd_select_rows"] == ("passed", None)  # SQL rules run on a SELECT-only login
    assert code == 2


def test_an_unknown_metric_skips_only_its_rule(project: Project, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 19 item 3, manifest mode: the misspelling is printed, its rule is skipped and the
    rules of the models dbt built are measured (no exit 3 before connecting)."""
    hook = project.invoke("--select", "orders")
    assert hook.success
    contract = project.root / CONTRACT
    original = contract.read_text(encoding="utf-8")
    try:
        contract.write_text(original.replace(
            "      - id: orders_not_empty\n",
            "      - id: orders_counted\n        metric: rowCounts\n        mustBeGreaterThan: 0\n"
            "      - id: orders_not_empty\n", 1), encoding="utf-8")
        capsys.readouterr()
        code, report = path2(project, tmp_path, "--param", "min_amount=0")
        printed = capsys.readouterr().err
    finally:
        contract.write_text(original, encoding="utf-8")
    assert code == 2
    assert "error unknown-metric" in printed and "did you mean 'rowCount'?" in printed
    statuses = by_key(report)
    assert statuses["orders_counted"] == ("skipped", "unknown-metric")
    assert statuses["orders_not_empty"] == ("passed", None)
    assert statuses["order_id_unique"] == ("passed", None)


def test_an_old_manifest_is_refused(project: Project, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "target").mkdir()
    manifest = json.loads((project.root / "target" / "manifest.json").read_text(encoding="utf-8"))
    manifest["metadata"]["dbt_schema_version"] = "https://schemas.getdbt.com/dbt/manifest/v8.json"
    (tmp_path / "target" / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    code = packata_main(["check", str(project.root / CONTRACT), "--dbt-project", str(tmp_path),
                         "--url", "duckdb:///" + str(tmp_path / "none.duckdb")])
    assert code == 3
    assert "older than manifest v9" in capsys.readouterr().err


@pytest.mark.parametrize("project", ["duckdb"], indirect=True)
def test_packata_sql_never_imports_dbt(project: Project, tmp_path: Path) -> None:
    url = project.reader_copy(tmp_path / "copy")
    commands = {
        "packata_sql.contracts.dbt_manifest": ["check", str(project.root / CONTRACT),
                                     "--dbt-project", str(project.root), "--url", url],
        "packata_sql.plans.gate": ["dbt", "generate", str(project.root / CONTRACT), "--project-dir",
                                 str(project.root), "--object", "odd=odd_orders",
                                 "--object", "late=late", "--check"],
    }
    for module, argv in commands.items():
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "packata_sql", *argv],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode in (0, 1, 2), done.stderr[-2000:]
        imported = re.findall(r"\|\s*([\w.]+)\s*$", done.stderr, re.M)
        assert module in imported
        assert [m for m in imported if m == "dbt" or m.startswith("dbt.")] == []

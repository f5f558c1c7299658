"""An object's column facts are read from the catalog once per run, for every object at once
(`Session.read_ahead`): its catalog checks (logicalType, presence), the column-type checks of
its members and its scan's column probe ask for the same facts."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
import yaml

from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.report import Report, Status
from packata_sql.run.runner import RunOptions, run
from packata_sql.sessions.duckdb import DuckDBSession
from packata_sql.sessions.endpoint import Endpoint


def _checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, properties: list[dict[str, object]],
             categories: list[Category] | None = None, extra: dict[str, object] | None = None,
             ) -> tuple[Report, list[tuple[str, ...]]]:
    """The run's report and the catalog reads it made: ("probe", object) for a column probe,
    the object for its own facts, ("ahead", objects…) for the read of every object's."""
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE amounts (id INTEGER NOT NULL, amount DECIMAL(10, 2))")
    connection.execute("INSERT INTO amounts VALUES (1, 1.50), (2, 1.01), (3, NULL)")
    connection.close()
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "c", "version": "1",
        "status": "active", "schema": [{"name": "amounts", "properties": properties}, *(
            [{"name": "amountz", "properties": [extra]}] if extra else [])]}))
    reads: list[tuple[str, ...]] = []
    real, real_of, real_probe = (DuckDBSession._facts, DuckDBSession._facts_of,
                                 DuckDBSession._describe)

    def counted(self: DuckDBSession, segments: tuple[str, ...]) -> object:
        reads.append(tuple(segments))
        return real(self, segments)

    def counted_of(self: DuckDBSession, objects: list[tuple[str, ...]]) -> object:
        reads.append(("ahead", *(".".join(o) for o in objects)))
        return real_of(self, objects)

    def probed(self: DuckDBSession, segments: tuple[str, ...]) -> object:
        reads.append(("probe", *segments))
        return real_probe(self, segments)

    monkeypatch.setattr(DuckDBSession, "_facts", counted)
    monkeypatch.setattr(DuckDBSession, "_facts_of", counted_of)
    monkeypatch.setattr(DuckDBSession, "_describe", probed)
    contract = load_odcs(str(path))
    compiled = compile_contract(contract, get_dialect("duckdb"), categories=categories)
    return run(contract, compiled, Endpoint("duckdb", str(database)), RunOptions()), reads


def test_column_facts_are_read_once_per_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    report, reads = _checked(tmp_path, monkeypatch, [
        {"name": "id", "logicalType": "integer", "required": True},
        {"name": "amount", "logicalType": "number",
         "logicalTypeOptions": {"validValues": [1.5, 1.005]}}])
    results = {r.key: (r.status, r.value) for r in report.results}
    assert results["schema[amounts].properties[id].logicalType"] == (Status.PASSED, True)
    # 1.005 cannot be held by DECIMAL(10,2) (the facts' native type): it matches nothing.
    assert results["schema[amounts].properties[amount].logicalTypeOptions.validValues"] == (
        Status.FAILED, 1)
    valid = next(r for r in report.results if r.key.endswith(".validValues"))
    flagged = [f for f in report.findings if f.code == "member-not-representable"]
    # The finding points at the declaration's line, as compile's does.
    assert [(f.rule_key, f.line) for f in flagged] == [(valid.key, valid.line)]
    assert valid.line is not None
    assert reads == [("ahead", "amounts")]


def test_quality_rules_alone_read_the_facts_once(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch):
    """Without catalog checks the scan still needs the object's columns: they come from the
    facts read ahead, not from a probe of the object."""
    report, reads = _checked(tmp_path, monkeypatch, [
        {"name": "amount", "quality": [{"metric": "nullValues", "mustBe": 1}]}],
        [Category.QUALITY])
    assert [(r.status, r.value) for r in report.results] == [(Status.PASSED, 1)]
    assert reads == [("ahead", "amounts")]


def test_a_missing_object_is_read_on_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A missing object fails DuckDB's one read ahead: each object is then read alone, and the
    missing one's rules end as they did before (`missing-object`, naming the closest)."""
    report, reads = _checked(tmp_path, monkeypatch, [
        {"name": "amount", "quality": [{"metric": "nullValues", "mustBe": 1}]}],
        [Category.QUALITY], extra={"name": "amount", "quality": [
            {"metric": "nullValues", "mustBe": 1}]})
    statuses = sorted((r.key.split("]")[0], r.status.value, r.diagnostic.code if r.diagnostic
                       else None) for r in report.results)
    assert statuses == [("schema[amounts", "passed", None),
                        ("schema[amountz", "error", "missing-object")]
    assert reads[0] == ("ahead", "amounts", "amountz")
    assert ("probe", "amounts") in reads and ("probe", "amountz") in reads

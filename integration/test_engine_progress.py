"""Issue 24.6 on servers: Spark Connect reports a long fused scan's stage progress, which the
run passes on; PostgreSQL reports none for a SELECT (its pg_stat_progress_* views cover
VACUUM, ANALYZE, CREATE INDEX, CLUSTER, COPY and base backups), so the display falls back to
the step's elapsed time and no progress value is invented. Real servers, the API's
progress callback."""

from __future__ import annotations

from pathlib import Path

import yaml

from integration.conftest import READER, Server, SparkServer
from packata_sql import api
from packata_sql.api import Progress

HEAD = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "p", "version": "1.0.0",
        "status": "active"}


def contract(tmp_path: Path, name: str) -> api.Contract:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({**HEAD, "schema": [{
        "name": name, "quality": [{"metric": "rowCount", "mustBeGreaterThan": 0}],
        "properties": [{"name": "h", "quality": [{"metric": "nullValues", "mustBe": 0}]}],
    }]}), encoding="utf-8")
    return api.load(path)


def events_of(loaded: api.Contract, endpoint: api.Endpoint) -> tuple[list[Progress], api.Report]:
    events: list[Progress] = []
    report = api.check_endpoint(loaded, endpoint, api.CheckRequest(progress=events.append))
    return events, report


def test_spark_reports_the_stage_progress_of_a_long_fused_scan(spark: SparkServer, tmp_path):
    admin = spark.admin()
    # 16 partitions, each hashing 3.75M rows: 6 to 7 s on an idle 2-core machine, so Spark's
    # progress report (every 2 s by default) comes while tasks remain (6M rows took 2 s,
    # which sometimes finished before the first report).
    try:
        admin.sql(f"CREATE OR REPLACE VIEW `{spark.database}`.grp_big AS SELECT id, "
                  "md5(CAST(id AS STRING)) AS h FROM range(0, 60000000, 1, 16) "
                  "WHERE md5(CAST(id AS STRING)) NOT LIKE 'zzz%'")
    finally:
        admin.stop()
    events, report = events_of(contract(tmp_path, "grp_big"), spark.reader)
    assert [r.status.value for r in report.results] == ["passed"] * 3
    steps = [event.step for event in events]
    start, end = steps.index("scan"), steps.index("done")
    assert events[start].rules == 3  # rowCount, nullValues and the column check's scan
    during = [e.percent for e in events[start + 1:end] if e.step == "progress"]
    assert any(p is not None and 0 < p < 100 for p in during), events


def test_postgres_reports_no_progress_of_a_select(postgres: Server, tmp_path):
    postgres.execute("DROP VIEW IF EXISTS grp_big",
                     "CREATE VIEW grp_big AS SELECT g AS id, md5(g::text) AS h "
                     "FROM generate_series(1, 2000000) g",
                     f"GRANT SELECT ON grp_big TO {READER}")
    try:
        events, report = events_of(contract(tmp_path, "grp_big"), postgres.reader)
    finally:
        postgres.execute("DROP VIEW IF EXISTS grp_big")
    assert [r.status.value for r in report.results] == ["passed"] * 3
    steps = [event.step for event in events]
    assert "scan" in steps and "done" in steps
    assert "progress" not in steps  # the live display shows the step's elapsed time instead

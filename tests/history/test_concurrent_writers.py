"""Four runs writing one fresh SQLite store at the same moment all land, each exactly once:
the first creates the schema, the others wait for the write lock (`BEGIN IMMEDIATE` and the
busy timeout) instead of failing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.history.racing import race


def test_four_processes_at_once_all_land_once(place: Path) -> None:
    ids = race(place, "race.sqlite")
    assert len(set(ids)) == 4 and all(len(i) == 32 for i in ids)
    with sqlite3.connect(place / "race.sqlite") as connection:
        stored = sorted(r[0] for r in connection.execute("SELECT run_id FROM packata_runs"))
        per_run = connection.execute("SELECT run_id, count(*) FROM packata_rule_results "
                                     "GROUP BY run_id").fetchall()
        version = connection.execute("SELECT count(*), max(version) FROM "
                                     "packata_history_version").fetchone()
    assert stored == sorted(ids)
    assert sorted(count for _, count in per_run) == [7, 7, 7, 7]
    assert version == (1, 2)

"""Patterns are judged per engine (docs/semantics.md 3.3), measured on the live engines: the
catastrophic corpus makes MariaDB's PCRE2 give up (a wrong "no match" with a warning) and
runs at once on RE2 and PostgreSQL; real patterns run right on every engine."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import pytest
import sqlglot.expressions as exp
import yaml

from packata_sql.dialects import get_dialect
from packata_sql.dialects.regex import portable
from packata_sql.report import Status
from packata_sql.sessions.endpoint import Endpoint

from .test_differential_metrics import measured, measured_on

CORPUS = yaml.safe_load(
    (Path(__file__).parents[1] / "tests" / "catalog" / "pattern_corpus.yaml").read_text("utf-8")
)
TABLE = "patterns"


def attack(entry: dict[str, Any]) -> str:
    head, unit, times, tail = entry["attack"]
    return str(head) + str(unit) * int(times) + str(tail)


def mariadb_search(mysql: Any, pattern: str, text: str) -> tuple[int, list[str]]:
    """The MySQL dialect's own REGEXP on one text, with the warnings the server raised."""
    dialect = get_dialect("mysql")
    search = dialect.regex_search(exp.Literal.string(text), portable(pattern, dialect.regex_flavor))
    connection = mysql.connect()
    try:
        cursor = connection.cursor()
        cursor.execute(f"SELECT {dialect.render(search)}".replace("%", "%%"))
        found = cursor.fetchone()[0]
        cursor.execute("SHOW WARNINGS")
        return found, [str(row[2]) for row in cursor.fetchall()]
    finally:
        connection.close()


@pytest.mark.parametrize("entry", CORPUS["catastrophic"], ids=lambda e: e["pattern"][:30])
def test_catastrophic_corpus_hits_the_pcre_match_limit_on_mariadb(mysql, entry):
    found, warnings = mariadb_search(mysql, entry["pattern"], attack(entry))
    assert any("match limit" in warning for warning in warnings), warnings
    assert found == 0  # whatever the true answer: the reason MariaDB keeps the guard


@pytest.mark.parametrize("entry", [e for e in CORPUS["polynomial"] if e["attack"]],
                         ids=lambda e: e["pattern"][:30])
def test_polynomial_corpus_hits_the_pcre_match_limit_on_mariadb(mysql, entry):
    """No exponential blow-up, yet a short text (or a long run for two repetitions) takes
    PCRE2 past its match limit: the same texts keep a Java matcher busy without end."""
    found, warnings = mariadb_search(mysql, entry["pattern"], attack(entry))
    assert any("match limit" in warning for warning in warnings), warnings
    assert found == 0


@pytest.mark.parametrize("entry", CORPUS["real"], ids=lambda e: e["name"])
def test_real_patterns_stay_under_the_pcre_match_limit_on_mariadb(mysql, entry):
    found, warnings = mariadb_search(mysql, entry["pattern"], attack(entry))
    assert (found, warnings) == (0, [])


def run_rules(engine: str, request: Any, tmp_path: Path, columns: dict[str, list[str]],
              rules: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Runs `rules` (column → quality) on a table of text `columns` on the live engine."""
    dialect = get_dialect(engine)
    names = list(columns)
    rows = list(zip(*columns.values(), strict=True))
    text = {"duckdb": "VARCHAR", "sqlite": "TEXT", "postgres": "TEXT",
            "mysql": "VARCHAR(400) CHARACTER SET utf8mb4"}[engine]
    create = f"CREATE TABLE {TABLE} ({', '.join(f'{dialect.quote_identifier(n)} {text}' for n in names)})"
    if engine in ("duckdb", "sqlite"):
        path = tmp_path / f"{TABLE}.{engine}"
        connection: Any = duckdb.connect(str(path)) if engine == "duckdb" else sqlite3.connect(str(path))
        connection.execute(create)
        connection.executemany(f"INSERT INTO {TABLE} VALUES ({', '.join('?' for _ in names)})", rows)
        if engine == "sqlite":
            connection.commit()
        connection.close()
        return measured_on(Endpoint(engine, str(path)), tmp_path, TABLE, rules)
    values = ", ".join(
        "(" + ", ".join(dialect.render(exp.Literal.string(v)) for v in row) + ")" for row in rows
    )
    setup = [f"DROP TABLE IF EXISTS {TABLE}", create,
             f"INSERT INTO {TABLE} VALUES {values}".replace("%", "%%")]
    if engine == "postgres":
        setup.append(f"GRANT SELECT ON {TABLE} TO packata_ro")
    return measured(request.getfixturevalue(engine), tmp_path, TABLE, rules, setup=setup,
                    cleanup=[f"DROP TABLE IF EXISTS {TABLE}"])


@pytest.mark.parametrize("engine", ["duckdb", "sqlite", "postgres", "mysql"])
def test_real_patterns_run_right_on_every_engine(engine, request, tmp_path):
    values = sorted({v for e in CORPUS["real"] for v in (*e["valid"], *e["invalid"], attack(e))})
    rules, expected = [], {}
    for number, entry in enumerate(CORPUS["real"]):
        compiled = re.compile(entry["pattern"])
        assert all(compiled.search(v) for v in entry["valid"])
        assert not any(compiled.search(v) for v in (*entry["invalid"], attack(entry)))
        invalid = sum(1 for v in values if not compiled.search(v))
        rules.append({"id": f"real{number}", "metric": "invalidValues",
                      "arguments": {"pattern": entry["pattern"]}, "mustBe": invalid})
        expected[f"real{number}"] = (Status.PASSED, invalid)
    assert run_rules(engine, request, tmp_path, {"v": values}, {"v": rules}) == expected


# SQLite joins these engines once its registered function matches with RE2 (helper `hang`);
# until then its function refuses these patterns itself.
@pytest.mark.parametrize("engine", ["duckdb", "postgres"])
def test_catastrophic_corpus_runs_at_once_without_backtracking(engine, request, tmp_path):
    """One column per pattern holding its attack text: invalid is 0 when the text matches."""
    entries = CORPUS["catastrophic"]
    columns = {f"c{n}": [attack(e)] for n, e in enumerate(entries)}
    rules = {f"c{n}": [{"id": f"c{n}", "metric": "invalidValues",
                        "arguments": {"pattern": e["pattern"]}, "mustBe": 0 if e["matches"] else 1}]
             for n, e in enumerate(entries)}
    expected = {f"c{n}": (Status.PASSED, 0 if e["matches"] else 1) for n, e in enumerate(entries)}
    assert run_rules(engine, request, tmp_path, columns, rules) == expected


@pytest.mark.parametrize("entry", CORPUS["catastrophic"][:3], ids=lambda e: e["pattern"][:30])
def test_a_match_limit_warning_is_an_error_not_a_count(mysql, entry):
    """Should a pattern slip past the guard, MariaDB's "no match" with warning 1139 is not a
    measurement: the session ends the statement in error instead of returning the count."""
    from packata_sql.sessions.base import ProviderError, open_session

    dialect = get_dialect("mysql")
    search = dialect.regex_search(exp.Literal.string(attack(entry)),
                                  portable(entry["pattern"], dialect.regex_flavor))
    session = open_session(mysql.reader, trust_environment=False)
    try:
        with pytest.raises(ProviderError) as raised:
            session.fetch_row(f"SELECT {dialect.render(search)}", 30.0)
        assert (raised.value.category, raised.value.code) == ("provider-error", "1139")
        assert session.fetch_row("SELECT 1", 30.0) == (1,)  # the session goes on
    finally:
        session.close()

"""Attack round on the newest surfaces (issue 24.2, 24.5, 22), through the real program on
DuckDB and SQLite: `--samples` never reads a value classified anywhere above it or in any
spelling, prints one inert, bounded line per value and never drops a sample silently; the
`inspect:` hint, pasted into a real shell, runs exactly its rule and nothing else; Expressif
widths and digits that would exhaust the engine or the compiler are findings; starter and diff
output is one inert line per item."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
import subprocess
from pathlib import Path

import duckdb
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / ".venv" / "bin" / "packata-sql"
#: What a terminal or a CI log would act on.
ACTIVE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def packata(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PROGRAM), *args], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "COLUMNS": "400"}, cwd=cwd)


def contract(path: Path, objects: list[dict[str, object]]) -> Path:
    path.write_text(yaml.safe_dump({"apiVersion": "v3.1.0", "kind": "DataContract", "id": "atk",
                                    "version": "1.0.0", "status": "active", "schema": objects},
                                   allow_unicode=True), encoding="utf-8")
    return path


def invalid(name: str, **extra: object) -> dict[str, object]:
    return {"name": name, **extra, "quality": [
        {"metric": "invalidValues", "arguments": {"validValues": ["ok"]}, "mustBe": 0}]}


def samples(stderr: str) -> dict[str, list[str]]:
    """Each rule's sample lines: its head line, then its values."""
    found: dict[str, list[str]] = {}
    current = ""
    for line in stderr.splitlines():
        if line.startswith("packata-sql: samples of "):
            current, _, head = line.removeprefix("packata-sql: samples of ").partition(": ")
            found[current] = [head]
        elif line.startswith("  ") and current:
            found[current].append(line)
    return found


def key(*path: str) -> str:
    return "schema[t]" + "".join(f".properties[{p}]" for p in path) + ".quality[0]"


def test_a_value_below_a_classified_object_or_in_any_spelling_is_never_read(tmp_path):
    """A tag on an enclosing struct withholds every field under it; `Highly-Confidential`,
    ` PII `, `pii:email`, `3-restricted` and a mistyped `[PII]` withhold as `pii` does, also
    through another property naming the same column; `public` does not."""
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE t (id INTEGER, a STRUCT(b STRUCT(c VARCHAR, d VARCHAR)), "
                       "e VARCHAR, f VARCHAR, g VARCHAR, h VARCHAR, i VARCHAR)")
    connection.execute("INSERT INTO t VALUES (7, {'b': {'c': 'SECRET_C', 'd': 'SECRET_D'}}, "
                       "'SECRET_E', 'SECRET_F', 'SECRET_G', 'shown', 'SECRET_I')")
    connection.close()
    path = contract(tmp_path / "c.yaml", [{"name": "t", "properties": [
        {"name": "id", "primaryKey": True},
        {"name": "a", "logicalType": "object", "properties": [
            {"name": "b", "logicalType": "object", "tags": ["GDPR", "PII"], "properties": [
                invalid("c"), invalid("d", classification="public")]}]},
        invalid("e", classification="Highly-Confidential"),
        invalid("f", classification=" PII "),
        invalid("g", tags=["pii:email", "3-restricted"]),
        invalid("h", classification="public"),
        invalid("i", classification=["PII"]), invalid("i2", physicalName="i")]}])
    done = packata("check", str(path), "--url", f"duckdb:///{database}", "--progress", "none",
                   "--samples", "5")
    assert done.returncode == 1, done.stderr
    assert "SECRET" not in done.stderr + done.stdout
    shown = samples(done.stderr)
    assert shown[key("a", "b", "c")] == ["1 offending row; a.b.c withheld (tag pii)",
                                         "  a.b.c withheld × 1 (id 7)"]
    assert shown[key("a", "b", "d")][1] == "  a.b.d withheld × 1 (id 7)"  # `public` below `pii`
    assert shown[key("e")] == ["1 offending row; e withheld (classification highly-confidential)",
                               "  e withheld × 1 (id 7)"]
    assert shown[key("f")][0] == "1 offending row; f withheld (classification pii)"
    assert shown[key("g")][0] == "1 offending row; g withheld (tag pii:email)"
    assert shown[key("h")] == ["1 offending row", "  h 'shown' × 1 (id 7)"]
    assert shown[key("i")][1] == shown[key("i2")][1] == "  i withheld × 1 (id 7)"


def test_a_classified_key_and_a_row_rule_reading_a_classified_field_stay_unread(tmp_path):
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute('CREATE TABLE t (email VARCHAR, ssn VARCHAR, "select" VARCHAR)')
    connection.execute("INSERT INTO t VALUES ('alice@secret', 'SSN-1', 'x'), "
                       "('bob@secret', 'SSN-2', 'x')")
    connection.close()
    row_rule = {"id": "ssn-digits", "type": "custom", "engine": "expressif",
                "implementation": {"version": "1", "kind": "predicate", "scope": "row",
                                   "program": "[ssn] |? matches-regex(`^[0-9]+$`)"}}
    path = contract(tmp_path / "c.yaml", [{"name": "t", "quality": [row_rule], "properties": [
        {"name": "email", "primaryKey": True, "classification": "PII"},
        {"name": "ssn", "tags": ["sensitive"]}, invalid("select")]}])
    done = packata("check", str(path), "--url", f"duckdb:///{database}", "--progress", "none",
                   "--samples", "5")
    assert done.returncode == 1, done.stderr
    assert "secret" not in done.stderr + done.stdout and "SSN-" not in done.stderr + done.stdout
    shown = samples(done.stderr)
    assert shown["ssn-digits"] == ["2 offending rows; ssn withheld (tag sensitive); key email "
                                   "withheld (classification pii)", "  ssn withheld × 2 (email withheld)"]
    assert shown[key("select")] == ["2 offending rows; key email withheld (classification pii)",
                                    "  select 'x' × 2 (email withheld)"]


def test_hostile_values_are_one_inert_line_each_and_huge_ones_are_cut(tmp_path):
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE t (id INTEGER, s VARCHAR)")
    connection.executemany("INSERT INTO t VALUES (?, ?)", [
        (1, "\x1b]8;;http://evil\x07a\x1b[2J\u202eb\n::error::c\r\x85d"), (2, "y" * 100_000)])
    connection.close()
    path = contract(tmp_path / "c.yaml", [{"name": "t", "properties": [
        {"name": "id", "primaryKey": True}, invalid("s")]}])
    done = packata("check", str(path), "--url", f"duckdb:///{database}", "--progress", "none",
                   "--samples", "5")
    assert not ACTIVE.search(done.stderr)
    assert not re.search(r"^\s*::", done.stderr, re.MULTILINE)
    lines = samples(done.stderr)[key("s")]
    assert lines[0] == "2 offending rows" and len(lines) == 3
    assert "  s 'ab \\::error::c  d' × 1 (id 1)" in lines
    huge = next(line for line in lines if "yyy" in line)
    assert huge == "  s '" + "y" * 200 + "'… (100000 characters) × 1 (id 2)"


def test_sqlite_cells_that_are_not_utf8_are_sampled_not_dropped(tmp_path):
    """SQLite keeps any bytes as TEXT; the sample reads them with U+FFFD, where it used to
    fail silently (Could not decode to UTF-8)."""
    database = tmp_path / "w.sqlite"
    connection = sqlite3.connect(database)
    connection.execute('CREATE TABLE t (id INTEGER, "we""ird `c` ol" TEXT)')
    connection.execute("INSERT INTO t VALUES (1, CAST(X'66FF80' AS TEXT)), (2, 'ok')")
    connection.commit()
    connection.close()
    path = contract(tmp_path / "c.yaml", [{"name": "t", "properties": [
        {"name": "id", "primaryKey": True}, invalid('we"ird `c` ol')]}])
    done = packata("check", str(path), "--url", f"sqlite:///{database}", "--progress", "none",
                   "--samples", "5", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert samples(done.stderr)[key('we"ird `c` ol')] == [
        "1 offending row", "  we\"ird `c` ol 'f\ufffd\ufffd' × 1 (id 1)"]


HOSTILE_IDS = ["--url=duckdb:///elsewhere", "-", "$(touch PWNED1)", "`touch PWNED2`",
               "a'; touch PWNED3; '", "x|y&z;>PWNED4"]


def test_the_hint_pasted_into_a_shell_runs_its_rule_and_nothing_else(tmp_path):
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE t (s VARCHAR)")
    connection.execute("INSERT INTO t VALUES ('bad')")
    connection.close()
    rules = [{"id": rule, "metric": "invalidValues", "arguments": {"validValues": ["ok"]},
              "mustBe": 0} for rule in HOSTILE_IDS]
    # A property name (no id pattern) puts a line break, an escape and ` ::` into a key.
    odd = "p\nq\x1b[2J ::x's"
    path = contract(tmp_path / "c.yaml", [{"name": "t", "properties": [
        {"name": "s", "quality": rules}, {"name": odd, "physicalName": "s", "quality": [
            {"metric": "invalidValues", "arguments": {"validValues": ["ok"]}, "mustBe": 0}]}]}])
    keys = [*HOSTILE_IDS, f"schema[t].properties[{odd}].quality[0]"]
    url = f"duckdb:///{database}"
    table = packata("check", str(path), "--url", url, "--progress", "none").stdout
    hints = [line.split("inspect: ", 1)[1].rstrip(" │") for line in table.splitlines()
             if "inspect: " in line]
    assert len(hints) == len(keys)
    for hint, rule in zip(hints, keys, strict=True):
        command = hint.replace("packata-sql", shlex.quote(str(PROGRAM)), 1).replace(
            "…", f"{shlex.quote(str(path))} --url {shlex.quote(url)} --format json")
        done = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                              timeout=120, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
        assert done.returncode == 1, (rule, hint, done.stderr)
        assert [r["key"] for r in json.loads(done.stdout)["rules"]] == [rule], hint
        assert "samples of " in done.stderr
    assert not list(tmp_path.glob("PWNED*"))


def test_programs_that_would_exhaust_the_engine_or_the_compiler_are_findings(tmp_path):
    """`pad-left(1000000000, 0)` asked DuckDB for gigabytes per row (and its timeout took
    the whole scan's rules with it); `round(5000)` crashed the compiler (a 5001-digit
    literal); a 50000-character mask compiled for minutes. Each is a finding on its rule, and
    the other rules still measure."""
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE t (id INTEGER, s VARCHAR)")
    connection.execute("INSERT INTO t VALUES (1, 'a'), (2, NULL)")
    connection.close()

    def expression(rule: str, program: str) -> dict[str, object]:
        return {"id": rule, "type": "custom", "engine": "expressif", "mustBeLessThan": 5,
                "implementation": {"version": "1", "kind": "expression", "scope": "value",
                                   "program": program}}

    def predicate(rule: str, program: str) -> dict[str, object]:
        return {"id": rule, "type": "custom", "engine": "expressif",
                "implementation": {"version": "1", "kind": "predicate", "scope": "value",
                                   "program": program}}
    path = contract(tmp_path / "c.yaml", [{"name": "t", "properties": [
        {"name": "id", "logicalType": "integer", "primaryKey": True},
        {"name": "s", "logicalType": "string", "quality": [
            expression("pad", "pad-left(1000000000, 0) | length"),
            expression("pad-huge", "pad-center(99999999999999999999999, 0) | length"),
            expression("round", "length | round(5000)"),
            expression("mask", "text-to-mask(`" + "*" * 50_000 + "`) | length"),
            expression("trims", "without-whitespaces | " * 60 + "length"),
            expression("pads", "pad-left(3, 0) | " * 30 + "length"),
            predicate("ors", "positive" + " |OR positive" * 3000),
            predicate("braces", "{" * 500 + "positive" + "}" * 500),
            expression("fine", "pad-right(4, 0) | without-whitespaces | trim | lower | length")]}]}])
    done = packata("check", str(path), "--url", f"duckdb:///{database}", "--progress", "none",
                   "--format", "json", "--timeout", "60")
    assert done.returncode == 2, done.stderr  # skipped rules leave the run incomplete
    rules = {r["key"]: r for r in json.loads(done.stdout)["rules"]}
    for rule, most in (("pad", "from 0 to 10000"), ("pad-huge", "from 0 to 10000"),
                       ("round", "from 0 to 28"), ("mask", "at most 64 characters")):
        assert rules[rule]["status"] == "skipped"
        assert rules[rule]["diagnostic"]["code"] == "expressif-argument"
        assert most in rules[rule]["diagnostic"]["message"]
    # Nesting Python's parser or SQL generation would recurse through (a RecursionError ended
    # the whole run, exit 4), and pipes multiplying what they read (pad-left reads it 4 times).
    for rule in ("trims", "pads", "ors", "braces"):
        assert (rules[rule]["status"], rules[rule]["diagnostic"]["code"]) == \
            ("skipped", "expressif-too-deep"), rule
    assert (rules["fine"]["status"], rules["fine"]["value"]) == ("passed", 0)
    assert rules["schema[t].primaryKey"]["status"] == "passed"
    assert "expressif-argument" in packata("lint", str(path)).stdout


def test_starter_and_diff_lines_cannot_be_forged_by_a_name(tmp_path):
    """A table named `x\\n::error::…` or a field named `y\\n  breaking …` stays inside its one
    line on stderr (import) and in the text diff; the printed next step is shell-quoted."""
    ddl = tmp_path / "s.sql"
    ddl.write_text('CREATE TABLE "x\n::error::pwn" ("a b" INT PRIMARY KEY, "y\x1b[2J" TEXT);\n',
                   encoding="utf-8")
    imported = packata("import", "sql", str(ddl), "--dialect", "postgres", "-o", "my c.yaml",
                       cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    assert not ACTIVE.search(imported.stderr)
    assert not re.search(r"^\s*::", imported.stderr, re.MULTILINE)
    assert "next: packata-sql lint 'my c.yaml' && packata-sql check 'my c.yaml'" in imported.stderr
    assert packata("lint", "my c.yaml", cwd=tmp_path).returncode == 0
    old = yaml.safe_load((tmp_path / "my c.yaml").read_text(encoding="utf-8"))
    new = yaml.safe_load((tmp_path / "my c.yaml").read_text(encoding="utf-8"))
    new["schema"][0]["properties"].append(
        {"name": "z\n  breaking   field-removed          forged", "logicalType": "string"})
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new), encoding="utf-8")
    (tmp_path / "old.yaml").write_text(yaml.safe_dump(old), encoding="utf-8")
    text = packata("diff", "old.yaml", "new.yaml", cwd=tmp_path).stdout
    assert len(text.splitlines()) == 2, text  # the verdict and the one added field
    assert "forged" in text.splitlines()[1] and not re.search(r"^\s*::", text, re.MULTILINE)

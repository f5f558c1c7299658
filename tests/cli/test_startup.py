"""Start-up (issue 14, benchmarks/README.md): `check` parses the contract file once and shares
the parsed document between format detection, the loader and lint, and a run imports only what
it uses. Which modules load is asserted, never how long they take (benchmarks/startup.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from packata_sql.cli import main as cli

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: s\nversion: 1.0.0\nstatus: active\n"
CONTRACT = HEAD + textwrap.dedent("""\
    schema:
      - name: people
        quality:
          - {metric: rowCount, mustBeGreaterThan: 0}
        properties:
          - name: name
            logicalType: string
            required: true
            quality:
              - {metric: duplicateValues, mustBe: 0}
    """)


@pytest.fixture
def people(tmp_path: Path) -> tuple[Path, str]:
    database = tmp_path / "people.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE people (name VARCHAR)")
    connection.execute("INSERT INTO people VALUES ('ann'), ('bob')")
    connection.close()
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    return contract, f"duckdb:///{database}"


def parses_of(text: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every YAML parse of `text` from now on (all of packata-sql's YAML goes through
    libyaml's event parser, `yaml.parse`)."""
    seen: list[str] = []
    parse = yaml.parse

    def counting(stream: Any, *args: Any, **kwargs: Any) -> Any:
        if stream == text:
            seen.append("parse")
        return parse(stream, *args, **kwargs)

    monkeypatch.setattr(yaml, "parse", counting)
    return seen


@pytest.mark.parametrize("command", [
    ["check", "--format", "json", "--progress", "none"],
    ["lint"],
])
def test_the_contract_file_is_parsed_once(people, monkeypatch, capsys, command):
    contract, url = people
    seen = parses_of(CONTRACT, monkeypatch)
    arguments = [command[0], str(contract), *command[1:]]
    if command[0] == "check":
        arguments += ["--url", url]
    assert cli.main(arguments) == 0, capsys.readouterr()
    assert seen == ["parse"]


def test_a_check_compiles_the_contract_once(people, monkeypatch, capsys):
    """The compiler's findings printed first come from the plans the run then executes (the
    contract's own engine is the one the URL names); a misspelt metric is still printed."""
    import packata_sql.api as api_module

    contract, url = people
    contract.write_text(CONTRACT.replace("rowCount", "rowCont"), encoding="utf-8")
    compiled = []
    original = api_module.compile_contract

    def counting(*args: Any, **kwargs: Any) -> Any:
        compiled.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(api_module, "compile_contract", counting)
    cli.main(["check", str(contract), "--url", url, "--format", "json", "--progress", "none"])
    assert "did you mean 'rowCount'" in capsys.readouterr().err
    assert len(compiled) == 1


def test_check_still_lints_against_the_official_schema_from_the_one_parse(people, monkeypatch,
                                                                           capsys):
    contract, url = people
    broken = CONTRACT.replace("logicalType: string", "logicalType: strng")
    contract.write_text(broken, encoding="utf-8")
    seen = parses_of(broken, monkeypatch)
    assert cli.main(["check", str(contract), "--url", url, "--format", "json",
                     "--progress", "none"]) == 0
    assert seen == ["parse"]
    notice = capsys.readouterr().err
    assert f"lint: {contract}:12: ODCS 3.1.0 schema: 'strng' is not one of string" in notice
    assert "did you mean 'string'?" in notice


def imported(*arguments: str, exits: tuple[int, ...] = (0, 1)) -> set[str]:
    """The modules the real program imports (`-X importtime` lists each once, on stderr)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "packata_sql", *arguments],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode in exits, done.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


def test_help_imports_no_validator_engine_or_rich():
    modules = imported("--help")
    assert "packata_sql.cli.main" in modules
    assert not modules & {"jsonschema", "jsonschema_rs", "duckdb", "sqlglot", "rich"}


def test_a_duckdb_check_imports_no_pure_python_validator_and_no_rich(people):
    contract, url = people
    modules = imported("check", str(contract), "--url", url, "--format", "json",
                       "--progress", "none")
    assert {"packata_sql.cli.lint", "jsonschema_rs", "duckdb"} <= modules  # it did lint and run
    assert "jsonschema" not in modules  # ~0.1 s to import, where jsonschema_rs takes ~5 ms
    assert not any(m == "rich" or m.startswith("rich.") for m in modules)  # the table only
    assert not modules & {"sqlite3", "re2"}  # SQLite's session (sessions/sqlite.py) only


def test_a_server_url_is_read_without_importing_sqlalchemy(people):
    """`--url postgresql://…` is read by make_url's own pattern (sessions/endpoint.py): the
    import cost ≈ 0.15 s at every start. Nothing listens on port 9 here: the run stops at
    the connection, after the URL was read."""
    contract, _ = people
    modules = imported("check", str(contract), "--url", "postgresql://u@127.0.0.1:9/db",
                       "--format", "json", "--progress", "none", exits=(2,))
    assert {"packata_sql.sessions.endpoint", "psycopg"} <= modules
    assert not any(m == "sqlalchemy" or m.startswith("sqlalchemy.") for m in modules)


def test_the_console_entry_freezes_what_is_left_before_exiting(monkeypatch):
    """`run` exits with `main`'s code after gc.freeze(): the interpreter's last collections
    then trace nothing (≈ 0.1 s after a 1,000-rule check)."""
    import gc

    from packata_sql.cli import main as cli

    monkeypatch.setattr(cli, "main", lambda: 3)
    assert gc.get_freeze_count() == 0
    try:
        with pytest.raises(SystemExit) as exited:
            cli.run()
        assert exited.value.code == 3
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()

"""Typos around a database URL or a secret: the real `packata-sql` binary exits 3 with a usage
error that never repeats the password, and says where the URL goes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

SENTINEL = "S3ntinel-pw-9c1e"
BINARY = str(Path(sys.executable).with_name("packata-sql"))
URL = f"postgresql://u:{SENTINEL}@127.0.0.1:1/db"


def packata(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def contract(tmp_path: Path) -> str:
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "f", "version": "1.0.0",
                "status": "active",
                "schema": [{"name": "probe", "quality": [{"metric": "rowCount", "mustBe": 1}]}]}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return str(path)


TYPOS = {
    # name: (arguments with {c} for the contract, what the error says)
    "url missing a slash": (["check", "{c}", "--url", f"postgresql:/u:{SENTINEL}@h/db"],
                            "cannot be read"),
    "url missing the colon": (["check", "{c}", "--url", f"postgresql//u:{SENTINEL}@h/db"],
                              "cannot be read"),
    "url as doctor's contract": (["doctor", URL], "pass it with --url"),
    "url as check's contract": (["check", URL], "pass it with --url"),
    "forgotten --url": (["check", "{c}", URL], "a database URL goes after --url"),
    "url as --server": (["check", "{c}", "--server", URL], "pass it with --url"),
    "url as the command": ([URL], "invalid choice"),
    "password as a choice": (["check", "{c}", "--format", SENTINEL], "invalid choice"),
    "ambiguous option with a value": (["check", "{c}", f"--s={SENTINEL}"], "ambiguous option"),
    "mysql client habit": (["check", "{c}", f"-p{SENTINEL}"], "unrecognized arguments"),
    "unknown option with a value": (["check", "{c}", f"--password={SENTINEL}"],
                                    "unrecognized arguments"),
    "param without '='": (["check", "{c}", "--url", "duckdb:///w.duckdb", "--param", SENTINEL],
                          "has no '='"),
    "param name not an identifier": (["check", "{c}", "--url", "duckdb:///w.duckdb", "--param",
                                      f"{SENTINEL}=1"], "not an identifier"),
    "url in --dialect": (["compile", "{c}", "--dialect", URL], "pass it with --url"),
    "url as --output": (["check", "{c}", "--output", URL], "pass it with --url"),
}


@pytest.mark.parametrize("typo", sorted(TYPOS))
def test_typo_never_echoes_the_password(typo, contract):
    arguments, says = TYPOS[typo]
    done = packata(*(a.replace("{c}", contract) for a in arguments))
    assert done.returncode == 3, done.stderr
    assert says in done.stderr
    assert SENTINEL not in done.stdout + done.stderr
    assert "S3ntinel" not in done.stdout + done.stderr


def test_own_words_stay_readable_in_argument_errors(contract):
    choice = packata("check", contract, "--format", "xml")  # a word, not a secret: shown
    assert "invalid choice 'xml' (one of: table, json, junit, markdown, github)" in choice.stderr
    secret = packata("check", contract, "--format", SENTINEL)
    assert ("invalid choice (the value is not shown: it may hold a password) (one of: table, "
            "json, junit, markdown, github)") in secret.stderr
    unknown = packata("check", contract, "--urll", "x")
    assert "unrecognized arguments: --urll (not shown" in unknown.stderr


@pytest.mark.parametrize(("arguments", "says"), [
    (["check", "{c}", "--url", URL, "--category", "constrain"],
     "argument --category: invalid choice 'constrain', did you mean 'constraint'? "
     "(one of: constraint, quality, sla)"),
    (["check", "{c}", "--url", URL, "--format", "jsn"],
     "argument --format: invalid choice 'jsn', did you mean 'json'?"),
    (["chekc", "{c}", "--url", URL], "invalid choice 'chekc', did you mean 'check'?"),
])
def test_a_misspelt_choice_is_shown_with_the_closest_one(arguments, says, contract):
    """The typed word is shown when it is close to a choice (a typo, not a secret); the URL
    typed in its right place earns no hint about where URLs go."""
    done = packata(*(a.replace("{c}", contract) for a in arguments))
    assert done.returncode == 3
    assert says in done.stderr
    assert "goes after --url" not in done.stderr and SENTINEL not in done.stderr


def test_an_unrelated_argument_error_earns_no_url_hint():
    done = packata("schema", "snapshot", "--url", URL)
    assert done.returncode == 3
    assert "the following arguments are required: --object" in done.stderr
    assert "goes after --url" not in done.stderr and SENTINEL not in done.stderr


def test_a_url_password_is_warned_about_without_being_shown(contract):
    done = packata("check", contract, "--url", URL, "--format", "json")
    assert done.returncode == 2
    assert "the database URL holds a password" in done.stderr
    assert "PACKATA_PASSWORD" in done.stderr
    assert SENTINEL not in done.stdout + done.stderr
    quiet = packata("check", contract, "--url", "postgresql://u@127.0.0.1:1/db",
                    env={"PACKATA_PASSWORD": SENTINEL})
    assert "holds a password" not in quiet.stderr
    assert SENTINEL not in quiet.stdout + quiet.stderr


@pytest.mark.parametrize(("url", "says", "not_said"), [
    (URL, "set PACKATA_PASSWORD, or use ~/.pgpass (the password", "~/.my.cnf"),
    (f"mysql://u:{SENTINEL}@127.0.0.1:1/db", "set PACKATA_PASSWORD, or use ~/.my.cnf", "pgpass"),
    (f"sc://127.0.0.1:1/;token={SENTINEL}", "holds a token, which shell history and the process "
     "list keep; set PACKATA_PASSWORD (the token is not shown)", "pgpass"),
])
def test_the_url_secret_warning_names_what_applies_to_the_engine(contract, url, says, not_said):
    """Issue 24.3: a hint names the variable or file that applies, not every engine's."""
    done = packata("check", contract, "--url", url, "--format", "json", "--timeout", "5")
    assert says in done.stderr and not_said not in done.stderr
    assert SENTINEL not in done.stdout + done.stderr


def test_paths_that_merely_contain_at_signs_or_drives_are_not_urls(tmp_path):
    folder = tmp_path / "team@v2"
    folder.mkdir()
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "f", "version": "1.0.0",
                "status": "active",
                "schema": [{"name": "probe", "quality": [{"metric": "rowCount", "mustBe": 1}]}]}
    contract = folder / "c.yaml"
    contract.write_text(yaml.safe_dump(document), encoding="utf-8")
    done = packata("compile", str(contract), "--dialect", "duckdb")
    assert done.returncode == 0, done.stderr

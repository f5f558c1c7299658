"""Issue 14.9: packaging papercuts. The project metadata uses the SPDX license string (no
setuptools deprecation banner), the CLI's runtime needs are runtime dependencies, and
`make demo` installs only the CLI and treats the demo's deliberate exit 1 as success."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_license_is_an_spdx_string_and_lint_needs_are_runtime_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "Apache-2.0"
    assert any(r.startswith("setuptools>=77") for r in project["build-system"]["requires"])
    runtime = " ".join(project["project"]["dependencies"])
    assert "jsonschema-rs" in runtime and "rich" in runtime


def fake_venv(tmp_path: Path, exit_code: int) -> Path:
    """A .venv whose stamps are up to date and whose packata-sql exits with `exit_code`."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for name, body in (("python", "exit 0"), ("packata-sql", f"echo report; exit {exit_code}")):
        script = venv / "bin" / name
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(0o755)
    for stamp in (".installed", ".installed-cli"):
        (venv / stamp).touch()
        later = (ROOT / "pyproject.toml").stat().st_mtime + 10
        os.utime(venv / stamp, (later, later))
    return venv


@pytest.mark.parametrize(("cli_exit", "make_exit"), [(0, 0), (1, 0), (2, 2)])
def test_make_demo_succeeds_on_the_deliberate_failures_only(tmp_path, cli_exit, make_exit):
    venv = fake_venv(tmp_path, cli_exit)
    done = subprocess.run(["make", "-s", "demo", f"VENV={venv}"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode != 0) == (make_exit != 0), done.stdout + done.stderr
    assert "report" in done.stdout
    assert ("deliberate failures" in done.stdout) == (cli_exit == 1)


def test_make_demo_installs_the_cli_without_extras():
    plan = subprocess.run(["make", "-n", "-B", "demo", "VENV=/nonexistent-venv"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60).stdout
    installs = [line for line in plan.splitlines() if "pip install" in line and "-e" in line]
    assert installs == ["/nonexistent-venv/bin/python -m pip install --quiet --quiet -e ."], plan


def test_first_make_demo_prints_no_install_banner(tmp_path):
    """A fresh virtual environment, as a new user's first `make demo`: the report and the
    explanation, no setuptools notice framed in `!!` (pip's errors would still show)."""
    env = {**os.environ, "PACKATA_SQL_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(["make", "-s", "demo", f"VENV={tmp_path / 'venv'}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "deliberate failures" in done.stdout
    assert "Editable install" not in done.stderr and "!!" not in done.stderr, done.stderr

"""The README's contract example runs as shown, against a warehouse file beside it, and the
examples of the docs/ pages (the JSON report, constraints, drift, policy, pipeline) print what
they say."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CLI_PAGE = ROOT / "docs" / "cli.md"
FORMATS_PAGE = ROOT / "docs" / "formats.md"


def _readme_contract(readme: str, folder: Path) -> None:
    """The README's contract as orders.yaml, beside the warehouse it describes: 5000 orders,
    25 malformed e-mails, 100 empty statuses."""
    example = re.search(r"## A contract\n\n```yaml\n(.*?)```", readme, re.DOTALL)
    assert example is not None
    (folder / "orders.yaml").write_text(example.group(1), encoding="utf-8")
    connection = duckdb.connect(str(folder / "warehouse.duckdb"))
    connection.execute(
        "CREATE TABLE orders AS SELECT i AS order_id, "
        "CASE WHEN i % 200 = 0 THEN 'broken' ELSE 'u' || i || '@x.org' END AS email, "
        "CASE WHEN i % 50 = 0 THEN '' ELSE 'open' END AS status FROM range(5000) AS t(i)"
    )
    connection.close()


def test_readme_contract_runs(tmp_path):
    _readme_contract(README.read_text(encoding="utf-8"), tmp_path)
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check",
                           str(tmp_path / "orders.yaml"), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    report = json.loads(done.stdout)
    statuses = [(r["key"], r["status"]) for r in report["rules"]]
    assert statuses == [
        ("schema[orders].quality[0]", "passed"),
        ("schema[orders].properties[order_id].quality[0]", "passed"),
        ("email_format", "passed"),
        ("schema[orders].properties[status].quality[0]", "failed"),
        # The schema's own declarations become constraint rules (answered from the catalog).
        ("schema[orders].properties[order_id].logicalType", "passed"),
        ("schema[orders].properties[email].logicalType", "passed"),
        ("schema[orders].properties[status].logicalType", "passed"),
    ]
    assert done.returncode == 1


def test_readme_shows_the_real_table(tmp_path):
    """The table in the README is what the program prints for the README's contract (the
    duration normalised, trailing spaces dropped)."""
    text = README.read_text(encoding="utf-8")
    shown = re.search(r"<!-- readme-table -->\n```\n(.*?)```", text, re.DOTALL)
    assert shown is not None
    _readme_contract(text, tmp_path)
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", "orders.yaml", "--url",
                           "duckdb:///warehouse.duckdb"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "COLUMNS": "100"})
    printed = re.sub(r"· \d+\.\d\d s$", "· 0.05 s", done.stdout, flags=re.M)
    assert [line.rstrip() for line in printed.splitlines()] == shown.group(1).splitlines()


def _untimed(text: str) -> str:
    return re.sub(r'("started_at": |"observed_at": |"elapsed_ms": )("[^"]*"|\d+)', r"\1_", text)


def test_readme_shows_the_real_json_report(tmp_path):
    """docs/cli.md's JSON example is what its documented command prints for the README's
    contract and warehouse (times normalised)."""
    shown = re.search(r"<!-- readme-json -->\n```sh\n(.*?)\n```\n\n```json\n(.*?)```",
                      CLI_PAGE.read_text(encoding="utf-8"), re.DOTALL)
    assert shown is not None
    command = shlex.split(shown.group(1))
    assert command[:2] == ["packata-sql", "check"]
    _readme_contract(README.read_text(encoding="utf-8"), tmp_path)
    done = subprocess.run([sys.executable, "-m", "packata_sql", *command[1:]], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert _untimed(done.stdout) == _untimed(shown.group(2))


def test_readme_has_an_install_line_and_no_outside_links():
    text = README.read_text(encoding="utf-8")
    assert re.search(r"^pipx install \.", text, re.M)
    # Links stay in the page or in docs/ (tests/test_docs.py checks that each one resolves).
    assert not re.search(r"\]\((?!#|docs/)[^)]*\)", text)
    assert "https://" not in text and "http://" not in text


HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: readme\nversion: 1.0.0\nstatus: active\n"


def _block(title: str, language: str) -> str:
    """The first `language` code block under the docs/formats.md heading `title`."""
    text = FORMATS_PAGE.read_text(encoding="utf-8")
    section = text[text.index(f"## {title}"):]
    found = re.search(rf"```{language}\n(.*?)```", section, re.DOTALL)
    assert found is not None
    return found.group(1)


def _check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=120)


def test_readme_constraint_example_counts(tmp_path):
    (tmp_path / "orders.yaml").write_text(HEAD + _block("Constraints", "yaml"), encoding="utf-8")
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE orders (order_id INTEGER, line INTEGER, email VARCHAR,"
                       " amount DECIMAL(10, 2), status VARCHAR)")
    connection.execute("""INSERT INTO orders VALUES
        (1, 1, 'a@b.io', 10, 'open'), (1, 2, 'a@b.io', 100, 'done'), (2, 1, NULL, -5, 'open'),
        (2, 1, 'not-an-email', 1, NULL), (NULL, 1, 'longer@mail.example', 1, 'lost'),
        (3, 1, 'x y@z.io', 2, 'done')""")
    connection.close()
    done = _check("check", str(tmp_path / "orders.yaml"), "--url", f"duckdb:///{database}",
                  "--format", "json")
    values = {r["key"].removeprefix("schema[orders]."): r["value"]
              for r in json.loads(done.stdout)["rules"] if r["status"] == "failed"}
    p = "properties"
    assert values == {
        f"{p}[email].required": 1, f"{p}[email].unique": 1,
        f"{p}[email].logicalTypeOptions.maxLength": 1, f"{p}[email].logicalTypeOptions.format": 2,
        f"{p}[amount].logicalTypeOptions.minimum": 1,
        f"{p}[amount].logicalTypeOptions.exclusiveMaximum": 1, f"{p}[status].enum": 1,
        "primaryKey": 2,
    }
    assert done.returncode == 1


def test_readme_drift_example(tmp_path):
    database = tmp_path / "warehouse.duckdb"
    url = f"duckdb:///{database}"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE orders (order_id INTEGER, status VARCHAR)")
    connection.close()
    baseline = tmp_path / "baseline.json"
    baseline.write_text(_check("schema", "snapshot", "--url", url, "--object", "orders").stdout,
                        encoding="utf-8")
    connection = duckdb.connect(str(database))
    connection.execute("ALTER TABLE orders DROP COLUMN status")
    connection.execute("ALTER TABLE orders ADD COLUMN note VARCHAR NOT NULL DEFAULT ''")
    connection.close()
    contract = tmp_path / "orders.yaml"
    contract.write_text(HEAD + "schema:\n  - name: orders\n", encoding="utf-8")
    done = _check("check", str(contract), "--url", url, "--baseline", str(baseline),
                  "--format", "json")
    drift = json.loads(done.stdout)["rules"][0]
    assert drift["changes"] == json.loads(_block("Schema drift", "json"))
    assert done.returncode == 1
    said = re.search(r"`(false: [^`]*)`", FORMATS_PAGE.read_text(encoding="utf-8"))
    assert said is not None
    markdown = _check("check", str(contract), "--url", url, "--baseline", str(baseline),
                      "--format", "markdown").stdout.replace("\u00a0", " ")
    assert f"| {' '.join(said.group(1).split())}<br>expected " in markdown


def _orders(path: Path) -> str:
    connection = duckdb.connect(str(path))
    connection.execute("CREATE TABLE orders (id INTEGER, status VARCHAR, amount DECIMAL(10, 2))")
    connection.execute("INSERT INTO orders VALUES (1, 'new', 10), (2, 'closed', 0), "
                       "(2, 'new', -1), (NULL, 'open', 5)")
    connection.close()
    return f"duckdb:///{path}"


def test_readme_policy_example(tmp_path):
    (tmp_path / "policy.json").write_text(_block("A JSON quality policy", "json"), "utf-8")
    done = _check("check", str(tmp_path / "policy.json"), "--url", _orders(tmp_path / "w.duckdb"),
                  "--format", "json")
    report = json.loads(done.stdout)
    assert [(r["key"], r["status"], r["value"]) for r in report["rules"]] == [
        ("non-empty", "passed", 4), ("columns", "passed", True), ("id-shape", "failed", 1),
        ("id-present", "failed", 1),
        ("id-unique", "failed", 1), ("amount-range", "failed", 1), ("known-status", "failed", 1),
    ]
    assert report["declaration"]["version"] == "monthly-import-v1"
    assert done.returncode == 1


def test_readme_pipeline_example(tmp_path):
    (tmp_path / "pipeline.yaml").write_text(_block("Pipeline `data_quality` rules", "yaml"),
                                            "utf-8")
    done = _check("check", str(tmp_path / "pipeline.yaml"), "--url",
                  _orders(tmp_path / "w.duckdb"), "--format", "json")
    report = json.loads(done.stdout)
    assert [(r["key"], r["status"], r["value"]) for r in report["rules"]] == [
        ("bounded_volume", "passed", 4), ("known_status", "passed", 1),
        ("positive_amount", "failed", 1), ("one_row_per_id", "failed", 1),
    ]
    assert done.returncode == 1


def test_the_api_example_runs_as_written(tmp_path):
    """The README's Python example (the same text in docs/api.md) runs verbatim beside the
    README's contract and warehouse, and prints what docs/api.md says it prints."""
    readme = README.read_text(encoding="utf-8")
    api_page = (README.parent / "docs" / "api.md").read_text(encoding="utf-8")
    block = r"<!-- api-example -->\n```python\n(.*?)```"
    example = re.search(block, readme, re.DOTALL)
    documented = re.search(block + r"\n\nprints\n\n```\n(.*?)```", api_page, re.DOTALL)
    assert example is not None and documented is not None
    assert example.group(1) == documented.group(1)
    _readme_contract(readme, tmp_path)
    done = subprocess.run([sys.executable, "-c", example.group(1)], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == documented.group(2)

"""`compile --format sql` is for reading: each object's fused scan and each rule's generated SQL
laid out by sqlglot (whitespace only: the same tokens as the SQL that runs), catalog rules said
to need no SQL; `--format json` keeps the one-line SQL for tools. Real program for the CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlglot.tokens import Token

from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import COMPILE_DIALECTS, get_dialect
from packata_sql.plans.compiler import compile_contract
from packata_sql.plans.document import plan_document

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "contract.yaml"
CONTRACT = textwrap.dedent("""\
    apiVersion: v3.1.0
    kind: DataContract
    id: x
    version: 1.0.0
    status: active
    schema:
      - name: orders
        quality:
          - {metric: rowCount, mustBeGreaterThan: 0}
        properties:
          - name: id
            logicalType: integer
            primaryKey: true
          - name: email
            logicalType: string
            required: true
            logicalTypeOptions: {maxLength: 12}
    """)


def packata(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "packata_sql", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "COLUMNS": "100"})


def _tokens(sql: str, dialect: str) -> list[tuple[object, str]]:
    tokenizer = get_dialect(dialect).sqlglot_name or None
    import sqlglot

    found: list[Token] = sqlglot.tokenize(sql, read=tokenizer)
    return [(token.token_type, token.text) for token in found]


@pytest.mark.parametrize("dialect", COMPILE_DIALECTS)
def test_laid_out_sql_has_the_tokens_of_the_sql_that_runs(dialect):
    engine = get_dialect(dialect)
    contract = load_odcs(str(GOLDEN))
    compiled = compile_contract(contract, engine)
    flat = plan_document(contract, compiled, engine)
    laid_out = plan_document(contract, compiled, engine, pretty=True)
    pairs = [(a["sql"], b["sql"]) for a, b in zip(flat["scans"], laid_out["scans"], strict=True)]
    pairs += [(a["sql"], b["sql"]) for a, b in zip(flat["rules"], laid_out["rules"], strict=True)
              if a["sql"] is not None and a.get("metric") is not None]
    assert pairs
    for runs, readable in pairs:
        assert "\n" not in runs
        assert "\n" in readable
        assert _tokens(readable, dialect) == _tokens(runs, dialect)
    scan = laid_out["scans"][0]["sql"]
    aliases = re.findall(r'^.*AS ["`\[]?m(\d+)["`\]]?,?$', scan, re.M)  # one aggregate a line
    assert [int(a) for a in aliases] == list(range(1, len(laid_out["scans"][0]["rules"]) + 1))


def test_compile_sql_lays_out_every_statement_and_names_catalog_rules(tmp_path):
    contract = tmp_path / "orders.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    done = packata("compile", str(contract), "--dialect", "postgresql", "--format", "sql")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "not compiled: planned" not in text
    catalog = "-- rule schema[orders].properties[email].logicalType (schema[0].properties[1]" \
              ".logicalType)\n-- answered from the catalog (no SQL): reads no rows\n"
    assert catalog in text
    scan = text.split("-- object orders: one fused scan for 4 rule(s)\n", 1)[1]
    legend, statement = scan.split("SELECT\n", 1)
    assert legend.splitlines() == [
        "--   m1: schema[orders].quality[0]",
        "--   m2: schema[orders].properties[email].required",
        "--   m3: schema[orders].properties[email].logicalTypeOptions.maxLength",
        "--   m4: schema[orders].primaryKey",
    ]
    head = statement.split(";\n", 1)[0]
    assert head.startswith('  COUNT(*) AS "packata_rows",\n  COUNT(*) AS "m1",\n'
                           '  COUNT(*) - COUNT("email") AS "m2",\n  COUNT(\n')
    assert head.endswith('  COUNT(*) - COUNT(DISTINCT "id") AS "m4"\nFROM "orders"')
    # The rule the audit found on one line: laid out like the others.
    maximum = text.split("logicalTypeOptions.maxLength (schema[0].properties[1]."
                         "logicalTypeOptions.maxLength)\n", 1)[1].split(";\n", 1)[0]
    assert maximum.startswith("SELECT\n  COUNT(*) AS \"packata_rows\",\n")
    assert 'CHAR_LENGTH("email") <= 12' in maximum
    tools = json.loads(packata("compile", str(contract), "--dialect", "postgresql",
                               "--format", "json").stdout)
    assert all("\n" not in scan["sql"] for scan in tools["scans"])
    assert all("\n" not in (rule["sql"] or "") for rule in tools["rules"])

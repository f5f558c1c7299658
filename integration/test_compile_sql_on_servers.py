"""`compile --format sql` lays SQL out through sqlglot; on PostgreSQL and MariaDB each laid-out
statement returns what the plan's own SQL returns (the golden contract's odd names, quotes,
backslashes and patterns)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden" / "contract.yaml"
TABLE = "it's \"odd\" `tbl` [x]"


def compiled(dialect: str, fmt: str) -> str:
    return subprocess.run([sys.executable, "-m", "packata_sql", "compile", str(GOLDEN),
                           "--dialect", dialect, "--format", fmt], capture_output=True,
                          text=True, timeout=120, check=True).stdout


def test_laid_out_sql_answers_like_the_plan(server):
    quoted = ('"' + TABLE.replace('"', '""') + '"' if server.engine == "postgres"
              else "`" + TABLE.replace("`", "``") + "`")
    try:
        _compare(server, quoted)
    finally:
        server.execute(f"DROP TABLE IF EXISTS {quoted}")


def _compare(server, quoted: str) -> None:
    flag = "BOOLEAN"
    server.execute(f"DROP TABLE IF EXISTS {quoted}",
                   f"CREATE TABLE {quoted} ({_q(server, 'Mixed Case')} VARCHAR(40), "
                   f"{_q(server, 'select')} INTEGER, flag {flag})",
                   f"INSERT INTO {quoted} VALUES ('Ab1', 1, true), ('', 2, false), "
                   f"('back\\\\slash', NULL, NULL), ('Ab1', -3, true)"
                   if server.engine == "mysql" else
                   f"INSERT INTO {quoted} VALUES ('Ab1', 1, true), ('', 2, false), "
                   f"('back\\slash', NULL, NULL), ('Ab1', -3, true)")
    # The nested property: jsonb on PostgreSQL, JSON on MariaDB; one row holds an address.
    nested = _q(server, 'cust "info"' if server.engine == "mysql" else 'cust ""info""')
    address = '{"a b\'\'s `x`": {"city.名": "Munich", "zip \\"code\\"": 999}}'
    if server.engine == "mysql":
        address = address.replace("\\", "\\\\")  # MariaDB reads backslash escapes in '…'
    server.execute(f"ALTER TABLE {quoted} ADD COLUMN {nested} "
                   f"{'JSONB' if server.engine == 'postgres' else 'JSON'}",
                   f"UPDATE {quoted} SET {nested} = '{address}' WHERE {_q(server, 'select')} = 1")
    dialect = "postgres" if server.engine == "postgres" else "mysql"
    plan = json.loads(compiled(dialect, "json"))
    statements = [s for s in re.split(r";\n", compiled(dialect, "sql"))]
    laid_out = [s for s in ("\n".join(line for line in st.splitlines()
                                      if not line.startswith("--")).strip()
                            for st in statements) if s]
    originals = [scan["sql"] for scan in plan["scans"]] + [r["sql"] for r in plan["rules"] if r["sql"]]
    assert len(laid_out) == len(originals)

    def run(sql: str) -> list[object]:
        text = sql.replace("%%", "%")  # the driver's escaping; server.execute passes no parameters
        return [tuple(row) for row in server.execute(text)]

    for readable, original in zip(laid_out, originals, strict=True):
        assert run(readable) == run(original)


def _q(server, name: str) -> str:
    return f'"{name}"' if server.engine == "postgres" else f"`{name}`"

"""`packata-sql demo`: a DuckDB warehouse with deliberate defects, checked by a shipped contract."""

from __future__ import annotations

import os
import shlex
import sys
from importlib import resources
from pathlib import Path

DEMO_VERSION = 1
_BUILD = """
CREATE TABLE customers AS
SELECT
    i AS customer_id,
    CASE WHEN i % 211 = 0 THEN NULL
         WHEN i % 997 = 0 THEN 'user' || i || '@example'
         ELSE 'user' || i || '@example.com' END AS email,
    CASE WHEN i % 1499 = 0 THEN 'XX'
         WHEN i % 1733 = 0 THEN 'uk'
         ELSE ['DE', 'FR', 'GB', 'US', 'NL'][1 + i % 5] END AS country,
    CASE WHEN i % 53 = 0 THEN ''
         WHEN i % 89 = 0 THEN 'N/A'
         WHEN i % 7 = 0 THEN 'inactive'
         ELSE 'active' END AS status,
    DATE '2020-01-01' + CAST(i % 1800 AS INTEGER) AS signup_date
FROM range(1, 200001) AS t(i);

CREATE TABLE orders AS
SELECT
    CASE WHEN i % 5000 = 0 THEN i - 1 ELSE i END AS order_id,
    1 + (i * 7919) % 200000 AS customer_id,
    CASE WHEN i % 10007 = 0 THEN NULL
         ELSE CAST(((i * 37) % 50000) / 100 AS DECIMAL(12, 2)) END AS amount,
    ['EUR', 'USD', 'GBP'][1 + i % 3] AS currency
FROM range(1, 300001) AS t(i);
"""


def cache_dir() -> Path:
    root = os.environ.get("PACKATA_SQL_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "packata-sql"
    )
    return Path(root)


def build_warehouse(path: Path) -> None:
    """Builds the file beside its final name and renames it, so a half-built file never exists."""
    import duckdb

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    connection = duckdb.connect(str(partial))
    try:
        connection.execute(_BUILD)
        connection.execute("CHECKPOINT")
    finally:
        connection.close()
    os.replace(partial, path)


def warehouse(rebuild: bool = False) -> Path:
    path = cache_dir() / f"demo-v{DEMO_VERSION}.duckdb"
    if rebuild or not path.exists():
        print(f"building the demo warehouse at {path} …", file=sys.stderr)
        build_warehouse(path)
    return path


def contract_path() -> Path:
    return Path(str(resources.files("packata_sql.demo").joinpath("contract.yaml")))


def user_contract(database: Path) -> Path:
    """A copy of the shipped contract beside the warehouse, its server pointing at the real
    file, so the next command a user copies (`packata-sql check FILE`) works as printed."""
    text = contract_path().read_text(encoding="utf-8")
    copy = database.parent / "demo-contract.yaml"
    written = text.replace("database: demo.duckdb", f"database: {database.name}")
    if not copy.exists() or copy.read_text(encoding="utf-8") != written:
        copy.write_text(written, encoding="utf-8")
    return copy


def program() -> str:
    """How to call packata-sql in a command the user copies: the bare name when it is on PATH,
    else the script beside this Python (`.venv/bin/packata-sql` after `make demo`)."""
    import shutil

    beside = Path(sys.executable).parent / "packata-sql"
    on_path = shutil.which("packata-sql")
    if on_path and (not beside.exists() or Path(on_path).resolve() == beside.resolve()):
        return "packata-sql"
    return shlex.quote(str(beside)) if beside.exists() else f"{shlex.quote(sys.executable)} -m packata_sql"

"""docs/expressif.md lists exactly what `supported()` renders on each live engine, and each
refusal with the reason the renderer gives: the table between the markers is rebuilt here from
the code and must equal the page."""

from __future__ import annotations

import re
from pathlib import Path

from packata_sql.authored.expressif.catalogue import OPERATIONS
from packata_sql.catalog.expressif import supported

PAGE = Path(__file__).resolve().parents[2] / "docs" / "expressif.md"
ENGINES = {"duckdb": "DuckDB", "sqlite": "SQLite", "postgres": "PostgreSQL", "mysql": "MariaDB",
           "spark": "Spark"}
_MARKERS = re.compile(r"<!-- supported:start -->\n(.*?)<!-- supported:end -->", re.S)


def _long_names(kind: str, name: str) -> str:
    for entry_kind, _family, entry_name, aliases, _parameters in OPERATIONS:
        if entry_kind == kind and entry_name == name:
            return ", ".join(f"`{alias}`" for alias in aliases)
    return ""


def supported_table() -> str:
    per_engine = {engine: supported(engine) for engine in ENGINES}
    keys = sorted(set().union(*per_engine.values()),
                  key=lambda k: (k.startswith("accumulator:"), k.startswith("predicate:")
                                 or k in _predicates(), k.rpartition(":")[2]))
    lines = ["| operation | long names | kind | " + " | ".join(ENGINES.values()) + " |",
             "|---|---|---|" + "---|" * len(ENGINES)]
    for key in keys:
        kind, _, name = key.rpartition(":")
        kind = kind or ("predicate" if key in _predicates() else "function")
        cells = [per_engine[engine].get(key, "no") for engine in ENGINES]
        lines.append(f"| `{name}` | {_long_names(kind, name)} | {kind} | " + " | ".join(cells)
                     + " |")
    return "\n".join(lines) + "\n"


def _predicates() -> set[str]:
    from packata_sql.catalog.expressif_functions import FUNCTIONS
    from packata_sql.catalog.expressif_predicates import PREDICATES

    return {name for name in PREDICATES if name not in FUNCTIONS}


def test_the_page_lists_what_the_code_supports() -> None:
    found = _MARKERS.search(PAGE.read_text(encoding="utf-8"))
    assert found is not None, "docs/expressif.md has no supported:start/end markers"
    assert found.group(1) == supported_table(), "rebuild the table: print(supported_table())"


def test_the_page_counts_the_operations() -> None:
    text = PAGE.read_text(encoding="utf-8")
    everywhere = set.intersection(*(set(supported(engine)) for engine in ENGINES))
    assert f"{len(everywhere)} operations render on all five live engines" in text

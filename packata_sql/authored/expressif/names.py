"""Long and short names of the catalogue, and what the subset refuses before any SQL."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from packata_sql.authored.expressif.catalogue import OPERATIONS
from packata_sql.authored.expressif.errors import ExpressifError
from packata_sql.spelling import closest

OperationKind = Literal["function", "predicate", "accumulator"]


class Resolved(Enum):
    """Which kinds of operation a position in the program may name."""

    FUNCTION = ("function",)
    PREDICATE = ("predicate",)
    FUNCTION_OR_ACCUMULATOR = ("accumulator", "function", "predicate")


def _index() -> dict[tuple[str, str], tuple[str, str]]:
    """(kind, folded written name) → (canonical name, family)."""
    index: dict[tuple[str, str], tuple[str, str]] = {}
    for kind, family, name, aliases, _parameters in OPERATIONS:
        for written in (name, *aliases):
            index.setdefault((kind, written.casefold()), (name, family))
    return index


_INDEX = _index()
#: Families whose every operation reads files, runs a callable or builds a collection: a cell
#: of a warehouse has no such thing, and the specification forbids IO outright.
_FORBIDDEN = {"io": "reads the file system (IO is unavailable to a data-quality rule)"}
_NO_CELL = {"array": "works on arrays, which a table cell is not",
            "record": "builds records, which a table cell is not"}
_NO_CELL_NAMES = {"tuple-at", "tuple-first", "tuple-second", "any-to-any", "value-to-value"}


def resolve(written: str, expected: Resolved) -> tuple[str, OperationKind]:
    """The canonical name and kind of an operation as written; ExpressifError when the name is
    unknown, forbidden (IO) or outside what a cell can hold."""
    folded = written.casefold()
    for kind in expected.value:
        found = _INDEX.get((kind, folded))
        if found is None:
            continue
        name, family = found
        if family in _FORBIDDEN:
            raise ExpressifError("expressif-forbidden", f"'{written}' {_FORBIDDEN[family]}", name)
        if name == "field":
            return name, "function"
        if kind != "accumulator" and (family in _NO_CELL or name in _NO_CELL_NAMES):
            why = _NO_CELL.get(family, "works on tuples or dynamic values, which a cell is not")
            raise ExpressifError("expressif-unsupported",
                                 f"'{written}' {why}; it has no SQL rendering", name)
        assert kind in ("function", "predicate", "accumulator")
        return name, kind
    other = [k for k in ("function", "predicate", "accumulator")
             if k not in expected.value and (k, folded) in _INDEX]
    if other:
        raise ExpressifError("expressif-syntax",
                             f"'{written}' is a {other[0]}, not a {' or '.join(expected.value)}, "
                             "where it is written", written)
    known = sorted({w for (k, w) in _INDEX if k in expected.value})
    match = closest(written, known)
    hint = f"; did you mean '{match}'?" if match else ""
    raise ExpressifError("expressif-unknown",
                         f"'{written}' is not an Expressif {' or '.join(expected.value)}{hint}",
                         written)


def family_of(name: str, kind: str) -> str:
    found = _INDEX.get((kind, name.casefold()))
    return found[1] if found else ""

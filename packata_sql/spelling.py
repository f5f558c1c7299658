"""Did-you-mean: the closest known name to a misspelt one (metrics, keys, objects, columns).

At the ground of the package: declarations, the compiler and the run all suggest names.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

_CUTOFF = 0.6


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """The existing name most like `name` (case-insensitively), if one is reasonably close."""
    by_folded: dict[str, str] = {}
    for candidate in candidates:
        by_folded.setdefault(candidate.casefold(), candidate)
    found = difflib.get_close_matches(name.casefold(), list(by_folded), n=1, cutoff=_CUTOFF)
    return by_folded[found[0]] if found else None


def closest_hint(kind: str, name: str, candidates: Iterable[str]) -> str:
    """Names the missing thing, and the closest one the session can see as the likely fix."""
    match = closest(name, candidates)
    missing = f"no {kind} '{name}'"
    return missing if match is None else f"{missing}; did you mean '{match}'?"

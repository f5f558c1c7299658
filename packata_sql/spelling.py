"""Did-you-mean: the closest known name to a misspelt one (metrics, keys, objects, columns).

At the ground of the package: declarations, the compiler and the run all suggest names.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

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


def choice_hint(kind: str, name: str, choices: Sequence[str], aliases: Iterable[str] = ()) -> str:
    """A name outside a closed set: the closest one (or alias), then every one (never cut:
    the right spelling may be the last of a long list)."""
    close = suggestion(name, [*choices, *aliases])
    return f"unknown {kind} '{name}'{close} (one of: {', '.join(choices)})"


def suggestion(name: str, candidates: Iterable[str]) -> str:
    """`; did you mean 'x'?` for the closest candidate, or nothing."""
    match = closest(name, candidates)
    return f"; did you mean '{match}'?" if match is not None else ""


def is_pattern(text: str) -> bool:
    """A shell-style glob (`orders.*`, `schema[orders]*`), as `--select` takes them."""
    return any(mark in text for mark in "*?")


def matching(pattern: str, names: Iterable[str]) -> list[str]:
    """The names a glob matches, in their own order: `*` any run, `?` one character; case
    matters, as rule keys are compared exactly. `[` is literal, as rule keys hold brackets."""
    import re

    expression = re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c)
                                    for c in pattern), re.DOTALL)
    return [name for name in names if expression.fullmatch(name)]

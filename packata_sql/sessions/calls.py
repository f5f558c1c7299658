"""Calls followed into function bodies, before authored SQL runs.

The deny-list reads only the rule's own text, so an ordinary function can carry a denied call
past it (a PL/pgSQL function that runs its text argument with `EXECUTE`). Here every function
the rule calls, in every overload the engine could pick, is followed into its body,
transitively: a body that calls a denied function, runs a denied statement or dynamic SQL, a
definer function whose owner can do more than read, or a body that cannot be read refuses the
rule, naming the chain (`public.wrap → public.su_def`). The walk is bounded in depth and count,
so a recursive or huge function graph cannot hang the run. Each engine supplies the catalog
look-up; the reading of bodies is shared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from packata_sql.authored.scanner import scan
from packata_sql.authored.side_effects import called, denied_anywhere
from packata_sql.dialects import Dialect

MAX_DEPTH = 8
MAX_ROUTINES = 200
#: Words that run SQL text built at run time, where no lexer can see it.
DYNAMIC = frozenset({"execute", "prepare"})


@dataclass(frozen=True)
class Call:
    """A called name as the engine reads it, with its schema when written."""

    schema: str | None
    name: str


@dataclass(frozen=True)
class Routine:
    """One function or procedure a call can reach.

    `body`: its source text; None when the login cannot read it. `opaque`: compiled code (a
    built-in or C function), a leaf: the deny-list judged its name where it was called.
    `definer`: why the identity it runs as may do more than read (None: it runs as the
    caller, or as an owner that only reads)."""

    key: str
    shown: str
    body: str | None
    opaque: bool = False
    definer: str | None = None
    language: str = "sql"
    readable_language: bool = True


#: The routines `calls` can reach; `nested` is true for calls written inside a body (they may
#: resolve anywhere, as the body may change its search path).
Lookup = Callable[[Sequence[Call], bool], list[tuple[Call, Routine]]]


@dataclass(frozen=True)
class Refusal:
    chain: tuple[str, ...]
    reason: str

    def __str__(self) -> str:
        return f"{' → '.join(self.chain)}: {self.reason}"


def calls_in(text: str, dialect: Dialect) -> list[Call]:
    """Every call in the text's code, each once, folded as the engine folds unquoted names."""
    found = called(text, scan(text, dialect.lexical), dialect.lexical)
    return list(dict.fromkeys(Call(schema, name) for schema, name in found))


def body_problem(body: str, dialect: Dialect) -> str | None:
    """Why a body cannot be trusted to only read: a denied call or statement, dynamic SQL."""
    for hit in denied_anywhere(body, scan(body, dialect.lexical), dialect.lexical,
                               dialect.deny, DYNAMIC):
        if hit.name.lower() in DYNAMIC:
            return f"runs dynamic SQL ({hit.name.upper()})"
        return f"calls {hit.name}()" if hit.kind == "function" else f"runs {hit.name}"
    return None


def follow(text: str, dialect: Dialect, lookup: Lookup, *, max_depth: int = MAX_DEPTH,
           max_routines: int = MAX_ROUTINES) -> Refusal | None:
    """The first reason the rule's calls cannot be trusted, or None when every body reached
    only reads. Breadth first, one look-up per level."""
    seen: set[str] = set()
    level: list[tuple[tuple[str, ...], Call]] = [((), call) for call in calls_in(text, dialect)]
    depth = 0
    while level:
        depth += 1
        chains: dict[Call, list[tuple[str, ...]]] = {}
        for chain, call in level:
            chains.setdefault(call, []).append(chain)
        found = lookup(list(chains), depth > 1)
        level = []
        for call, routine in found:
            for chain in chains.get(call, []):
                here = (*chain, routine.shown)
                if routine.key in seen:
                    continue
                refusal = _judge(routine, here, dialect)
                if refusal is not None:
                    return refusal
                seen.add(routine.key)
                if len(seen) > max_routines:
                    return Refusal(here, f"calls more than {max_routines} functions, more than "
                                         "packata-sql follows")
                if routine.opaque or routine.body is None:
                    continue
                nested = calls_in(routine.body, dialect)
                if nested and depth >= max_depth:
                    return Refusal(here, f"calls functions nested deeper than {max_depth} "
                                         "levels, more than packata-sql follows")
                level += [(here, next_call) for next_call in nested]
    return None


def _judge(routine: Routine, chain: tuple[str, ...], dialect: Dialect) -> Refusal | None:
    if routine.definer is not None:
        return Refusal(chain, routine.definer)
    if routine.opaque:
        return None  # its name is judged by the deny-list where it is called
    if not routine.readable_language:
        return Refusal(chain, f"its body is in language {routine.language}, which packata-sql "
                              "cannot follow")
    if routine.body is None:
        return Refusal(chain, "the login cannot read its body, so what it does is unknown; "
                              "let the login read routine bodies to run this rule")
    problem = body_problem(routine.body, dialect)
    return None if problem is None else Refusal(chain, problem)

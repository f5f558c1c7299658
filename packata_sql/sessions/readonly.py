"""The one place that decides a run's read-only level and whether authored SQL may run.

Each engine session reports facts about its login (what the provider enforces, whether the
grants are SELECT-only, the escape routes it found); `decide` turns them into the level the
report shows. The runner, the sessions and `doctor` all read the same `Decision`, so the level
can never say more than the facts allow.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

ENFORCED = "enforced"
CREDENTIALS = "credentials"
TRUSTED = "trusted"
#: The engine keeps the generated library SQL read-only, but the login can escape it through
#: the routes found: authored SQL (and library SQL on objects that are such routes) is refused.
LIBRARY_ONLY = "library-only"


@dataclass(frozen=True)
class LoginFacts:
    """What a session found out about its connection, before anything runs.

    `provider_enforced`: the engine itself keeps every statement read-only (DuckDB file opened
    read-only, SQLite `mode=ro`, a PostgreSQL read-only transaction).
    `select_only`: the login's grants were verified to allow reading only.
    `routes`: names (never secrets) of what lets the login escape the engine's read-only mode.
    `unguarded`: nothing keeps the session read-only at all (an in-memory DuckDB).
    `definer_objects`: objects that run with someone else's rights and lead to a route; library
    rules on them are refused like authored SQL.
    `hardening`: advice (names only, with the statement to run) about defaults that are no
    route but worth closing; it never changes the level.
    """

    provider_enforced: bool
    select_only: bool = False
    routes: tuple[str, ...] = ()
    unguarded: bool = False
    definer_objects: frozenset[tuple[str, ...]] = frozenset()
    hardening: tuple[str, ...] = ()


@dataclass(frozen=True)
class Decision:
    level: str
    authored_sql: bool
    routes: tuple[str, ...]
    definer_objects: frozenset[tuple[str, ...]] = frozenset()
    hardening: tuple[str, ...] = ()

    @property
    def authored_label(self) -> str:
        return "allowed" if self.authored_sql else "refused"

    def object_refused(self, segments: tuple[str, ...]) -> bool:
        """Library rules on a definer object with a route run only when the host trusts it."""
        return not self.authored_sql and _matches(segments, self.definer_objects)


class NotReadOnly(Exception):
    """No read-only session can be had and the host did not accept an unguarded one."""


def decide(facts: LoginFacts, *, trust_environment: bool) -> Decision:
    """The level a run gets: `trusted` whenever the host had to accept a risk, `enforced` or
    `credentials` only when no escape route was found, `library-only` otherwise. Hardening
    advice is carried along unchanged: it is no route."""
    return replace(_level(facts, trust_environment), hardening=facts.hardening)


def _level(facts: LoginFacts, trust_environment: bool) -> Decision:
    routes = tuple(dict.fromkeys(facts.routes))
    if facts.unguarded:
        if not trust_environment:
            raise NotReadOnly
        return Decision(TRUSTED, True, routes)
    if routes:
        if trust_environment:
            return Decision(TRUSTED, True, routes)
        return Decision(LIBRARY_ONLY, False, routes, facts.definer_objects)
    if facts.provider_enforced:
        return Decision(ENFORCED, True, routes)
    if facts.select_only:
        return Decision(CREDENTIALS, True, routes)
    if trust_environment:
        return Decision(TRUSTED, True, routes)
    return Decision(LIBRARY_ONLY, False, ("no-read-only-guarantee",))


def _matches(segments: tuple[str, ...], objects: frozenset[tuple[str, ...]]) -> bool:
    """An object is named by its last segments (schema.name or name); names compare exactly,
    and case-insensitively as the engines that fold names would."""
    wanted = tuple(s.lower() for s in segments)
    for candidate in objects:
        tail = tuple(s.lower() for s in candidate)
        if wanted[-len(tail):] == tail or tail[-len(wanted):] == wanted:
            return True
    return False

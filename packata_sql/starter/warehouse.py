"""`init`: the objects a warehouse holds, read through the read-only session's catalog (column
facts only, no rows). Names, globs and whole schemas resolve against what the session can see;
an object that cannot be read stops the run with its name and the closest one, so a starter
contract never leaves a requested object out silently."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, replace

import sqlglot.expressions as exp

from packata_sql import engines
from packata_sql.dialects import Dialect, get_dialect
from packata_sql.dialects.facts import ColumnFact
from packata_sql.errors import Unreachable, UsageError
from packata_sql.sessions.base import ProviderError, Session, open_session
from packata_sql.sessions.endpoint import NETWORK_ENGINES, Endpoint
from packata_sql.spelling import closest_hint
from packata_sql.starter.document import StarterObject, column_property

_GLOB = frozenset("*?[")
PROBE_LIMIT_S = 60.0


@dataclass(frozen=True)
class ReadObject:
    """One object's column facts, and whether it held a row when read (None: not known)."""

    name: str
    facts: tuple[ColumnFact, ...]
    has_rows: bool | None


@dataclass(frozen=True)
class ReadObjects:
    """What `init` read: the endpoint (its schema as the contract will declare it), the
    schema to write in the server entry, and each object in request order."""

    endpoint: Endpoint
    schema: str | None
    objects: tuple[ReadObject, ...]


def starter_object(read: ReadObject, dialect: Dialect) -> StarterObject:
    """One object read by `init`: its columns, and `rowCount > 0` where it held a row."""
    obj = StarterObject(read.name, [column_property(f, dialect) for f in read.facts])
    if read.has_rows:
        obj.entry["quality"] = [{"metric": "rowCount", "mustBeGreaterThan": 0}]
    else:
        obj.notes.append("no rowCount rule: the object was empty when read" if read.has_rows
                         is False else "no rowCount rule: its rows could not be probed")
    return obj


def is_glob(name: str) -> bool:
    return any(c in _GLOB for c in name)


def read_objects(endpoint: Endpoint, names: Sequence[str], schema: str | None) -> ReadObjects:
    """The column facts of every object `names` (exact names or globs) designates in `schema`
    (default: the URL's, else the session's current one); no names and a schema: every table
    and view in it."""
    spec = engines.spec(endpoint.engine)
    if schema is not None:
        if not spec.url_schema and endpoint.engine not in NETWORK_ENGINES:
            raise UsageError(f"--schema: {spec.title} has no schemas; name the objects with "
                             "--object")
        endpoint = replace(endpoint, schema=(*endpoint.schema[:-1], schema))
    if not names and schema is None:
        raise UsageError("init needs --object NAME (repeatable, globs such as 'orders*') or "
                         "--schema NAME (every table and view in it)")
    wanted = tuple(names) or ("*",)
    try:
        session = open_session(endpoint, trust_environment=False)
    except ProviderError as error:
        raise Unreachable(f"cannot connect to {endpoint.describe()}: {error}") from None
    try:
        found = _resolve(session, endpoint, wanted)
        read = tuple(ReadObject(name, _facts(session, endpoint, name),
                                _has_rows(session, endpoint, name)) for name in found)
        written = _schema(endpoint, found, session)
    finally:
        session.close()
    return ReadObjects(endpoint, written, read)


def _visible(session: Session, endpoint: Endpoint) -> list[str]:
    try:
        return session.objects(endpoint.declared_schema)
    except ProviderError as error:
        where = endpoint.declared_schema or "the current schema"
        raise UsageError(f"cannot list the objects of {where}: {error}") from None


def _resolve(session: Session, endpoint: Endpoint, wanted: Sequence[str]) -> list[str]:
    """Exact names as given, globs expanded against the visible objects, each object once."""
    found: list[str] = []
    visible: list[str] | None = None
    for name in wanted:
        if not is_glob(name):
            matches = [name]
        else:
            visible = _visible(session, endpoint) if visible is None else visible
            matches = [n for n in visible if fnmatch.fnmatchcase(n, name)]
            if not matches:
                where = endpoint.declared_schema or "the current schema"
                shown = ", ".join(visible[:20]) + (", …" if len(visible) > 20 else "")
                raise UsageError(f"no table or view in {where} matches '{name}' (there: "
                                 f"{shown or 'none'})")
        found += [n for n in matches if n not in found]
    return found


def _facts(session: Session, endpoint: Endpoint, name: str) -> tuple[ColumnFact, ...]:
    try:
        facts = session.column_facts((*endpoint.schema, name))
    except ProviderError as error:
        problem: object = error
    else:
        if facts:
            return facts
        problem = "no columns"
    try:
        hint = closest_hint("object", name, session.objects(endpoint.declared_schema))
    except ProviderError:
        hint = f"no object '{name}'"
    raise UsageError(f"cannot read the columns of {name}: {problem}; {hint}")


def _has_rows(session: Session, endpoint: Endpoint, name: str) -> bool | None:
    """Whether the object holds a row, from a scan stopped at the first one, so the starter's
    `rowCount > 0` is written only where the object already satisfies it."""
    dialect = get_dialect(endpoint.engine)
    first = exp.select(exp.alias_(exp.Literal.number(1), "one")).from_(
        dialect.table((*endpoint.schema, name))).limit(1)
    probe = exp.select(exp.Count(this=exp.Star())).from_(first.subquery("probe"))
    try:
        return bool(session.fetch_row(dialect.render(probe), PROBE_LIMIT_S)[0])
    except ProviderError:
        return None


def _schema(endpoint: Endpoint, names: Sequence[str], session: Session) -> str | None:
    """The schema to write: the URL's (or --schema); else, where ODCS requires one (a server
    engine whose database is not its schema: PostgreSQL), the session's current schema if it
    holds every object."""
    if endpoint.schema:
        return endpoint.schema[-1]
    spec = engines.spec(endpoint.engine)
    if endpoint.engine not in NETWORK_ENGINES or spec.schema_is_database:
        return None
    if session.schema:
        visible = set(session.objects(session.schema))
        if all(name in visible for name in names):
            return str(session.schema)
    raise UsageError(f"cannot tell which schema holds {', '.join(names)}: give it in the URL "
                     "(`?schema=NAME`) or with --schema")

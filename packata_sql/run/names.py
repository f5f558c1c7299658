"""Object and column names as the engine would read them (issue 10.3).

Contracts often name a table as it was written in unquoted DDL (`Air_Quality` for a table
PostgreSQL stores as `air_quality`). When the contract gives no physicalName and the exact name
does not exist, the name is read as the engine reads an unquoted identifier, and the report
says so; when nothing matches, the diagnostic names the closest object the session can see."""

from __future__ import annotations

from collections.abc import Mapping

from packata_sql.contracts.model import Finding, Level
from packata_sql.dialects import Dialect
from packata_sql.sessions.base import Interrupted, ProviderError, Session
from packata_sql.spelling import closest_hint


def unquoted_reading(dialect: Dialect, name: str, *, exact: bool) -> str | None:
    """The other name to try for a missing `name`, or None (a physicalName is used as written,
    and engines that find objects case-insensitively already tried it)."""
    if exact:
        return None
    folded = dialect.unquoted(name)
    return folded if folded != name else None


def find_column(dialect: Dialect, columns: Mapping[str, object], name: str, *,
                exact: bool) -> str | None:
    """The object's column a declared name refers to: the same name, the same name under the
    engine's case rules, or the unquoted reading when no physicalName was given."""
    if name in columns:
        return name
    same = next((c for c in columns if dialect.same_name(c, name)), None)
    if same is not None:
        return same
    folded = unquoted_reading(dialect, name, exact=exact)
    return folded if folded is not None and folded in columns else None


def resolved_note(kind: str, declared: str, actual: str, dialect: Dialect,
                  source_path: str) -> Finding:
    """A warning that a name was read as the engine reads it unquoted."""
    return Finding(
        "name-resolved",
        f"{kind} '{declared}' does not exist; read as '{actual}', as {dialect.name} reads the "
        "unquoted name (give physicalName to pin it)",
        source_path, Level.WARNING,
    )


def object_hint(session: Session, segments: tuple[str, ...]) -> str:
    """The missing object named, with the closest one the session can see in its schema."""
    try:
        visible = session.objects(segments[-2] if len(segments) > 1 else None)
    except (ProviderError, Interrupted):
        visible = []
    return closest_hint("object", ".".join(segments), visible) if not visible else \
        closest_hint("object", segments[-1], visible)


def query_object_hint(session: Session, sql: str,
                      declared: tuple[str, ...] | None) -> str | None:
    """For an authored query the engine says reads a missing object: the first table it
    names that the session cannot see, with the closest one it can (CTE names are no
    tables). When the query does not parse (some engines' parameter markers), the rule's
    declared object (`declared`) is looked for instead. None when every table is there."""
    import sqlglot
    import sqlglot.expressions as exp

    try:
        tree = sqlglot.parse_one(sql, read=session.dialect.sqlglot_name)
    except sqlglot.errors.SqlglotError:
        tree = None
    if tree is not None:
        ctes = {cte.alias_or_name.casefold() for cte in tree.find_all(exp.CTE)}
        named = [tuple(part for part in (table.catalog, table.db, table.name) if part)
                 for table in tree.find_all(exp.Table)
                 if table.name and table.name.casefold() not in ctes]
    else:
        named = [declared] if declared else []
    for segments in named:
        try:
            visible = session.objects(segments[-2] if len(segments) > 1 else None)
        except (ProviderError, Interrupted):
            return None
        name = segments[-1]
        readings = {name, session.dialect.unquoted(name)}
        if not any(session.dialect.same_name(seen, reading)
                   for seen in visible for reading in readings):
            return object_hint(session, segments)
    return None

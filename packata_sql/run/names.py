"""Object and column names as the engine would read them (issue 10.3).

Contracts often name a table as it was written in unquoted DDL (`Air_Quality` for a table
PostgreSQL stores as `air_quality`). When the contract gives no physicalName and the exact name
does not exist, the name is read as the engine reads an unquoted identifier, and the report
says so; when nothing matches, the diagnostic names the closest object the session can see."""

from __future__ import annotations

from collections.abc import Mapping

from packata_sql.contracts.model import Finding, Level
from packata_sql.dialects import Dialect


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

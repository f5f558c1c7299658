"""What lets a MySQL/MariaDB login do more than read, found before anything runs.

Every read-only mode there is escapable, so only the login's reach counts: privileges beyond
SELECT in `SHOW GRANTS` (FILE, PROXY, SUPER and every write), roles it can `SET ROLE` to (a
SELECT-only login cannot read a role's grants, so each counts), and views and routines running
as a `DEFINER` other than the login (the login cannot read the definer's grants either, and a
definer view over a definer function wrote files for a SELECT-only login). Each route is
reported by name; grant lines, which can carry password hashes, never are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from packata_sql.sessions.calls import Call, Routine

_GRANT = re.compile(r"^GRANT\s+(.+?)\s+ON\s+", re.IGNORECASE | re.DOTALL)
_ROLE_GRANT = re.compile(r"^GRANT\s+((?:`[^`]*`(?:@`[^`]*`)?\s*,?\s*)+)\s+TO\s+",
                         re.IGNORECASE | re.DOTALL)
_QUOTED = re.compile(r"`((?:[^`]|``)*)`(?:@`(?:[^`]|``)*`)?")
_HARMLESS = {"SELECT", "USAGE", "SHOW VIEW"}
_SYSTEM_DEFINERS = {"mariadb.sys@localhost", "mysql.sys@localhost",
                    "mysql.infoschema@localhost", "mysql.session@localhost"}
_DEFINER_OBJECTS = """
SELECT 'view', table_schema, table_name, definer FROM information_schema.views
WHERE security_type = 'DEFINER'
UNION ALL
SELECT LOWER(routine_type), routine_schema, routine_name, definer
FROM information_schema.routines WHERE security_type = 'DEFINER'
"""


def write_privileges(grants: Sequence[str]) -> list[str]:
    """Privileges beyond SELECT in `SHOW GRANTS` lines, and the roles granted to the login."""
    found: list[str] = []
    for line in grants:
        text = line.strip()
        match = _GRANT.match(text)
        if match is None:
            roles = _ROLE_GRANT.match(text)
            if roles is None:
                found.append("unrecognised grant")
            else:
                found += [f"role {name.replace('``', '`')}"
                          for name in _QUOTED.findall(roles.group(1))]
            continue
        for privilege in match.group(1).split(","):
            name = re.sub(r"\s*\(.*\)$", "", privilege.strip()).upper()
            if name not in _HARMLESS:
                found.append(name)
    return list(dict.fromkeys(found))


def _account(definer: str) -> str:
    return definer.replace("`", "").replace("'", "").lower()


def definer_routes(rows: Sequence[Sequence[Any]], login: str
                   ) -> tuple[list[str], frozenset[tuple[str, ...]]]:
    """Rows of (kind, schema, name, definer) visible to the login: those running as somebody
    else are routes, and a view among them is an object library rules must not read."""
    me = _account(login)
    routes: list[str] = []
    objects: set[tuple[str, ...]] = set()
    for kind, schema, name, definer in rows:
        account = _account(str(definer))
        if account == me or account in _SYSTEM_DEFINERS:
            continue
        routes.append(f"definer {kind} {schema}.{name} (definer {account})")
        objects.add((str(schema), str(name)))
    return routes, frozenset(objects)


# The routines a call can reach: in its database when written, else (for the rule's own text)
# the current database, else (inside a body) any database. The body is NULL when the login may
# not read it (MariaDB shows it to the definer and to logins with SELECT on mysql.proc).
_ROUTINES = """
SELECT routine_schema, routine_name, routine_type, routine_definition, security_type, definer
FROM information_schema.routines
WHERE LOWER(routine_name) IN ({names})
ORDER BY routine_schema, routine_name, routine_type
"""


def routines(cursor: Any, calls: Sequence[Call], nested: bool) -> list[tuple[Call, Routine]]:
    """The stored functions and procedures each call can reach, with their bodies."""
    if not calls:
        return []
    names = sorted({call.name.lower() for call in calls})
    cursor.execute(_ROUTINES.format(names=", ".join(["%s"] * len(names))), names)
    rows = cursor.fetchall()
    cursor.execute("SELECT CURRENT_USER(), DATABASE()")
    login, database = cursor.fetchall()[0]
    me = _account(str(login))
    found: list[tuple[Call, Routine]] = []
    for schema, name, kind, body, security, definer in rows:
        account = _account(str(definer))
        runs_as_other = str(security).upper() == "DEFINER" and account != me
        routine = Routine(
            key=f"{schema}.{name}.{kind}".lower(), shown=f"{schema}.{name}",
            body=None if body is None else str(body),
            definer=(f"runs as definer {account}, whose grants the login cannot read"
                     if runs_as_other else None))
        for call in calls:
            if call.name.lower() != str(name).lower():
                continue
            where = call.schema if call.schema is not None else (None if nested else database)
            if where is None or str(where).lower() == str(schema).lower():
                found.append((call, routine))
    return found


def inspect(cursor: Any) -> tuple[list[str], frozenset[tuple[str, ...]]]:
    cursor.execute("SHOW GRANTS")
    routes = write_privileges([str(row[0]) for row in cursor.fetchall()])
    cursor.execute("SELECT CURRENT_USER()")
    login = str(cursor.fetchall()[0][0])
    cursor.execute(_DEFINER_OBJECTS)
    definers, objects = definer_routes(cursor.fetchall(), login)
    return routes + definers, objects

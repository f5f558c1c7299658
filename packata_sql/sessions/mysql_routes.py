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


def inspect(cursor: Any) -> tuple[list[str], frozenset[tuple[str, ...]]]:
    cursor.execute("SHOW GRANTS")
    routes = write_privileges([str(row[0]) for row in cursor.fetchall()])
    cursor.execute("SELECT CURRENT_USER()")
    login = str(cursor.fetchall()[0][0])
    cursor.execute(_DEFINER_OBJECTS)
    definers, objects = definer_routes(cursor.fetchall(), login)
    return routes + definers, objects

"""What lets a PostgreSQL login escape a read-only transaction, found before anything runs.

A read-only transaction stops table writes, not what happens outside the transaction: server
files and programs, other connections (dblink, foreign servers), replication slots,
configuration reloads. A login reaches those through roles it can become (`SET ROLE`,
`set_config('role', …)`, direct, chained or NOLOGIN), role attributes, EXECUTE on such
functions, and `SECURITY DEFINER` functions that run as a more powerful owner. Each route is
reported by name only. Large-object writers other than the file ones (`lo_create`, `lowrite`,
…) are transactional: the session's write check and the rollback undo them. WAL messages
(`pg_logical_emit_message`, granted to PUBLIC by default) are no route but hardening advice:
the deny-list refuses a direct call, and a transactional message assigns a transaction id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from packata_sql.sessions.calls import DYNAMIC, MAX_ROUTINES, Call, Routine

#: Predefined roles whose members act outside the transaction.
RISKY_ROLES = ("pg_read_server_files", "pg_write_server_files", "pg_execute_server_program",
               "pg_signal_backend")
#: Functions with effects a rollback does not undo (or that read server files).
RISKY_FUNCTIONS = (
    "dblink", "dblink_exec", "dblink_connect", "dblink_connect_u", "dblink_send_query",
    "dblink_open", "pg_file_write", "pg_file_rename", "pg_file_unlink", "pg_file_sync",
    "pg_logdir_ls", "lo_import", "lo_export", "pg_read_file",
    "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "pg_reload_conf", "pg_rotate_logfile",
    "pg_switch_wal", "pg_create_restore_point", "pg_promote",
    "pg_replication_origin_create", "pg_replication_origin_advance",
)
# Replication-slot functions are executable by PUBLIC but check the REPLICATION attribute,
# which `role_routes` reports.
#: Side effects PostgreSQL itself allows in a read-only transaction and grants to PUBLIC by
#: default: not routes (a direct call is refused by the deny-list, a transactional message
#: assigns a transaction id and the statement check refuses it), but worth revoking.
HARDENING_FUNCTIONS = ("pg_logical_emit_message",)

_ROLES = """
SELECT r.rolname, r.rolname = session_user, r.rolsuper, r.rolreplication, r.rolbypassrls
FROM pg_catalog.pg_roles r
WHERE pg_catalog.pg_has_role(session_user, r.oid, 'MEMBER')
ORDER BY r.rolname
"""
# Owners (`o`) that can do more than read: superuser, file/program roles, or write or create.
# pg_catalog is left out: only superusers write its tables, and the UPDATE on pg_settings that
# PostgreSQL grants to PUBLIC is `SET`, which the session's setting check refuses.
_POWERFUL_OWNER = """(o.rolsuper OR o.rolreplication OR o.rolbypassrls
       OR pg_catalog.pg_has_role(o.oid, 'pg_write_server_files', 'MEMBER')
       OR pg_catalog.pg_has_role(o.oid, 'pg_read_server_files', 'MEMBER')
       OR pg_catalog.pg_has_role(o.oid, 'pg_execute_server_program', 'MEMBER')
       OR pg_catalog.has_database_privilege(o.oid, pg_catalog.current_database(), 'CREATE')
       OR EXISTS (SELECT 1 FROM pg_catalog.pg_namespace s
                  WHERE pg_catalog.has_schema_privilege(o.oid, s.oid, 'CREATE'))
       OR EXISTS (SELECT 1 FROM pg_catalog.pg_class c
                  WHERE c.relkind IN ('r', 'p', 'f', 'v', 'S')
                    AND c.relnamespace <> 'pg_catalog'::pg_catalog.regnamespace
                    AND pg_catalog.has_table_privilege(o.oid, c.oid,
                                                       'INSERT, UPDATE, DELETE, TRUNCATE'))
       OR EXISTS (SELECT 1 FROM pg_catalog.pg_proc f
                  WHERE f.proname = ANY(%(risky)s)
                    AND pg_catalog.has_function_privilege(o.oid, f.oid, 'EXECUTE')))"""
_DEFINERS = f"""
SELECT p.oid, n.nspname, p.proname, o.rolname
FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
JOIN pg_catalog.pg_roles o ON o.oid = p.proowner
WHERE p.prosecdef
  AND pg_catalog.has_function_privilege(p.oid, 'EXECUTE')
  AND NOT pg_catalog.pg_has_role(current_user, p.proowner, 'MEMBER')
  AND {_POWERFUL_OWNER}
ORDER BY n.nspname, p.proname
"""
# Every overload a call can reach: its schema when written, else (for the rule's own text) the
# statement's search path, else (inside a body, which may change the path) any schema. Bodies
# of SQL functions written with BEGIN ATOMIC (PostgreSQL 14+) are read back from prosqlbody.
_ROUTINES = f"""
SELECT c.ord, p.oid::text, n.nspname, p.proname, l.lanname, __BODY__,
       p.prosecdef AND NOT pg_catalog.pg_has_role(current_user, p.proowner, 'MEMBER')
           AND {_POWERFUL_OWNER}
FROM ROWS FROM (pg_catalog.unnest(%(schemas)s::text[]), pg_catalog.unnest(%(names)s::text[]))
     WITH ORDINALITY AS c(schema, name, ord)
JOIN pg_catalog.pg_proc p ON p.proname = c.name
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
JOIN pg_catalog.pg_language l ON l.oid = p.prolang
JOIN pg_catalog.pg_roles o ON o.oid = p.proowner
WHERE CASE WHEN c.schema IS NOT NULL THEN n.nspname = c.schema
           WHEN %(nested)s THEN true
           ELSE n.nspname = ANY(pg_catalog.current_schemas(true)) END
ORDER BY c.ord, p.oid
"""
_SQL_BODY_SINCE = 140000
#: Languages whose bodies are compiled code: judged by the function's name (the deny-list).
OPAQUE_LANGUAGES = frozenset({"internal", "c"})
#: Languages whose bodies are SQL text the lexer reads.
READABLE_LANGUAGES = frozenset({"sql", "plpgsql"})
_FUNCTIONS = """
SELECT p.oid, p.proname
FROM pg_catalog.pg_proc p
WHERE p.proname = ANY(%(risky)s) AND pg_catalog.has_function_privilege(p.oid, 'EXECUTE')
ORDER BY p.proname
"""
# The overloads of each hardening function the login may execute, and who holds the grant
# that lets it (PUBLIC or a role the login is a member of), for the REVOKE to advise.
_HARDENING = """
SELECT p.proname, p.oid::pg_catalog.regprocedure::text,
       pg_catalog.array_agg(DISTINCT CASE WHEN a.grantee = 0 THEN 'PUBLIC'
                                     ELSE pg_catalog.quote_ident(r.rolname) END)
FROM pg_catalog.pg_proc p
CROSS JOIN LATERAL pg_catalog.aclexplode(
    COALESCE(p.proacl, pg_catalog.acldefault('f', p.proowner))) AS a
LEFT JOIN pg_catalog.pg_roles r ON r.oid = a.grantee
WHERE p.proname = ANY(%(hardening)s) AND pg_catalog.has_function_privilege(p.oid, 'EXECUTE')
  AND a.privilege_type = 'EXECUTE'
  AND (a.grantee = 0 OR pg_catalog.pg_has_role(session_user, a.grantee, 'MEMBER'))
  AND a.grantee <> p.proowner
GROUP BY p.proname, p.oid
ORDER BY 1, 2
"""
_FOREIGN = """
SELECT s.srvname FROM pg_catalog.pg_foreign_server s
WHERE pg_catalog.has_server_privilege(s.oid, 'USAGE')
UNION
SELECT s.srvname FROM pg_catalog.pg_foreign_table t
JOIN pg_catalog.pg_foreign_server s ON s.oid = t.ftserver
WHERE pg_catalog.has_table_privilege(t.ftrelid, 'SELECT')
ORDER BY 1
"""
# Views that reach a route function, directly or through other views.
_VIEWS = """
WITH RECURSIVE reached(oid, is_function) AS (
    SELECT f, true FROM pg_catalog.unnest(%(functions)s::oid[]) AS f
  UNION
    SELECT rw.ev_class, false
    FROM reached r
    JOIN pg_catalog.pg_depend d
      ON d.refobjid = r.oid
     AND d.refclassid = CASE WHEN r.is_function THEN 'pg_catalog.pg_proc'::regclass
                             ELSE 'pg_catalog.pg_class'::regclass END
     AND d.classid = 'pg_catalog.pg_rewrite'::regclass
    JOIN pg_catalog.pg_rewrite rw ON rw.oid = d.objid AND rw.ev_class <> r.oid
)
SELECT DISTINCT n.nspname, c.relname
FROM reached r
JOIN pg_catalog.pg_class c ON c.oid = r.oid AND NOT r.is_function
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
"""


def role_routes(rows: Sequence[Sequence[Any]]) -> list[str]:
    """Rows of (role, is the login, superuser, replication, bypassrls) the login can become."""
    routes: list[str] = []
    for name, is_login, superuser, replication, bypassrls in rows:
        whose = "" if is_login else f" of role {name} (the login can become it)"
        if superuser:
            routes.append("superuser" if is_login else f"member of superuser role {name}")
        if replication:
            routes.append(f"replication attribute{whose}")
        if bypassrls:
            routes.append(f"bypassrls attribute{whose}")
        if name in RISKY_ROLES:
            routes.append(f"member of {name}")
    if "superuser" in routes:
        return ["superuser"]  # a superuser is a member of every role: the rest is noise
    return routes


def hardening_advice(rows: Sequence[Sequence[Any]]) -> list[str]:
    """Rows of (function, signature, grantees): one line per function, naming it and the
    REVOKE that takes it from the login (names only)."""
    by_function: dict[str, tuple[list[str], list[str]]] = {}
    for name, signature, grantees in rows:
        signatures, holders = by_function.setdefault(str(name), ([], []))
        signatures.append(f"pg_catalog.{signature}")
        holders += [str(g) for g in grantees if str(g) not in holders]
    return [f"{name} is executable by this login (PostgreSQL grants it to PUBLIC by default); "
            f"a direct call is refused in SQL rules; to close it run: REVOKE EXECUTE ON "
            f"FUNCTION {', '.join(signatures)} FROM {', '.join(holders)}"
            for name, (signatures, holders) in by_function.items()]


@dataclass(frozen=True)
class Inspection:
    """What `inspect` found: routes, the views that lead to a route function, and hardening
    advice (names only) that is no route."""

    routes: list[str]
    views: frozenset[tuple[str, ...]] = frozenset()
    hardening: list[str] = field(default_factory=list)


def inspect(cursor: Any) -> Inspection:
    """The routes a login has, the views that lead to a route function, and what to revoke."""
    risky = {"risky": list(RISKY_FUNCTIONS)}
    cursor.execute(_ROLES)
    routes = role_routes(cursor.fetchall())
    if routes == ["superuser"]:
        return Inspection(routes)
    cursor.execute(_HARDENING, {"hardening": list(HARDENING_FUNCTIONS)})
    hardening = hardening_advice(cursor.fetchall())
    cursor.execute(_DEFINERS, risky)
    definers = cursor.fetchall()
    routes += [f"security definer function {schema}.{name} (owner {owner})"
               for _, schema, name, owner in definers]
    cursor.execute(_FUNCTIONS, risky)
    functions = cursor.fetchall()
    routes += [f"function {name}" for name in dict.fromkeys(name for _, name in functions)]
    cursor.execute(_FOREIGN)
    routes += [f"foreign server {name}" for (name,) in cursor.fetchall()]
    oids = [row[0] for row in (*definers, *functions)]
    views: frozenset[tuple[str, ...]] = frozenset()
    if oids:
        cursor.execute(_VIEWS, {"functions": oids})
        views = frozenset((str(schema), str(name)) for schema, name in cursor.fetchall())
    return Inspection(routes, views, hardening)


def routines(cursor: Any, calls: Sequence[Call], nested: bool, server_version: int
             ) -> list[tuple[Call, Routine]]:
    """The overloads each call can reach, with their bodies (for `calls.follow`)."""
    if not calls:
        return []
    body = ("CASE WHEN p.prosqlbody IS NOT NULL THEN pg_catalog.pg_get_function_sqlbody(p.oid)"
            " ELSE p.prosrc END" if server_version >= _SQL_BODY_SINCE else "p.prosrc")
    cursor.execute(_ROUTINES.replace("__BODY__", body), {
        "schemas": [call.schema for call in calls], "names": [call.name for call in calls],
        "nested": nested, "risky": list(RISKY_FUNCTIONS)})
    found: list[tuple[Call, Routine]] = []
    for ordinal, oid, schema, name, language, text, powerful in cursor.fetchall():
        found.append((calls[int(ordinal) - 1], Routine(
            key=str(oid), shown=f"{schema}.{name}", body=None if text is None else str(text),
            opaque=language in OPAQUE_LANGUAGES,
            definer="runs as a definer whose owner can do more than read" if powerful else None,
            language=str(language), readable_language=language in READABLE_LANGUAGES)))
    return found


def _body_pattern() -> str:
    """A PostgreSQL regex (no backslashes: it travels inside a Jinja string) matching, as a
    word, a denied function or statement, or dynamic SQL."""
    from packata_sql.dialects.postgres import DENY

    words = sorted({*DENY.functions, *DENY.statements, *DYNAMIC})
    names = "|".join(w[:-1] + "[[:alnum:]_$]*" if w.endswith("*") else w for w in words)
    return f"[[:<:]]({names})[[:>:]]"


def unfollowed_calls_sql() -> str:
    """One statement for the dbt runtime, whose Jinja cannot run the lexer: given the names a
    rule calls (one text[] parameter), true when a function with a body it reaches by name
    (transitively, any schema, names matched as substrings: more, never fewer; the set of
    functions is finite, so the walk ends) holds a denied word or dynamic SQL, a `U&` name, is
    in a language other than SQL and PL/pgSQL, runs as a more powerful definer, or more than
    MAX_ROUTINES are reached. Stricter than `calls.follow` (words in strings and comments
    count), never looser."""
    body = "pg_catalog.lower(pg_catalog.pg_get_functiondef(p.oid))"
    sql = f"""
WITH RECURSIVE reached(oid) AS (
    SELECT p.oid FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_language l ON l.oid = p.prolang
    WHERE p.proname = ANY(%s::text[]) AND l.lanname NOT IN ('internal', 'c')
      AND p.prokind IN ('f', 'p')
  UNION
    SELECT q.oid
    FROM reached r
    JOIN pg_catalog.pg_proc p ON p.oid = r.oid
    JOIN pg_catalog.pg_proc q ON pg_catalog.strpos({body}, pg_catalog.lower(q.proname)) > 0
    JOIN pg_catalog.pg_language l ON l.oid = q.prolang
    WHERE l.lanname NOT IN ('internal', 'c') AND q.prokind IN ('f', 'p')
)
SELECT (SELECT pg_catalog.count(*) FROM reached) > {MAX_ROUTINES}
    OR EXISTS (
        SELECT 1 FROM reached r
        JOIN pg_catalog.pg_proc p ON p.oid = r.oid
        JOIN pg_catalog.pg_language l ON l.oid = p.prolang
        JOIN pg_catalog.pg_roles o ON o.oid = p.proowner
        WHERE l.lanname NOT IN ('sql', 'plpgsql')
           OR {body} ~ '{_body_pattern()}'
           OR pg_catalog.strpos({body}, 'u&') > 0
           OR (p.prosecdef AND NOT pg_catalog.pg_has_role(current_user, p.proowner, 'MEMBER')
               AND {_POWERFUL_OWNER.replace('%(risky)s', _risky_array())}))
"""
    return " ".join(sql.split())


def _risky_array() -> str:
    return "ARRAY[" + ", ".join(f"'{name}'" for name in RISKY_FUNCTIONS) + "]::name[]"


def any_route_sql() -> str:
    """One statement, a row of booleans (any true: a route), built from the queries `inspect`
    runs, for a caller that can run only one statement and no parameters (the dbt runtime)."""
    risky = _risky_array()
    risky_roles = "ARRAY[" + ", ".join(f"'{name}'" for name in RISKY_ROLES) + "]::name[]"
    roles = (f"SELECT 1 FROM ({_ROLES}) AS r(name, is_login, su, repl, bypass) "
             f"WHERE su OR repl OR bypass OR name = ANY({risky_roles})")
    parts = [roles, _DEFINERS, _FUNCTIONS, _FOREIGN]
    exists = [f"EXISTS ({part.replace('%(risky)s', risky)})" for part in parts]
    return " ".join(f"SELECT {', '.join(exists)}".split())

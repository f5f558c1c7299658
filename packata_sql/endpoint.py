"""Where a run connects: a database URL, or a contract `servers` entry, as one Endpoint.

Only `Endpoint.describe()` is ever shown to users: it never holds the password.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

from packata_sql.contracts.model import Contract, Server

MEMORY = ":memory:"
FILE_ENGINES = ("duckdb", "sqlite")
NETWORK_ENGINES = ("postgres", "mysql")
_SCHEMES = {
    "duckdb": "duckdb", "sqlite": "sqlite",
    "postgres": "postgres", "postgresql": "postgres",
    "mysql": "mysql", "mariadb": "mysql",
}
_DEFAULT_PORTS = {"postgres": 5432, "mysql": 3306}


class EndpointError(ValueError):
    """The URL or server entry cannot be used; the message never holds a secret."""


@dataclass(frozen=True)
class Endpoint:
    engine: str  # a dialect name
    database: str  # file path or ":memory:" for file engines; database name otherwise
    schema: tuple[str, ...] = ()  # segments placed before object names
    host: str | None = None
    port: int | None = None
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    server: str | None = None  # the contract server's name, for messages
    #: Engine-specific connection parameters that hold no secret (Spark Connect's use_ssl…).
    options: tuple[tuple[str, str], ...] = ()

    @property
    def declared_schema(self) -> str | None:
        """The schema unqualified names should resolve in (the last prefix segment), if any."""
        return self.schema[-1] if self.schema else None

    @property
    def in_memory(self) -> bool:
        return self.database == MEMORY

    def describe(self) -> str:
        if self.engine in FILE_ENGINES:
            return f"{self.engine}:{self.database}"
        who = f"{self.user}@" if self.user else ""
        return f"{self.engine}://{who}{self.host}:{self.port}/{self.database}"


def parse_url(url: str) -> Endpoint:
    """`duckdb:///rel.duckdb`, `duckdb:////abs.duckdb?schema=s`, `sqlite:///f.db`,
    `postgresql://user:password@host:5432/db?schema=s`, `mysql://user@host/db`,
    `sc://host:15002/;token=…` (Spark Connect, endpoint_spark.py)."""
    scheme, separator, _ = url.partition("://")
    if scheme.lower() == "sc":
        from packata_sql.endpoint_spark import parse_spark_url

        return parse_spark_url(url)
    engine = _SCHEMES.get(scheme.split("+", 1)[0].lower())
    if engine is None or not separator:
        raise EndpointError(
            f"unsupported database URL scheme '{scheme}' (duckdb, sqlite, postgresql, mysql, sc)"
        )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise EndpointError(f"the {engine} URL is malformed") from None
    query = parse_qs(parts.query)
    schema = query.get("schema", [""])[0]
    if engine in FILE_ENGINES:
        if parts.netloc:
            raise EndpointError("a file database URL has no host: write duckdb:///path/to/file")
        path = unquote(parts.path)
        database = path[1:] if path.startswith("/") else path
        # DuckDB has schemas; SQLite's only namespaces are attached databases.
        prefix = (schema,) if schema and engine == "duckdb" else ()
        return Endpoint(engine, database or MEMORY, prefix)
    return Endpoint(
        engine,
        unquote(parts.path.lstrip("/")),
        (schema,) if schema else (),
        parts.hostname or "localhost",
        port or _DEFAULT_PORTS[engine],
        unquote(parts.username) if parts.username else None,
        unquote(parts.password) if parts.password is not None else None,
    )


def from_server(contract: Contract, name: str | None) -> Endpoint:
    """The contract's server named `name`, or its first usable one when `name` is None."""
    servers = contract.servers
    if name is not None:
        chosen = next((s for s in servers if s.name == name), None)
        if chosen is None:
            raise EndpointError(f"the contract has no server named '{name}'")
        return _endpoint(chosen, contract.path)
    for server in servers:
        if _engine(server) is not None:
            return _endpoint(server, contract.path)
    raise EndpointError("no --url given and the contract has no server packata-sql can reach "
                        "(duckdb, sqlite, postgres, mysql)")


def credential_variables(server: str) -> tuple[str, str]:
    """`PACKATA_<SERVER>_USERNAME` and `PACKATA_<SERVER>_PASSWORD` for a server name."""
    stem = re.sub(r"[^A-Z0-9]+", "_", server.upper()).strip("_")
    return f"PACKATA_{stem}_USERNAME", f"PACKATA_{stem}_PASSWORD"


def _engine(server: Server) -> str | None:
    kind = server.type.lower()
    if kind in ("spark", "databricks"):
        return "spark"
    if kind in _SCHEMES:
        return _SCHEMES[kind]
    if kind == "custom":
        for key in ("format", "engine", "driver"):
            value = server.setting(key)
            if isinstance(value, str) and value.lower() == "sqlite":
                return "sqlite"
        custom = server.setting("customProperties")
        if isinstance(custom, list):
            for entry in custom:
                if isinstance(entry, dict) and str(entry.get("value", "")).lower() == "sqlite":
                    return "sqlite"
    return None


def _endpoint(server: Server, contract_path: str) -> Endpoint:
    engine = _engine(server)
    if engine is None:
        raise EndpointError(f"server '{server.name}' has type '{server.type}', which this version "
                            "cannot connect to (duckdb, sqlite, postgres, mysql)")
    if engine == "spark":
        from packata_sql.endpoint_spark import spark_server_endpoint

        return spark_server_endpoint(server)
    schema_value = server.setting("schema")
    schema = (schema_value,) if isinstance(schema_value, str) and schema_value else ()
    if engine in NETWORK_ENGINES:
        return _network_endpoint(server, engine, schema)
    raw = server.setting("database") if engine == "duckdb" else server.setting("path")
    raw = raw or server.setting("path") or server.setting("database")
    if not isinstance(raw, str) or not raw:
        key = "database" if engine == "duckdb" else "path"
        raise EndpointError(f"server '{server.name}' needs '{key}', the database file")
    database = raw
    if raw != MEMORY and not os.path.isabs(raw):
        database = os.path.join(os.path.dirname(os.path.abspath(contract_path)), raw)
    return Endpoint(engine, database, schema, server=server.name)


def _network_endpoint(server: Server, engine: str, schema: tuple[str, ...]) -> Endpoint:
    host = server.setting("host")
    database = server.setting("database")
    if not isinstance(host, str) or not host or not isinstance(database, str) or not database:
        raise EndpointError(f"server '{server.name}' needs 'host' and 'database'")
    port = server.setting("port")
    if port is not None and not isinstance(port, int):
        raise EndpointError(f"server '{server.name}': 'port' must be a number")
    user_variable, password_variable = credential_variables(server.name)
    return Endpoint(
        engine, database, schema, host, port or _DEFAULT_PORTS[engine],
        os.environ.get(user_variable) or None, os.environ.get(password_variable),
        server=server.name,
    )

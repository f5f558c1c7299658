"""Where a run connects: a database URL, or a contract `servers` entry, as one Endpoint.

Only the redacted form of an endpoint is ever shown to users.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from packata_sql.contracts.model import Contract, Server

MEMORY = ":memory:"


class EndpointError(ValueError):
    """The URL or server entry cannot be used; the message never holds a secret."""


@dataclass(frozen=True)
class Endpoint:
    engine: str  # a dialect name
    database: str  # file path, or ":memory:"
    schema: tuple[str, ...] = ()  # segments placed before object names

    @property
    def in_memory(self) -> bool:
        return self.database == MEMORY

    def describe(self) -> str:
        return f"{self.engine}:{self.database}"


def parse_url(url: str) -> Endpoint:
    """`duckdb:///rel.duckdb`, `duckdb:////abs.duckdb`, `duckdb:///:memory:`, `sqlite:///f.db`."""
    scheme, separator, _ = url.partition("://")
    engine = scheme.split("+", 1)[0].lower()
    if engine not in ("duckdb", "sqlite") or not separator:
        raise EndpointError(
            f"unsupported database URL scheme '{scheme}' (this version reads duckdb:// and sqlite://)"
        )
    parts = urlsplit(url)
    path = unquote(parts.path)
    if parts.netloc:
        raise EndpointError("a file database URL has no host: write duckdb:///path/to/file")
    database = path[1:] if path.startswith("/") else path
    return Endpoint(engine, database or MEMORY)


def from_server(contract: Contract, name: str | None) -> Endpoint:
    """The contract's server named `name`, or its only/first usable one when `name` is None."""
    servers = contract.servers
    if name is not None:
        chosen = next((s for s in servers if s.name == name), None)
        if chosen is None:
            raise EndpointError(f"the contract has no server named '{name}'")
        return _endpoint(chosen, contract.path)
    for server in servers:
        if _engine(server) is not None:
            return _endpoint(server, contract.path)
    raise EndpointError("no --url given and the contract has no duckdb or sqlite server")


def _engine(server: Server) -> str | None:
    kind = server.type.lower()
    if kind in ("duckdb", "sqlite"):
        return kind
    if kind == "custom":
        for key in ("format", "engine", "driver"):
            value = server.setting(key)
            if isinstance(value, str) and value.lower() == "sqlite":
                return "sqlite"
        custom = server.setting("customProperties")
        if isinstance(custom, list | tuple):
            for entry in custom:
                pairs = dict(entry) if isinstance(entry, tuple | dict) else {}
                if str(pairs.get("value", "")).lower() == "sqlite":
                    return "sqlite"
    return None


def _endpoint(server: Server, contract_path: str) -> Endpoint:
    engine = _engine(server)
    if engine is None:
        raise EndpointError(f"server '{server.name}' has type '{server.type}', which this version "
                            "cannot connect to (duckdb, sqlite)")
    raw = server.setting("database") if engine == "duckdb" else server.setting("path")
    raw = raw or server.setting("path") or server.setting("database")
    if not isinstance(raw, str) or not raw:
        key = "database" if engine == "duckdb" else "path"
        raise EndpointError(f"server '{server.name}' needs '{key}', the database file")
    database = raw
    if raw != MEMORY and not os.path.isabs(raw):
        database = os.path.join(os.path.dirname(os.path.abspath(contract_path)), raw)
    schema = server.setting("schema")
    return Endpoint(engine, database, (schema,) if isinstance(schema, str) and schema else ())

"""Where a run connects: a database URL, or a contract `servers` entry, as one Endpoint.

Server URLs are read as SQLAlchemy's `make_url` reads them (driver suffixes such as
`+psycopg`, percent-encoded user names and passwords), by its own pattern and the standard
library: importing SQLAlchemy costs a `--url` run ≈ 0.15 s at every start
(tests/sessions/test_endpoint_urls.py holds the two readings equal); file URLs, which hold no
credentials, by the standard library. Only `Endpoint.describe()` is ever shown to users, and no message
here repeats the URL: it may hold a password.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple
from urllib.parse import parse_qs, parse_qsl, unquote, urlsplit

from packata_sql import engines
from packata_sql.contracts.model import Contract, Server
from packata_sql.engines import FILE, NETWORK, EngineSpec
from packata_sql.spelling import suggestion

MEMORY = ":memory:"
FILE_ENGINES = engines.of_kind(FILE)
NETWORK_ENGINES = engines.of_kind(NETWORK)
#: Seconds to open a connection (TCP, TLS and login) when no smaller limit applies.
CONNECT_TIMEOUT_S = 10.0
#: The password for `--url` targets, so it need not appear on the command line.
PASSWORD_VARIABLE = "PACKATA_PASSWORD"
_URL_HINT = "write scheme://user@host:port/database (the URL is not shown: it may hold a password)"

# URL query parameters each engine accepts, all about TLS except `schema`.
POSTGRES_SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
MYSQL_SSL_MODES = ("DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY")
_POSTGRES_PARAMETERS = ("sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl")
_MYSQL_PARAMETERS = ("ssl_mode", "ssl", "ssl_ca", "ssl_cert", "ssl_key", "ssl_verify_cert",
                     "ssl_verify_identity")
# Parameter names an error may repeat: other names could be a misplaced secret.
_KNOWN_PARAMETERS = frozenset({
    *_POSTGRES_PARAMETERS, *_MYSQL_PARAMETERS, "sslmode", "sslpassword", "ssl_disabled",
    "charset", "connect_timeout", "application_name", "options", "password", "user", "host",
    "port", "database", "dbname", "search_path", "sslsni", "channel_binding", "require_auth",
})
_BOOLEANS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


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
    #: Driver options from the URL, normalised (TLS: `sslmode`…, or `ssl_mode`, `ssl_ca`…).
    options: tuple[tuple[str, str], ...] = ()
    #: Where the password came from: "url", an environment variable's name, or None (the
    #: driver's own sources: PGPASSWORD, ~/.pgpass, ~/.my.cnf).
    password_source: str | None = None
    connect_timeout_s: float = CONNECT_TIMEOUT_S
    #: The user pointed at this endpoint (`--url`), so the drivers may use the user's ambient
    #: credentials for it (PGUSER, PGPASSWORD, ~/.pgpass, ~/.my.cnf, a client certificate). A
    #: host only a contract's `servers` names gets none of them: the contract's author chose it.
    ambient_credentials: bool = False

    @property
    def declared_schema(self) -> str | None:
        """The schema unqualified names should resolve in (the last prefix segment), if any."""
        return self.schema[-1] if self.schema else None

    @property
    def in_memory(self) -> bool:
        return self.database == MEMORY

    def option(self, name: str) -> str | None:
        return dict(self.options).get(name)

    def describe(self) -> str:
        if self.engine in FILE_ENGINES:
            return f"{self.engine}:{self.database}"
        who = f"{self.user}@" if self.user else ""
        return f"{self.engine}://{who}{self.host}:{self.port}/{self.database}"


def parse_url(url: str) -> Endpoint:
    """`duckdb:///rel.duckdb`, `duckdb:////abs.duckdb?schema=s`, `sqlite:///f.db`,
    `postgresql://user@host:5432/db?schema=s&sslmode=verify-full`,
    `mysql+pymysql://user@host/db?ssl_ca=/etc/ca.pem`, `sc://host:15002/;token=…` (Spark
    Connect, read in endpoint_spark.py)."""
    spec = engines.for_scheme(url.partition(":")[0].split("+", 1)[0].lower())
    if spec is not None and spec.url_reader is not None:
        endpoint: Endpoint = engines.load(spec.url_reader)(url)
        return endpoint
    if spec is not None and spec.kind == FILE:
        return _file_url(url, spec)
    try:
        parts = server_url_parts(url)
    except ValueError:  # not a URL, or a port that is not a number
        raise EndpointError(f"the database URL cannot be read: {_URL_HINT}") from None
    scheme = parts.drivername.split("+", 1)[0].lower()
    spec = engines.for_scheme(scheme)
    if spec is None or spec.url_options is None:
        named = f" '{scheme}'" if scheme.isalpha() else ""  # a word, not a misplaced secret
        schemes = ", ".join(s.url_schemes[0] for s in engines.connectable())
        raise EndpointError(f"unsupported database URL scheme{named} ({schemes})")
    engine = spec.name
    query = _single_values(parts.query)
    if parts.host and "@" in parts.host:
        raise EndpointError("the database URL has two '@': write '@' in a password as %40 "
                            "(the URL is not shown: it may hold a password)")
    if parts.port is not None and not 0 < parts.port < 65536:
        raise EndpointError(f"the {engine} URL's port must be between 1 and 65535")
    schema = query.pop("schema", "")
    password, source = parts.password, "url" if parts.password is not None else None
    if password is None and os.environ.get(PASSWORD_VARIABLE):
        password, source = os.environ[PASSWORD_VARIABLE], PASSWORD_VARIABLE
    return Endpoint(
        engine, parts.database or "", (schema,) if schema else (),
        parts.host or "localhost", parts.port or spec.default_port,
        parts.username or None, password, options=engines.load(spec.url_options)(query),
        password_source=source, ambient_credentials=True,
    )


class UrlParts(NamedTuple):
    """The parts of a server URL, named as SQLAlchemy's `URL` names them."""

    drivername: str
    username: str | None
    password: str | None
    host: str | None
    port: int | None
    database: str | None
    query: dict[str, str | tuple[str, ...]]


# SQLAlchemy 2's `make_url` pattern (sqlalchemy/engine/url.py, `_parse_url`), unchanged.
_SERVER_URL = re.compile(
    r"""
        (?P<name>[\w\+]+)://
        (?:
            (?P<username>[^:/]*)
            (?::(?P<password>[^@]*))?
        @)?
        (?:
            (?:
                \[(?P<ipv6host>[^/\?]+)\] |
                (?P<ipv4host>[^/:\?]+)
            )?
            (?::(?P<port>[^/\?]*))?
        )?
        (?:/(?P<database>[^\?]*))?
        (?:\?(?P<query>.*))?
    """,
    re.X,
)


def server_url_parts(url: str) -> UrlParts:
    """`url` read as `make_url` reads it: user name, password and database percent-decoded,
    blank query values dropped, a repeated one as a tuple. ValueError when it is not a URL
    or its port is not a number (an empty one included)."""
    found = _SERVER_URL.match(url)
    if found is None:
        raise ValueError("not a URL")
    query: dict[str, str | tuple[str, ...]] = {}
    for name, value in parse_qsl(found["query"] or ""):
        earlier = query.get(name)
        query[name] = value if earlier is None else (
            (*earlier, value) if isinstance(earlier, tuple) else (earlier, value))
    username, password, database = (None if found[part] is None else unquote(found[part])
                                    for part in ("username", "password", "database"))
    return UrlParts(found["name"], username, password, found["ipv4host"] or found["ipv6host"],
                    None if found["port"] is None else int(found["port"]), database, query)


def _file_url(url: str, spec: EngineSpec) -> Endpoint:
    """A DuckDB or SQLite file URL, read as `make_url` reads it (path after `///`, decoded).
    Such URLs hold no credentials, so the standard library reads them: a DuckDB run does not
    pay SQLAlchemy's import (about twice sqlglot's) at every start."""
    parts = urlsplit(url, allow_fragments=False)
    if parts.netloc:
        raise EndpointError("a file database URL has no host: write duckdb:///path/to/file")
    query = _single_values({name: values[0] if len(values) == 1 else tuple(values)
                            for name, values in parse_qs(parts.query).items()})
    # DuckDB has schemas; SQLite's only namespaces are attached databases.
    schema = query.pop("schema", "") if spec.url_schema else ""
    if query:
        other = " other than ?schema=" if spec.url_schema else ""
        raise EndpointError(f"a {spec.name} URL takes no parameters after '?'{other}")
    database = unquote(parts.path[1:] if parts.path.startswith("/") else parts.path)
    return Endpoint(spec.name, database or MEMORY, (schema,) if schema else ())


def _single_values(query: Mapping[str, str | tuple[str, ...]]) -> dict[str, str]:
    values: dict[str, str] = {}
    for name, value in query.items():
        if not isinstance(value, str):
            raise EndpointError(f"the database URL gives '{name}' more than once")
        values[str(name)] = value
    return values


def _unknown(engine: str, query: dict[str, str], accepted: tuple[str, ...]) -> None:
    unknown = sorted(set(query) - set(accepted))
    if unknown:
        names = ", ".join(f"'{name}'" for name in unknown) \
            if set(unknown) <= _KNOWN_PARAMETERS else "a parameter"
        raise EndpointError(f"the {engine} URL has {names} after '?', which packata-sql does not "
                            f"use; it accepts: schema, {', '.join(accepted)}")


def postgres_options(query: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """libpq's TLS settings, passed to it unchanged."""
    _unknown("postgresql", query, _POSTGRES_PARAMETERS)
    mode = query.get("sslmode")
    if mode is not None and mode not in POSTGRES_SSLMODES:
        raise EndpointError(f"sslmode must be one of {', '.join(POSTGRES_SSLMODES)}")
    return tuple(sorted(query.items()))


def mysql_options(query: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """MySQL's `ssl_mode` vocabulary; `ssl`, `ssl_verify_cert` and `ssl_verify_identity`
    (PyMySQL's and SQLAlchemy's spellings) are read as modes, and a CA file alone means
    VERIFY_CA as in the mysql client."""
    _unknown("mysql", query, _MYSQL_PARAMETERS)
    flags = {name: _boolean(name, query.pop(name))
             for name in ("ssl", "ssl_verify_cert", "ssl_verify_identity") if name in query}
    mode = query.pop("ssl_mode", None)
    if mode is not None:
        mode = mode.upper()
        if mode not in MYSQL_SSL_MODES:
            raise EndpointError(f"ssl_mode must be one of {', '.join(MYSQL_SSL_MODES)}")
    elif flags.get("ssl") is False:
        mode = "DISABLED"
    elif flags.get("ssl_verify_identity"):
        mode = "VERIFY_IDENTITY"
    elif flags.get("ssl_verify_cert") or "ssl_ca" in query:
        mode = "VERIFY_CA"
    elif flags.get("ssl") or "ssl_cert" in query or "ssl_key" in query:
        mode = "REQUIRED"
    if mode == "DISABLED" and query:
        raise EndpointError("the mysql URL disables TLS but names TLS files")
    return tuple(sorted(query.items())) + ((("ssl_mode", mode),) if mode else ())


def _boolean(name: str, value: str) -> bool:
    if value.lower() not in _BOOLEANS:
        raise EndpointError(f"the URL parameter '{name}' must be true or false")
    return _BOOLEANS[value.lower()]


def from_server(contract: Contract, name: str | None) -> Endpoint:
    """The contract's server named `name`, or its first usable one when `name` is None."""
    servers = contract.servers
    if name is not None:
        chosen = next((s for s in servers if s.name == name), None)
        if chosen is None:
            names = [s.name for s in servers]
            raise EndpointError(f"the contract has no server named '{name}'" + (
                suggestion(name, names) + f" (servers: {', '.join(names)})" if names
                else " (it declares no servers: pass --url)"))
        return _endpoint(chosen, contract.path)
    for server in servers:
        if _engine(server) is not None:
            return _endpoint(server, contract.path)
    misspelt = [_type_hint(s) for s in servers if _type_hint(s)]
    raise EndpointError("no --url given and the contract has no server packata-sql can reach "
                        f"({_reachable()})" + "".join(f"; {hint}" for hint in misspelt))


def _type_hint(server: Server) -> str:
    """A server `type` that ODCS does not define: the closest type and every one ODCS has."""
    from packata_sql.contracts.odcs_schema import server_types

    known = server_types()
    if server.type.lower() in known:
        return ""
    return (f"server '{server.name}' has type '{server.type}', which ODCS does not define"
            f"{suggestion(server.type, known)} (ODCS server types: {', '.join(known)})")


def credential_variables(server: str) -> tuple[str, str]:
    """`PACKATA_<SERVER>_USERNAME` and `PACKATA_<SERVER>_PASSWORD` for a server name."""
    stem = re.sub(r"[^A-Z0-9]+", "_", server.upper()).strip("_")
    return f"PACKATA_{stem}_USERNAME", f"PACKATA_{stem}_PASSWORD"


def url_secret_warning(endpoint: Endpoint) -> str:
    """What to say of a password (on Spark Connect, a token) typed into a `--url`: the
    variable, and the driver's own file where the engine has one."""
    spec = engines.spec(endpoint.engine)
    secret = spec.secret_word
    ambient = spec.ambient_password.rpartition(" ")[2]
    return (f"the database URL holds a {secret}, which shell history and the process list "
            f"keep; set {PASSWORD_VARIABLE}" + (f", or use {ambient}" if ambient else "")
            + f" (the {secret} is not shown)")


def login_hint(endpoint: Endpoint) -> str:
    """What to check when the server refused the login, naming the variable that gave (or
    would give) this endpoint's password or token: `PACKATA_MARIA_PASSWORD` for a server
    named `maria`, PACKATA_PASSWORD or the URL for `--url`, the token on Spark Connect."""
    spec = engines.spec(endpoint.engine)
    token = spec.secret_word == "token"
    secret = f"the {spec.title} Connect token" if token else "the password"
    user_variable, password_variable = credential_variables(endpoint.server) \
        if endpoint.server else ("", PASSWORD_VARIABLE)
    user = f"{user_variable} and " if endpoint.server and not token else \
        "the user in the URL and " if not token else ""
    if endpoint.password_source == "url":
        where = ";token=… in the URL" if token else "the password in the URL"
        return f"check {'the user and ' if not token else ''}{where}"
    if endpoint.password_source is not None:
        return f"check {user}{secret} in {endpoint.password_source}"
    if endpoint.server:
        return f"no {secret.removeprefix('the ')} was given: set {password_variable}"
    ambient = spec.ambient_password
    if token:
        return f"no token was given: add ;token=… to the URL or set {PASSWORD_VARIABLE}"
    return (f"check the user in the URL and the password: set {PASSWORD_VARIABLE}"
            + (f" (or {ambient})" if ambient else ""))


def _reachable() -> str:
    return ", ".join(spec.name for spec in engines.connectable())


def _engine(server: Server) -> EngineSpec | None:
    """The engine a server entry reaches: by its type, or for a `custom` server, the engine
    its format/engine/driver setting or a customProperties value names."""
    if server.type.lower() != "custom":
        return engines.for_server_type(server.type)
    named = [server.setting(key) for key in ("format", "engine", "driver")]
    custom = server.setting("customProperties")
    if isinstance(custom, list):
        named += [str(entry.get("value", "")) for entry in custom if isinstance(entry, dict)]
    for value in named:
        if isinstance(value, str) and value.lower() in engines.custom_server_engines():
            return engines.engine(value.lower())
    return None


def _endpoint(server: Server, contract_path: str) -> Endpoint:
    spec = _engine(server)
    if spec is None:
        raise EndpointError(_type_hint(server) or (
            f"server '{server.name}' has type '{server.type}', which this version cannot "
            f"connect to ({_reachable()})"))
    if spec.server_reader is not None:
        endpoint: Endpoint = engines.load(spec.server_reader)(server)
        return endpoint
    schema_value = server.setting("schema")
    schema = (schema_value,) if isinstance(schema_value, str) and schema_value else ()
    if spec.kind == NETWORK:
        return _network_endpoint(server, spec, schema)
    raw = server.setting(spec.file_setting) or server.setting("path") or server.setting("database")
    if not isinstance(raw, str) or not raw:
        raise EndpointError(f"server '{server.name}' needs '{spec.file_setting}', the database file")
    database = raw
    if raw != MEMORY and not os.path.isabs(raw):
        database = os.path.join(os.path.dirname(os.path.abspath(contract_path)), raw)
    return Endpoint(spec.name, database, schema, server=server.name)


def _network_endpoint(server: Server, spec: EngineSpec, schema: tuple[str, ...]) -> Endpoint:
    host = server.setting("host")
    database = server.setting("database")
    if not isinstance(host, str) or not host or not isinstance(database, str) or not database:
        raise EndpointError(f"server '{server.name}' needs 'host' and 'database'")
    port = server.setting("port")
    if port is not None and not isinstance(port, int):
        raise EndpointError(f"server '{server.name}': 'port' must be a number")
    user_variable, password_variable = credential_variables(server.name)
    password = os.environ.get(password_variable)
    return Endpoint(
        spec.name, database, schema, host, port or spec.default_port,
        os.environ.get(user_variable) or None, password,
        server=server.name, password_source=password_variable if password is not None else None,
    )

"""Spark Connect endpoints: `sc://host:15002/;token=…;use_ssl=true;schema=s` URLs and ODCS
servers of type `spark` or `databricks`. Kept apart from endpoint.py: Spark Connect's URL is
not an RFC 3986 URL with a password (`;key=value` parameters follow the path).

The token comes from the URL (else PACKATA_PASSWORD) or, for a server entry, from the
`PACKATA_<SERVER>_PASSWORD` variable; it is held in `Endpoint.password` and never shown.
"""

from __future__ import annotations

import os
from urllib.parse import unquote

from packata_sql import engines
from packata_sql.contracts.model import Server
from packata_sql.sessions.endpoint import PASSWORD_VARIABLE, Endpoint, EndpointError, credential_variables

ENGINE = "spark"
DEFAULT_PORT = engines.spec(ENGINE).default_port
#: Parameters the Spark Connect client reads; any other would be sent to the server as a
#: gRPC header, so it is refused rather than passed on.
CLIENT_PARAMETERS = ("use_ssl", "user_id", "user_agent", "session_id", "grpc_max_message_size")
#: Headers Databricks compute reads (`x-databricks-cluster-id=…`), passed on as they are.
HEADER_PREFIX = "x-databricks-"


def parse_spark_url(url: str) -> Endpoint:
    """`sc://host[:port][/];token=…;use_ssl=true;user_id=…;catalog=c;schema=s`."""
    scheme, separator, rest = url.partition("://")
    if scheme.lower() != "sc" or not separator:
        raise EndpointError("a Spark Connect URL starts with sc://")
    location, _, parameter_text = rest.partition(";")
    location = location.rstrip("/")
    if "/" in location or "@" in location:
        raise EndpointError("a Spark Connect URL is sc://host:port/;token=…; it has no path or user")
    host, _, port_text = location.rpartition(":") if ":" in location else (location, "", "")
    if not host:
        raise EndpointError("the Spark Connect URL has no host")
    try:
        port = int(port_text) if port_text else DEFAULT_PORT
    except ValueError:
        raise EndpointError("the Spark Connect URL's port is not a number") from None
    parameters: dict[str, str] = {}
    for item in filter(None, parameter_text.split(";")):
        key, equals, value = item.partition("=")
        if not equals:
            raise EndpointError(f"the Spark Connect URL parameter '{key}' has no value")
        parameters[key.strip()] = unquote(value)
    token = parameters.pop("token", None)
    user = parameters.pop("user_id", None)
    schema = tuple(v for v in (parameters.pop("catalog", None), parameters.pop("schema", None)) if v)
    unknown = sorted(key for key in parameters
                     if key not in CLIENT_PARAMETERS and not key.startswith(HEADER_PREFIX))
    if unknown:
        raise EndpointError(f"unknown Spark Connect URL parameter(s): {', '.join(unknown)}")
    source = "url" if token is not None else None
    if token is None and os.environ.get(PASSWORD_VARIABLE):
        token, source = os.environ[PASSWORD_VARIABLE], PASSWORD_VARIABLE
    return Endpoint(ENGINE, "", schema, host, port, user, token,
                    options=tuple(sorted(parameters.items())), password_source=source)


def spark_server_endpoint(server: Server) -> Endpoint:
    """An ODCS `spark`/`databricks` server: host, port (15002; Databricks 443 with TLS), catalog
    and schema; the token from PACKATA_<SERVER>_PASSWORD (a user id from …_USERNAME)."""
    host = server.setting("host")
    if not isinstance(host, str) or not host:
        raise EndpointError(f"server '{server.name}' needs 'host' (the Spark Connect server)")
    port = server.setting("port")
    if port is not None and not isinstance(port, int):
        raise EndpointError(f"server '{server.name}': 'port' must be a number")
    segments = [server.setting("catalog"), server.setting("schema")]
    schema = tuple(s for s in segments if isinstance(s, str) and s)
    user_variable, password_variable = credential_variables(server.name)
    token = os.environ.get(password_variable) or None
    # Databricks compute serves Spark Connect over TLS on 443 (documented, not tested here).
    databricks = server.type.lower() == "databricks"
    return Endpoint(ENGINE, "", schema, host.removeprefix("sc://").split("/")[0],
                    port or (443 if databricks else DEFAULT_PORT),
                    os.environ.get(user_variable) or None,
                    token, server=server.name,
                    options=(("use_ssl", "true"),) if databricks else (),
                    password_source=password_variable if token else None)


def connection_string(endpoint: Endpoint) -> str:
    """What the Spark Connect client is given; it holds the token, so it is never shown."""
    parameters = dict(endpoint.options)
    if endpoint.user:
        parameters["user_id"] = endpoint.user
    if endpoint.password:
        parameters["token"] = endpoint.password
    text = "".join(f";{key}={value}" for key, value in sorted(parameters.items()))
    return f"sc://{endpoint.host}:{endpoint.port}/{text}"

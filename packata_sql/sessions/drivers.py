"""How an Endpoint becomes a driver's connect arguments: time limits, TLS and passwords.

One place for what every connection of an engine shares, so the run's connection, a control
connection and `doctor` connect alike:
- Time limits: opening a connection (TCP, TLS, login) takes at most the endpoint's
  `connect_timeout_s`, which the runner bounds by `--timeout` and `--budget`: a server that
  accepts TCP and never answers ends as `connection-failed` (`connect-timeout`).
- TLS from URL parameters: libpq's `sslmode`/`sslrootcert`/`sslcert`/`sslkey`/`sslcrl`, and
  MySQL's `ssl_mode` with `ssl_ca`/`ssl_cert`/`ssl_key` (an `ssl.SSLContext` for PyMySQL).
- No password in clear text: unless the URL requires TLS, a server asking for a cleartext
  password (PostgreSQL `password`, MySQL `mysql_clear_password` or `dialog`) is refused before
  the password is sent.
- Passwords without the command line: for an endpoint the user named (`--url`), a password
  left out is found by libpq (`PGPASSWORD`, `~/.pgpass`) or read from `~/.my.cnf` through
  PyMySQL's option-file support. A host only the contract names gets none of the user's ambient
  credentials (no PGPASSWORD, password file, PGUSER or OS login name, client certificate or
  option file): its login comes from `PACKATA_<SERVER>_USERNAME` (LoginNeeded without it, before
  anything is sent) and its password from `PACKATA_<SERVER>_PASSWORD` or none is sent; a server
  that asks for one is told apart (`PasswordNeeded`, naming the variable).
"""

from __future__ import annotations

import math
import os
import signal
import ssl
import sys
import threading
from types import ModuleType
from typing import Any, NoReturn

from packata_sql.sessions.base import ProviderError
from packata_sql.sessions.endpoint import Endpoint, credential_variables

APPLICATION = "packata-sql"
MYSQL_OPTION_FILE = "~/.my.cnf"
_POSTGRES_TLS_REQUIRED = ("require", "verify-ca", "verify-full")
_MYSQL_TLS_REQUIRED = ("REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY")
# PyMySQL plugins that send the password as it is: mysql_clear_password, and MariaDB's PAM
# `dialog`, which answers a "Password: " prompt with it.
_CLEARTEXT_PLUGINS = ("mysql_clear_password", "dialog")


def import_driver(name: str) -> ModuleType:
    """`import name` with Ctrl-C held until the import is done: a C extension whose
    initialisation calls back into Python (DuckDB's, through nanobind) aborts the whole
    process when KeyboardInterrupt is raised inside it. The interrupt is delivered right
    after, to the handler that was there (so it still ends the run with exit 130)."""
    if threading.current_thread() is not threading.main_thread():
        return _imported(name)
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        return _imported(name)
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            signal.raise_signal(signal.SIGINT)


def _imported(name: str) -> ModuleType:
    """As the `import` statement does (which `-X importtime` reports; importlib's own
    import_module it does not)."""
    __import__(name)
    return sys.modules[name]


class ConnectTimeout(ProviderError):
    """The server took longer than the connect limit: said in those words on stderr and in
    `doctor`; reports carry `connection-timeout` with provider code `connect-timeout`."""

    def __init__(self) -> None:
        super().__init__("connection-timeout", "connect-timeout")
        self.args = ("the server did not answer in time to open a connection (the limit is "
                     "--timeout, or what is left of --budget; at most 10 s)",)


class LoginNeeded(ProviderError):
    """A host the contract names and no PACKATA_<SERVER>_USERNAME: the user's own login names
    (PGUSER, the OS login libpq and PyMySQL fall back to, ~/.my.cnf's user) are not offered to a
    host the user did not choose, so nothing is sent and the variable is named."""

    def __init__(self, endpoint: Endpoint) -> None:
        super().__init__("authentication-failed", "no-login")
        variable = credential_variables(endpoint.server or "")[0]
        self.args = (f"no login was given for this server of the contract: set {variable} (and "
                     "its _PASSWORD); PGUSER, the operating-system user and ~/.my.cnf serve only "
                     "a host named with --url",)


class PasswordNeeded(ProviderError):
    """A host the contract names asked for a password and none was given for it: the user's
    ambient passwords are not offered to it, so say which variable would give one."""

    def __init__(self, endpoint: Endpoint) -> None:
        super().__init__("authentication-failed", "no-password")
        variable = credential_variables(endpoint.server or "")[1]
        self.args = (f"the server asked for a password and none was given for this server of "
                     f"the contract: set {variable} (PGPASSWORD, ~/.pgpass and ~/.my.cnf serve "
                     "only a host named with --url)",)


def password_needed(endpoint: Endpoint, error: ProviderError) -> ProviderError:
    """`error`, or PasswordNeeded when a contract-named host without a password refused the
    login: its cause is then the password this endpoint may not take from the environment."""
    if (error.category == "authentication-failed" and not endpoint.ambient_credentials
            and not endpoint.password):
        return PasswordNeeded(endpoint)
    return error


def postgres_arguments(endpoint: Endpoint, libpq_version: int) -> dict[str, Any]:
    """Keyword arguments for `psycopg.connect`. For `--url`, no password means None, never "":
    libpq then looks in PGPASSWORD and ~/.pgpass itself. For a contract-named host it means
    "" and no password file, so libpq offers none of the user's passwords, and the login must
    be given (LoginNeeded otherwise)."""
    if not endpoint.ambient_credentials and not endpoint.user:
        raise LoginNeeded(endpoint)
    arguments: dict[str, Any] = {
        "host": endpoint.host, "port": endpoint.port, "dbname": endpoint.database,
        "user": endpoint.user, "password": endpoint.password or None,
        # libpq counts whole seconds and waits at least 2.
        "connect_timeout": max(1, math.ceil(endpoint.connect_timeout_s)),
        "application_name": APPLICATION, **dict(endpoint.options),
    }
    if endpoint.option("sslmode") not in _POSTGRES_TLS_REQUIRED and libpq_version >= 160000:
        arguments["require_auth"] = "!password"  # libpq 16+: never a cleartext password
    if not endpoint.ambient_credentials:
        # Given values win over PGPASSWORD, PGPASSFILE, PGUSER and a PGSERVICE entry.
        arguments.update(password=endpoint.password or "", passfile=os.devnull)
        if libpq_version >= 160000:  # nor ~/.postgresql/postgresql.crt
            arguments["sslcertmode"] = "disable"
    return arguments


def postgres_connect_failure(error: Exception) -> ProviderError | None:
    """The failures these arguments cause, or None to let the session classify the error."""
    if type(error).__name__ == "ConnectionTimeout":
        return ConnectTimeout()
    if "!password" in str(error):  # libpq names the require_auth value it could not meet
        return ProviderError("insecure-connection", "cleartext-password")
    if "no password supplied" in str(error):  # libpq had none to answer with
        return ProviderError("authentication-failed", "no-password")
    return None


def mysql_arguments(endpoint: Endpoint) -> dict[str, Any]:
    """Keyword arguments for `pymysql.connect`; reads and writes are bounded like connecting
    until `mysql_relax_timeouts` (statements have their own deadline). A contract-named host
    needs its login given and never reads ~/.my.cnf."""
    if not endpoint.ambient_credentials and not endpoint.user:
        raise LoginNeeded(endpoint)
    limit = max(endpoint.connect_timeout_s, 0.001)
    arguments: dict[str, Any] = {
        "host": endpoint.host, "port": endpoint.port or 3306, "user": endpoint.user or "",
        "password": endpoint.password or "", "database": endpoint.database or None,
        "connect_timeout": limit, "read_timeout": limit, "write_timeout": limit,
        "program_name": APPLICATION,
    }
    mode = endpoint.option("ssl_mode")
    if mode == "DISABLED":
        arguments["ssl_disabled"] = True
    elif mode in _MYSQL_TLS_REQUIRED:
        arguments["ssl"] = _mysql_tls(endpoint, mode)
    if mode not in _MYSQL_TLS_REQUIRED:
        arguments["auth_plugin_map"] = dict.fromkeys(_CLEARTEXT_PLUGINS, _RefuseCleartext)
    option_file = os.path.expanduser(MYSQL_OPTION_FILE)
    if not endpoint.password and endpoint.ambient_credentials and os.path.isfile(option_file):
        arguments["read_default_file"] = option_file  # its [client] password, user, ssl-*
    return arguments


def mysql_relax_timeouts(connection: Any) -> None:
    """After the connection is set up, statement reads wait as long as the statement may run:
    its deadline and `KILL QUERY` bound it. PyMySQL reads these attributes before each socket
    operation and has no public setter."""
    connection._read_timeout = None
    connection._write_timeout = None


def mysql_connect_failure(error: Exception) -> ProviderError | None:
    if _timed_out(error):
        return ConnectTimeout()
    return None


def _timed_out(error: BaseException) -> bool:
    """PyMySQL raises OperationalError from the socket's TimeoutError."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, TimeoutError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _mysql_tls(endpoint: Endpoint, mode: str) -> ssl.SSLContext:
    verify = mode in ("VERIFY_CA", "VERIFY_IDENTITY")
    try:
        context = ssl.create_default_context(cafile=endpoint.option("ssl_ca") if verify else None)
        context.check_hostname = mode == "VERIFY_IDENTITY"
        context.verify_mode = ssl.CERT_REQUIRED if verify else ssl.CERT_NONE
        certificate = endpoint.option("ssl_cert")
        if certificate:
            context.load_cert_chain(certificate, endpoint.option("ssl_key"))
    except (OSError, ValueError):  # ssl.SSLError is an OSError
        raise ProviderError("connection-failed", "tls-files") from None
    return context


class _RefuseCleartext:
    """A PyMySQL authentication handler that refuses, before sending anything, a server's
    request for the password in clear text on a connection whose TLS the URL did not require."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    def authenticate(self, packet: Any) -> NoReturn:
        raise ProviderError("insecure-connection", "cleartext-password")

    def prompt(self, echo: bool, prompt: bytes) -> NoReturn:
        raise ProviderError("insecure-connection", "cleartext-password")

"""The engine registry: every engine packata-sql renders SQL for or connects to, one spec each.

Nothing else lists engines: `get_dialect`, opening a session, reading URLs and ODCS server
types, the CLI's dialect list, doctor's login texts, plan traits and the test matrices are all
derived from `ENGINES`. Classes and functions are named by "module:attribute" strings and
imported only when used, so `--help` imports no driver and no sqlglot dialect, and a DuckDB run
no SQLAlchemy. A NamedTuple rather than a frozen dataclass (`dataclasses` imports `inspect`),
and no `from __future__ import annotations` (NamedTuple would compile each annotation string):
this module is imported by every start-up, `--help` included.

Adding an engine is a dialect module, a session module (none for a warehouse reached through
generated SQL only), its vectors and golden files, and one EngineSpec below;
tests/test_engine_registry.py proves it is wired everywhere.
"""

from importlib import import_module
from typing import Any, NamedTuple

FILE = "file"
NETWORK = "network"


class EngineSpec(NamedTuple):
    """What the code needs to know about one engine, without importing it."""

    #: The dialect name: `--dialect`, `Endpoint.engine`, vectors and golden file names.
    name: str
    #: How messages name the engine.
    title: str
    #: "module:Class" of its Dialect.
    dialect: str
    #: Other names `--dialect` and ODCS server types accept for it.
    aliases: tuple[str, ...] = ()
    #: "module:Class" of its session; None for a warehouse packata-sql only compiles for.
    session: str | None = None
    #: FILE (opened in-process on a database file) or NETWORK (a server); None without a session.
    kind: str | None = None
    #: URL schemes that reach it (before any `+driver`); the first is the one messages show.
    url_schemes: tuple[str, ...] = ()
    default_port: int | None = None
    #: ODCS server types a run connects to it for (the type `custom` aside).
    server_types: tuple[str, ...] = ()
    #: ODCS has no type for it: a `custom` server names it in format/engine/driver or a
    #: customProperties value.
    custom_server: bool = False
    #: "module:function" reading its URL into an Endpoint, when neither the file-URL reader
    #: nor SQLAlchemy's `make_url` can (Spark Connect's `sc://…;token=…`).
    url_reader: str | None = None
    #: "module:function" making an Endpoint of its ODCS server entry, when the generic
    #: host/port/database reading does not fit.
    server_reader: str | None = None
    #: "module:function" checking and normalising a server URL's query parameters (TLS).
    url_options: str | None = None
    #: The ODCS server setting that holds a file engine's database file.
    file_setting: str = "path"
    #: A file URL may name a schema (`?schema=`).
    url_schema: bool = False
    #: Its ODCS server's `database` is the schema (MySQL: `init` writes the object's schema).
    schema_is_database: bool = False
    #: An in-memory database can still be opened read-only.
    memory_read_only: bool = True
    #: Authored SQL can be bound for it (Dialect.authored_sql says the same; a test pins it).
    authored_sql: bool = True
    #: The engine whose SQL this one speaks: it shares that engine's vectors (Databricks).
    variant_of: str | None = None
    #: Where a network login comes from when neither the URL nor a variable names it (doctor).
    login_origin: str = "the driver's default"
    #: Where its driver finds a password a `--url` left out (`sessions/drivers.py`), for hints.
    ambient_password: str = ""
    #: What its secret is called in messages (Spark Connect's is a token).
    secret_word: str = "password"


ENGINES: tuple[EngineSpec, ...] = (
    EngineSpec(
        "duckdb", "DuckDB", "packata_sql.dialects.duckdb:DuckDB",
        session="packata_sql.sessions.duckdb:DuckDBSession", kind=FILE,
        url_schemes=("duckdb",), server_types=("duckdb",), file_setting="database",
        url_schema=True, memory_read_only=False,
    ),
    EngineSpec(
        "sqlite", "SQLite", "packata_sql.dialects.sqlite:SQLite",
        session="packata_sql.sessions.sqlite:SQLiteSession", kind=FILE,
        url_schemes=("sqlite",), server_types=("sqlite",), custom_server=True,
    ),
    EngineSpec(
        "postgres", "PostgreSQL", "packata_sql.dialects.postgres:Postgres",
        aliases=("postgresql",), session="packata_sql.sessions.postgres:PostgresSession",
        kind=NETWORK, url_schemes=("postgresql", "postgres"), default_port=5432,
        server_types=("postgres", "postgresql"),
        url_options="packata_sql.sessions.endpoint:postgres_options",
        login_origin="libpq's default: PGUSER, else the operating-system user",
        ambient_password="PGPASSWORD or ~/.pgpass",
    ),
    EngineSpec(
        "mysql", "MySQL", "packata_sql.dialects.mysql:MySQL",
        aliases=("mariadb",), session="packata_sql.sessions.mysql:MySQLSession",
        kind=NETWORK, url_schemes=("mysql", "mariadb"), default_port=3306,
        server_types=("mysql", "mariadb"), url_options="packata_sql.sessions.endpoint:mysql_options",
        schema_is_database=True, login_origin="PyMySQL's default: an empty user name",
        ambient_password="~/.my.cnf",
    ),
    EngineSpec("sqlserver", "SQL Server", "packata_sql.dialects.sqlserver:SQLServer",
               aliases=("mssql",)),
    EngineSpec(
        "spark", "Spark", "packata_sql.dialects.spark:Spark",
        session="packata_sql.sessions.spark:SparkConnectSession", kind=NETWORK,
        url_schemes=("sc",), default_port=15002, server_types=("spark", "databricks"),
        custom_server=True,  # the official ODCS schema has no `spark` type
        url_reader="packata_sql.sessions.spark_endpoint:parse_spark_url",
        server_reader="packata_sql.sessions.spark_endpoint:spark_server_endpoint",
        login_origin="Spark Connect's default: no user name (the token authenticates)",
        secret_word="token",
    ),
    EngineSpec("snowflake", "Snowflake", "packata_sql.dialects.generated:Snowflake",
               authored_sql=False),
    EngineSpec("bigquery", "BigQuery", "packata_sql.dialects.generated:BigQuery",
               authored_sql=False),
    EngineSpec("trino", "Trino", "packata_sql.dialects.generated:Trino", authored_sql=False),
    # Compiled only: a run reaches Databricks compute through the spark engine.
    EngineSpec("databricks", "Databricks", "packata_sql.dialects.spark:Databricks",
               variant_of="spark"),
)


def load(path: str) -> Any:
    """The attribute a "module:attribute" path names, importing its module now."""
    module, _, attribute = path.partition(":")
    return getattr(import_module(module), attribute)


def engine(name: str) -> EngineSpec | None:
    """The spec of a dialect name (not an alias), as `Endpoint.engine` holds it."""
    return next((spec for spec in ENGINES if spec.name == name), None)


def spec(name: str) -> EngineSpec:
    """The spec of a dialect name; KeyError for an engine the registry does not hold."""
    found = engine(name)
    if found is None:
        raise KeyError(name)
    return found


def named(name: str) -> EngineSpec | None:
    """The spec a `--dialect` value or ODCS server type names: a name or an alias, any case."""
    lowered = name.lower()
    return next((spec for spec in ENGINES if lowered == spec.name or lowered in spec.aliases),
                None)


def names() -> tuple[str, ...]:
    """Every dialect name, in registry order."""
    return tuple(spec.name for spec in ENGINES)


def names_and_aliases() -> tuple[str, ...]:
    """Every value `--dialect` accepts, each name followed by its aliases."""
    return tuple(word for spec in ENGINES for word in (spec.name, *spec.aliases))


def connectable() -> tuple[EngineSpec, ...]:
    """Engines a run can open a session on."""
    return tuple(spec for spec in ENGINES if spec.session is not None)


def of_kind(kind: str) -> tuple[str, ...]:
    return tuple(spec.name for spec in ENGINES if spec.kind == kind)


def for_scheme(scheme: str) -> EngineSpec | None:
    """The engine a URL scheme (lower case, without `+driver`) reaches."""
    return next((spec for spec in connectable() if scheme in spec.url_schemes), None)


def for_server_type(server_type: str) -> EngineSpec | None:
    """The engine a run connects to for an ODCS server type (not `custom`)."""
    lowered = server_type.lower()
    return next((spec for spec in connectable() if lowered in spec.server_types), None)


def custom_server_engines() -> tuple[str, ...]:
    """Engines an ODCS `custom` server may name."""
    return tuple(spec.name for spec in connectable() if spec.custom_server)


def dialect_for_server_type(server_type: str) -> EngineSpec | None:
    """The dialect `compile` renders for an ODCS server type: the dialect it names (Databricks
    compiles as Databricks), else the engine a run would connect to."""
    return named(server_type) or for_server_type(server_type)

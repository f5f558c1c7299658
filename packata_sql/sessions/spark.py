"""Spark (and Databricks compute) through Spark Connect, with the `pyspark-client` package.

Spark has no read-only mode: one SELECT can call static Java methods (`reflect`) or read any
server file by path, `spark.sql()` runs commands eagerly, and a client can set every SQL
setting back. The session reports these as escape routes (readonly.decide makes the level
`library-only`): generated SQL runs (one SELECT built from ASTs, no side-effect functions);
authored SQL runs only with --trust-environment, and even then only as one SELECT (parsed with
sqlglot's Spark grammar, Java calls and path relations refused) wrapped in
`SELECT * FROM (…) LIMIT 2`. What makes it safe is the login: on Databricks a principal with
only USE CATALOG / USE SCHEMA / SELECT grants.

Each statement carries an operation tag; a time limit or Ctrl-C interrupts it with
`interruptTag`. Settings that change how SQL text or names read are pinned per run.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import sqlglot
import sqlglot.expressions as exp

from packata_sql.dialects import Family
from packata_sql.dialects.facts import ColumnFact
from packata_sql.dialects.spark import DENY, Spark
from packata_sql.sessions.base import (
    Interrupted,
    LoginFacts,
    ProviderError,
    Refused,
    Result,
    TimedSession,
)
from packata_sql.sessions.endpoint import Endpoint
from packata_sql.sessions.spark_endpoint import connection_string

#: Pinned per session, so neither the server's configuration nor an earlier client changes
#: how the generated SQL reads: backslash escapes in literals, "…" as strings, ANSI errors
#: instead of silent NULLs, case-insensitive names, no SQL on files.
SETTINGS = {
    "spark.sql.parser.escapedStringLiterals": "false",
    "spark.sql.ansi.doubleQuotedIdentifiers": "false",
    "spark.sql.ansi.enabled": "true",
    "spark.sql.caseSensitive": "false",
    "spark.sql.runSQLOnFiles": "false",
}
#: What lets any login out of read-only on Spark: one SELECT can call Java (`reflect`,
#: `java_method`), read files by path or run a command (`TRANSFORM … USING`), and a client can
#: set every SQL setting back.
ROUTES = ("spark-java-calls", "spark-file-paths", "spark-script-transforms", "spark-client-settings")
LIBRARY_RULES = ("library rules: run as generated single SELECTs without side-effect functions; "
                 "the engine does not enforce read-only")
ADVICE = ("on Databricks, a principal granted only USE CATALOG, USE SCHEMA and SELECT on the "
          "checked objects (no MODIFY, CREATE or external-location write); an open-source Spark "
          "Connect server has one shared token and runs as its OS user, so its storage and "
          "catalog must be read-only themselves")
_FILE_FORMATS = frozenset({"parquet", "csv", "json", "orc", "text", "avro", "delta",
                           "binaryfile", "jdbc", "xml", "hive", "iceberg", "libsvm", "image",
                           "cloudfiles", "kafka"})
_MISSING = {"TABLE_OR_VIEW_NOT_FOUND", "UNRESOLVED_COLUMN", "PATH_NOT_FOUND"}
_MISSING_SCHEMA = {"SCHEMA_NOT_FOUND", "CATALOG_NOT_FOUND"}
_DENIED = {"INSUFFICIENT_PERMISSIONS", "UNAUTHORIZED_ACCESS", "PERMISSION_DENIED"}


def authored_problem(sql: str) -> str | None:
    """Why an authored query may not run on Spark, or None: it must parse as exactly one query
    without Java calls, file reads, path relations (`parquet.`/path``) or script transforms
    (`SELECT TRANSFORM(…) USING 'command'` runs an OS command on the executors)."""
    deny = DENY
    try:
        statements = [s for s in sqlglot.parse(sql, read="spark")
                      if s is not None and not isinstance(s, exp.Semicolon)]  # trailing comment
    except sqlglot.errors.SqlglotError:
        return "unparsable"
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        return "not-one-select"
    for node in statements[0].walk():
        if isinstance(node, exp.QueryTransform):
            return "script-transform"
        if isinstance(node, exp.Func):
            name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
            if deny.denied_function(name) is not None:
                return f"function:{name.lower()}"
        if isinstance(node, exp.Table):
            db = node.args.get("db")
            if db is not None and str(db.name).lower() in _FILE_FORMATS:
                return "path-relation"
            if "/" in node.name or ":" in node.name:
                return "path-relation"
    return None


def wrap(sql: str) -> str:
    """One SELECT around the authored query: a command inside it is a syntax error, and at most
    two rows are produced. The text stops at its first `;` (only blanks and comments may follow,
    as the binder checked); new lines keep a trailing `--` comment from eating the parenthesis."""
    ends = [t.start for t in sqlglot.tokenize(sql, read="spark")
            if t.token_type is sqlglot.TokenType.SEMICOLON]
    body = sql[:ends[0]] if ends else sql
    return f"SELECT * FROM (\n{body}\n) AS packata_rule LIMIT 2"


class SparkConnectSession(TimedSession):
    def __init__(self, endpoint: Endpoint) -> None:
        try:
            from pyspark.errors import PySparkException
            from pyspark.sql.connect.client.retries import DefaultPolicy
            from pyspark.sql.connect.session import SparkSession
        except ImportError:
            raise ProviderError("driver-missing", "pyspark") from None
        # The client logs every server error with the statement and a JVM stack (docs/semantics.md 5).
        logging.getLogger("SQLQueryContextLogger").disabled = True
        logging.getLogger("pyspark").setLevel(logging.CRITICAL)
        warnings.filterwarnings("ignore", message=r"\[RETRIES_EXCEEDED\]")
        self._errors: tuple[type[BaseException], ...] = (PySparkException,)
        self._builder = SparkSession.builder
        self._policy = DefaultPolicy
        self._endpoint = endpoint
        self._spark: Any = None
        self._tag = f"packata-sql-{uuid.uuid4().hex}"
        #: The running statement's stage progress (0–100), None until Spark reports it.
        self._stages_done: float | None = None
        self._dialect = Spark()  # typed: the session tells it whether the server has collations
        self.dialect = self._dialect
        # No read-only mode and no grants to verify on open-source Spark: authored SQL needs
        # --trust-environment (readonly.decide), library SQL is generated single SELECTs.
        self.facts = LoginFacts(provider_enforced=False, routes=ROUTES)
        self.library_rules = LIBRARY_RULES
        self.advice = ADVICE
        try:
            self.schema = self._timed(self._connect, endpoint.connect_timeout_s * 6)
        except Interrupted:
            raise ProviderError("connection-failed", "timeout") from None
        except ProviderError as error:
            if error.category in ("provider-error", "connection-lost", "timeout"):
                raise ProviderError("connection-failed", error.code) from None
            raise

    def _connect(self) -> str | None:
        self._spark = self._builder.remote(connection_string(self._endpoint)).create()
        # The default policy retries an unreachable server for 10 minutes; a few seconds here.
        self._spark.client.set_retry_policies([self._policy(max_retries=2, max_backoff=2000)])
        if hasattr(self._spark, "registerProgressHandler"):  # pyspark 4.0+: stage progress
            self._spark.registerProgressHandler(self._stage_progress)
        with warnings.catch_warnings():  # escapedStringLiterals is deprecated, still honoured
            warnings.simplefilter("ignore")
            for key, value in SETTINGS.items():
                self._spark.conf.set(key, value)
        major = int(str(self._spark.version).split(".")[0])
        self._dialect.collations = major >= 4
        schema = self._endpoint.schema
        if len(schema) == 1 and schema[0] == self._spark.conf.get(
                "spark.sql.globalTempDatabase", "global_temp"):
            # Global temporary views: a schema names them, but it cannot be made current;
            # library SQL qualifies every object with the declared schema anyway.
            return schema[0]
        try:
            if len(schema) > 1:
                self._spark.catalog.setCurrentCatalog(schema[-2])
            if schema:
                self._spark.catalog.setCurrentDatabase(schema[-1])
        except self._errors as error:
            raise self._missing_schema(schema[-1], _condition(error)) from None
        return str(self._spark.catalog.currentDatabase())

    def _run(self, sql: str, parameters: Sequence[object] | None) -> Result:
        """Generated SQL (None), or authored SQL without parameters: the dialect binds
        `{param:NAME}` by name, so values arrive through `_run_named`."""
        if parameters:
            raise ProviderError("provider-error", "positional-parameters")
        return self._authored(sql, {}) if parameters is not None else self._execute(sql, None)

    def _run_named(self, sql: str, parameters: Mapping[str, object]) -> Result:
        return self._authored(sql, parameters)

    def _authored(self, sql: str, parameters: Mapping[str, object]) -> Result:
        """A second wall behind the trust decision: one SELECT without Java or file reads,
        values bound server-side by name (`:name`), never spliced into the text."""
        problem = authored_problem(sql)
        if problem is not None:
            raise Refused(problem)
        return self._execute(wrap(sql), dict(parameters) or None)

    def _stage_progress(self, stages: Any, inflight_tasks: int, operation_id: str | None,
                        done: bool) -> None:
        """Spark Connect's progress handler (on the worker thread): the tasks done of the
        running operation's stages, as a percentage, for `_progress`."""
        total = sum(stage.num_tasks for stage in stages or ())
        if done:  # the operation ended: nothing stale for the next statement
            self._stages_done = None
        elif total > 0:
            self._stages_done = 100 * sum(stage.num_completed_tasks for stage in stages) / total

    def _progress(self) -> float | None:
        return self._stages_done

    def _execute(self, statement: str, args: dict[str, object] | None) -> Result:
        self._stages_done = None
        self._spark.addTag(self._tag)
        try:
            frame = self._spark.sql(statement, args=args)
            width = len(frame.columns)
            rows = [tuple(row) for row in frame.take(2)]
        finally:
            self._spark.removeTag(self._tag)
        return Result(width, rows)

    def _describe(self, segments: Sequence[str]) -> dict[str, Family]:
        fields = self._spark.sql(self.dialect.probe_sql(segments)).schema.fields
        return {str(f.name): self.dialect.family(f.dataType.simpleString()) for f in fields}

    def _facts(self, segments: Sequence[str]) -> tuple[ColumnFact, ...]:
        fields = self._spark.sql(self.dialect.probe_sql(segments)).schema.fields
        return tuple(ColumnFact(str(f.name), position, _declared_type(f),
                                self.dialect.family(f.dataType.simpleString()), bool(f.nullable))
                     for position, f in enumerate(fields, 1))

    def _objects(self, schema: str | None) -> list[str]:
        tables = self._spark.catalog.listTables(schema) if schema else self._spark.catalog.listTables()
        return sorted(str(t.name) for t in tables)

    def _schemas(self) -> list[str]:
        return sorted(str(database.name) for database in self._spark.catalog.listDatabases())

    def _interrupt(self) -> None:
        """Cancel the statement by its operation tag; the server answers with the operations
        it interrupted, and none (or no answer) leaves the cancellation unconfirmed."""
        interrupted: list[str] = []
        if self._spark is not None:
            with contextlib.suppress(Exception):  # the statement may have just finished
                interrupted = list(self._spark.interruptTag(self._tag))
        self._cancel_confirmed = bool(interrupted)

    def _terminate(self) -> None:
        """The tagged statement ignored its interruption: interrupt every operation of this
        Spark Connect session (it is the run's own)."""
        if self._spark is not None:
            with contextlib.suppress(Exception):
                if self._spark.interruptAll():
                    self._cancel_confirmed = True

    def _classify(self, error: Exception) -> ProviderError:
        condition = _condition(error)
        text = type(error).__name__
        if condition in _MISSING:
            return ProviderError("missing-object", condition)
        if condition in _MISSING_SCHEMA:
            return ProviderError("missing-schema", condition)
        if condition in _DENIED:
            return ProviderError("permission-denied", condition)
        if condition == "OPERATION_CANCELED":
            return ProviderError("timeout", condition)
        grpc_status = _grpc_status(error)
        if grpc_status == "UNAUTHENTICATED":
            return ProviderError("authentication-failed", grpc_status)
        if grpc_status in ("UNAVAILABLE", "DEADLINE_EXCEEDED"):
            return ProviderError("connection-lost", grpc_status)
        return ProviderError("provider-error", condition or grpc_status or text)

    def close(self) -> None:
        if self._spark is not None and not self._stuck:
            with contextlib.suppress(Exception):
                self._spark.stop()


def _declared_type(field: Any) -> str:
    """A column's type as the catalog declares it: Spark reads CHAR(n) and VARCHAR(n) columns
    as STRING and keeps the declared type in the field's metadata (DESCRIBE shows it too)."""
    declared = (field.metadata or {}).get("__CHAR_VARCHAR_TYPE_STRING")
    return declared if isinstance(declared, str) and declared else str(field.dataType.simpleString())


def _condition(error: BaseException) -> str | None:
    """Spark's error condition (`TABLE_OR_VIEW_NOT_FOUND`): a name, never the message."""
    getter = "getCondition" if hasattr(error, "getCondition") else "getErrorClass"
    for method in (getattr(error, getter, None),):
        if callable(method):
            with contextlib.suppress(Exception):
                value = method()
                if isinstance(value, str) and value:
                    return value.split(".")[0]
    return None


def _grpc_status(error: BaseException) -> str | None:
    """The gRPC status name of a transport failure (UNAUTHENTICATED, UNAVAILABLE…)."""
    for cause in (error, error.__cause__, error.__context__):
        code = getattr(cause, "code", None)
        if callable(code):
            with contextlib.suppress(Exception):
                value = code()
                name = getattr(value, "name", None)
                if isinstance(name, str):
                    return name
    text = str(error)
    for status in ("UNAUTHENTICATED", "UNAVAILABLE", "DEADLINE_EXCEEDED"):
        if status in text:
            return status
    return None

"""The only code that touches a database: one read-only session per run.

This module holds the protocol the runner sees, the error vocabulary and the deadline logic
every engine shares; one class per engine family lives in `packata_sql/sessions/`. Provider
messages never leave a session: failures become a `ProviderError` with a category and the
provider's error code.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from packata_sql import engines
from packata_sql.dialects import Dialect, Family
from packata_sql.dialects.facts import ColumnFact
from packata_sql.sessions.endpoint import Endpoint, login_hint
from packata_sql.sessions.readonly import (
    CREDENTIALS,
    ENFORCED,
    TRUSTED,
    Decision,
    LoginFacts,
    NotReadOnly,
    decide,
)
from packata_sql.spelling import closest_hint

__all__ = ["CREDENTIALS", "ENFORCED", "TRUSTED", "Decision", "LoginFacts"]

Rows = list[tuple[Any, ...]]
T = TypeVar("T")
STOP_GRACE_S = 10.0
#: The schemas a login can see (DuckDB, PostgreSQL, MySQL/MariaDB: its databases).
SCHEMAS_SQL = "SELECT DISTINCT schema_name FROM information_schema.schemata ORDER BY 1"


@dataclass(frozen=True)
class Result:
    """What a statement returned, bounded: its column count (0 without a result set) and at
    most two rows, enough to tell one row from several without reading the rest."""

    width: int
    rows: Rows
    #: The engine reports the column as the value of a boolean expression although the cell
    #: holds an integer 0/1 (MySQL/MariaDB comparisons; SQLite, which has no boolean type).
    boolean_valued: bool = False


class ProviderError(Exception):
    """A failure the engine reported, as a category users can act on plus the provider code."""

    MESSAGES: ClassVar[dict[str, str]] = {
        "connection-failed": "could not open a read-only connection to the database",
        "authentication-failed": "the server refused the login (wrong user, password or "
                                 "token)",
        "connection-refused": "the server refused the connection; is the database running and "
                              "listening on that host and port?",
        "host-not-found": "the host name could not be resolved; check the host in the URL or "
                          "the server entry",
        "connection-timeout": "the server did not answer in time; check the host, the port "
                              "and any firewall or VPN between",
        "unknown-database": "the server has no such database, or the login may not use it; "
                            "check the database name",
        "unknown-role": "the server has no such user (role); check the user name",
        "connection-lost": "the connection to the database was lost during the measurement",
        "missing-object": "the object does not exist or cannot be read",
        "missing-schema": "the declared schema does not exist or cannot be read",
        "permission-denied": "the read-only session refused the statement",
        "provider-error": "the database reported an error while measuring",
        "refused": "the connection would not be read-only",
        "driver-missing": "the engine's client package is not installed (Spark: pip install "
                          "'packata-sql[spark]')",
        "insecure-connection": (
            "the server asked for the password in clear text on a connection whose encryption "
            "the URL does not require; it was not sent (require TLS, e.g. ?sslmode=require or "
            "?ssl_mode=REQUIRED)"
        ),
        "denied-function": (
            "the query calls a function whose body acts beyond reading (a denied call or "
            "statement, dynamic SQL, a more powerful definer) or cannot be followed; it is "
            "refused in authored SQL"
        ),
        "read-only-not-guaranteed": (
            "the login can escape the engine's read-only mode (the report names the routes); "
            "this runs only with a login without them or with --trust-environment"
        ),
    }

    def __init__(self, category: str, code: str | None = None,
                 detail: str | None = None) -> None:
        super().__init__(self.MESSAGES.get(category, category))
        self.category = category
        self.code = code
        #: Safe words for the report (names only, never the provider's message).
        self.detail = detail


class Refused(Exception):
    """The session refuses to send the statement at all."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


UNCONFIRMED = ("the server did not confirm the cancellation; the statement may still be "
               "running there")


class Interrupted(Exception):
    """The statement was cancelled because its time limit ran out. `detail` says when the
    server did not confirm the cancellation (the report carries it)."""

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail or "interrupted")
        self.detail = detail


class Session(Protocol):
    dialect: Dialect
    facts: LoginFacts
    decision: Decision

    @property
    def read_only(self) -> str: ...
    #: The schema unqualified names resolve in, for library and authored SQL alike.
    schema: str | None

    def columns(self, segments: Sequence[str]) -> dict[str, Family]: ...

    def column_facts(self, segments: Sequence[str]) -> tuple[ColumnFact, ...]: ...

    def read_ahead(self, objects: Sequence[tuple[str, ...]]) -> None: ...

    def objects(self, schema: str | None) -> list[str]: ...

    def fetch_row(self, sql: str, limit_s: float,
                  parameters: Sequence[object] | Mapping[str, object] | None = None,
                  ) -> tuple[Any, ...]: ...

    def fetch_cell(self, sql: str, parameters: Sequence[object] | Mapping[str, object],
                   limit_s: float) -> Result: ...

    def cancel(self) -> None: ...

    def watch(self, watcher: Callable[[float], None] | None) -> None: ...

    def close(self) -> None: ...


def open_session(endpoint: Endpoint, *, trust_environment: bool) -> Session:
    """Raises ProviderError when no read-only session can be had. The session reports its
    facts; `readonly.decide` alone turns them into the level and the authored-SQL verdict.
    A refused login names what to check: the variable that gave this endpoint's password."""
    try:
        session = _engine_session(endpoint)
    except ProviderError as error:
        if type(error) is ProviderError and error.category == "authentication-failed":
            error.args = (f"{error}; {login_hint(endpoint)}",)
        raise
    try:
        session.decision = decide(session.facts, trust_environment=trust_environment)
    except NotReadOnly:
        session.close()
        raise ProviderError("refused", "not-read-only") from None
    return session


def _engine_session(endpoint: Endpoint) -> TimedSession:
    """The registry's session class for the endpoint's engine, imported only now."""
    spec = engines.engine(endpoint.engine)
    if spec is None or spec.session is None:
        raise ProviderError("connection-failed", "unsupported-engine")
    session: TimedSession = engines.load(spec.session)(endpoint)
    return session


class _Worker:
    """The one thread that runs a session's statements, in turn, kept while statements keep
    coming: handing a statement to a running thread costs a switch each way, where starting a
    thread for each cost a start-up handshake more (on a loaded machine, milliseconds per
    statement). It ends after IDLE_S without work, so no thread outlives its session's use."""

    IDLE_S = 2.0

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            self._jobs.put(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="packata-sql-statement",
                                                daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=self.IDLE_S)
            except queue.Empty:
                with self._lock:
                    if self._jobs.empty():
                        self._thread = None
                        return
                continue
            try:
                job()
            except BaseException:  # the job's own wrapper keeps its errors; this thread ends
                with self._lock:
                    self._thread = None
                raise


class TimedSession:
    """What every engine shares: statements run on a worker thread under a deadline, so the
    main thread can cancel them when the limit passes or Ctrl-C arrives (a statement inside an
    engine's C code would otherwise hold off Python's signal handling)."""

    dialect: Dialect
    schema: str | None = None
    #: What the engine found about the login; set by each engine's constructor.
    facts: LoginFacts
    #: What `readonly.decide` made of the facts; until then nothing authored may run.
    decision = Decision("unknown", False, ())
    #: A statement that ignored its interruption still holds the connection.
    _stuck = False
    #: False when the engine's cancellation of the last stopped statement was not confirmed
    #: by the server (set by `_interrupt` where the engine answers, as Spark's tags do).
    _cancel_confirmed = True
    #: The time limit of the statement being run, for engines that also enforce it server-side.
    limit_s = 300.0
    #: Column facts already read, per object (see column_facts).
    _facts_read: dict[tuple[str, ...], tuple[ColumnFact, ...]] | None = None
    #: Told the running statement's progress (0–100) while the main thread waits for it.
    _watcher: Callable[[float], None] | None = None
    #: The thread statements run on (see _Worker).
    _worker: _Worker | None = None
    #: The running statement's `finished` event, from its submission until it ends.
    _in_flight: threading.Event | None = None
    #: Seconds between interrupts while a stopped statement has not ended, for engines whose
    #: interrupt is lost when it arrives before the engine has started the statement (DuckDB,
    #: in-process, cheap to repeat; SQLite's statements end themselves at their deadline);
    #: None: one interrupt.
    _interrupt_again_s: float | None = None

    # Engine-specific, called on the worker thread.
    def _run(self, sql: str, parameters: Sequence[object] | None) -> Result:
        """`parameters` is None for generated SQL and a list for authored SQL."""
        raise NotImplementedError

    def _describe(self, segments: Sequence[str]) -> dict[str, Family]:
        raise NotImplementedError

    def _facts(self, segments: Sequence[str]) -> tuple[ColumnFact, ...]:
        """The object's columns from the engine's catalog; ProviderError when it is absent."""
        raise NotImplementedError

    def _facts_of(self, objects: Sequence[tuple[str, ...]]
                  ) -> dict[tuple[str, ...], tuple[ColumnFact, ...]]:
        """The columns of every object of `objects` the catalog has, in as few statements as
        the engine allows; engines without such a read return nothing (each object is then
        read on its own)."""
        return {}

    def _run_generated(self, sql: str, parameters: Sequence[object] | None) -> Result:
        """Generated library SQL (never authored text); engines whose guards allow a cheaper
        form for it override this."""
        return self._run(sql, parameters)

    #: The column families `columns` returns equal those of the object's column facts (the
    #: catalog's types read as the probe's result types would be), so facts read ahead spare
    #: the probe.
    _families_from_facts = False

    # Engine-specific, called on the main thread.
    def _interrupt(self) -> None:
        raise NotImplementedError

    def _classify(self, error: Exception) -> ProviderError:
        raise NotImplementedError

    def _progress(self) -> float | None:
        """The running statement's progress (0–100) as the engine reports it, asked on the
        main thread while the statement runs; None where the engine reports none (PostgreSQL:
        its pg_stat_progress_* views cover VACUUM, ANALYZE, CREATE INDEX, CLUSTER, COPY and
        base backups, never a SELECT; MySQL/MariaDB and SQLite have none for a query)."""
        return None

    # Engine-specific, called on the main thread after an interruption was ignored.
    def _terminate(self) -> None:
        """Ends the statement's connection from outside; engines that cannot, do nothing."""

    @property
    def read_only(self) -> str:
        return self.decision.level

    def cancel(self) -> None:
        """Stops the running statement, if one runs, and waits for it as a deadline would, so
        the session is not closed under it (DuckDB refuses to close a busy connection, and a
        statement still inside the engine when the process exits aborts it)."""
        running = self._in_flight
        if running is not None and not running.is_set():
            self._stop(running)
        else:
            self._interrupt()

    def watch(self, watcher: Callable[[float], None] | None) -> None:
        """Tells `watcher` each new progress value the engine reports while a statement runs
        (nothing on engines without one); None stops."""
        self._watcher = watcher

    def close(self) -> None:
        raise NotImplementedError

    def fetch_row(self, sql: str, limit_s: float,
                  parameters: Sequence[object] | Mapping[str, object] | None = None,
                  ) -> tuple[Any, ...]:
        """Generated library SQL; `parameters` are the values an Expressif variable reads
        (by name where the dialect binds by name), bound by the driver, never SQL text."""
        if isinstance(parameters, Mapping):
            named = dict(parameters)
            rows = self._timed(lambda: self._run_named(sql, named), limit_s).rows
        else:
            values = None if parameters is None else list(parameters)
            rows = self._timed(lambda: self._run_generated(sql, values), limit_s).rows
        if len(rows) != 1:
            raise ProviderError("provider-error", "not-one-row")
        return rows[0]

    def _run_named(self, sql: str, parameters: Mapping[str, object]) -> Result:
        """Authored SQL with `:name` markers, on engines whose dialect binds by name."""
        raise NotImplementedError

    def fetch_cell(self, sql: str, parameters: Sequence[object] | Mapping[str, object],
                   limit_s: float) -> Result:
        """Authored SQL; `parameters` are values in marker order, or by name where the
        dialect has `named_parameters`."""
        if not self.decision.authored_sql:
            raise ProviderError("read-only-not-guaranteed")
        if isinstance(parameters, Mapping):
            named = dict(parameters)
            return self._timed(lambda: self._run_named(sql, named), limit_s)
        return self._timed(lambda: self._run(sql, list(parameters)), limit_s)

    def columns(self, segments: Sequence[str]) -> dict[str, Family]:
        if self.decision.object_refused(tuple(segments)):
            raise ProviderError("read-only-not-guaranteed", "definer-object")
        known = (self._facts_read or {}).get(tuple(segments))
        if known is not None and self._families_from_facts:
            return {fact.name: fact.family for fact in known}
        return self._timed(lambda: self._describe(segments), 60.0)

    def read_ahead(self, objects: Sequence[tuple[str, ...]]) -> None:
        """Reads the column facts of the objects a run will read, all at once (one catalog
        statement per run where the engine can, rather than a few per object: on a remote
        engine each is a round trip). A failure reads nothing: each object is then read on
        its own, and its own error is the one reported."""
        if self._facts_read is None:
            self._facts_read = {}
        wanted = [key for key in dict.fromkeys(tuple(o) for o in objects)
                  if key not in self._facts_read and not self.decision.object_refused(key)]
        if not wanted:
            return
        try:
            found = self._timed(lambda: self._facts_of(wanted), 60.0)
        except (ProviderError, Interrupted):
            return
        self._facts_read.update(found)

    def column_facts(self, segments: Sequence[str]) -> tuple[ColumnFact, ...]:
        """Read once per object and session: an object's catalog checks and its column-type
        checks ask for the same facts, and on a remote engine each read is a round trip."""
        if self._facts_read is None:
            self._facts_read = {}
        key = tuple(segments)
        if key not in self._facts_read:
            self._facts_read[key] = self._timed(lambda: self._facts(segments), 60.0)
        return self._facts_read[key]

    def objects(self, schema: str | None) -> list[str]:
        """The tables and views the session may read in `schema` (None: its current one), for
        a hint when an object is missing."""
        return self._timed(lambda: self._objects(schema), 60.0)

    def _objects(self, schema: str | None) -> list[str]:
        raise NotImplementedError

    def _schemas(self) -> list[str]:
        """The schemas the login can see, for a hint when the declared one is missing;
        engine-specific, run while the session opens."""
        raise NotImplementedError

    def _missing_schema(self, declared: str, code: str | None = None) -> ProviderError:
        """`missing-schema` naming the declared schema and the closest one the login can see
        (names only: the report and stderr show this once for every rule)."""
        try:
            schemas = self._schemas()
        except Exception:  # the hint is a courtesy: the missing schema is the error
            schemas = []
        error = ProviderError("missing-schema", code)
        error.args = (f"{error}; {closest_hint('schema', declared, schemas)}",)
        return error

    def _stop(self, finished: threading.Event) -> None:
        """Cancel; if the statement ignores that, end its connection from a control
        connection, so the next statement runs on a fresh one and no backend outlives us."""
        self._cancel_confirmed = True
        self._interrupt()
        if self._ended(finished, STOP_GRACE_S):
            return
        self._terminate()
        if not finished.wait(STOP_GRACE_S):
            self._stuck = True

    def _ended(self, finished: threading.Event, seconds: float) -> bool:
        """Whether the stopped statement ends within `seconds`, interrupted again every
        `_interrupt_again_s` where an interrupt can be lost."""
        again = self._interrupt_again_s
        if again is None:
            return finished.wait(seconds)
        deadline = time.monotonic() + seconds
        while not finished.wait(min(again, max(deadline - time.monotonic(), 0.0))):
            if time.monotonic() >= deadline:
                return False
            self._interrupt()
        return True

    def _report_progress(self, shown: float | None) -> float | None:
        """Tells the watcher the engine's progress when it moved; what it was told last."""
        if self._watcher is None:
            return shown
        try:
            value = self._progress()
        except Exception:  # a progress read must never end the statement it watches
            return shown
        if value is None or value == shown or not 0 <= value <= 100:
            return shown
        self._watcher(value)
        return value

    def _timed(self, action: Callable[[], T], limit_s: float) -> T:
        if self._stuck:
            raise ProviderError("provider-error", "connection-busy")
        self.limit_s = max(limit_s, 0.001)
        outcome: dict[str, Any] = {}
        finished = threading.Event()  # not Thread.join: an interrupted join corrupts it (< 3.13)

        def work() -> None:
            try:
                outcome["value"] = action()
            except Exception as error:  # classified below, on the main thread
                outcome["error"] = error
            finally:
                finished.set()

        if self._worker is None:
            self._worker = _Worker()
        deadline = time.monotonic() + max(limit_s, 0.0)
        shown: float | None = None
        self._in_flight = finished
        try:
            # Submitted inside the try: an interrupt that arrives at once still stops it.
            self._worker.submit(work)
            while not finished.wait(min(max(deadline - time.monotonic(), 0.0), 0.1)):
                if time.monotonic() >= deadline:
                    self._stop(finished)
                    raise Interrupted(None if self._cancel_confirmed else UNCONFIRMED)
                shown = self._report_progress(shown)
        except KeyboardInterrupt:
            self._stop(finished)
            raise
        if "error" in outcome:
            error = outcome["error"]
            if isinstance(error, Refused):
                raise ProviderError("permission-denied", error.code) from error
            if isinstance(error, ProviderError):
                raise Interrupted if error.category == "timeout" else error
            classified = self._classify(error)
            if classified.category == "timeout":
                raise Interrupted
            raise classified from error  # the engine's own exception, for `--verbose` only
        value: T = outcome["value"]
        return value

"""The run history: every `check --history` run kept in a real database (docs/semantics.md,
run history), read back as `trends.History`.

On the run's floor and apart from it: the store is never the checked warehouse and is never
reached through a session (this unit imports no `sessions/`); SQLAlchemy Core talks to it.
`keep` is what `check --history` does after the run: append it (or spool it when the store
cannot take it), import earlier spooled runs, attach the contract's recent history.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from pathlib import Path

from packata_sql.history.errors import StoreUnavailable
from packata_sql.history.prune import Pruned
from packata_sql.history.prune import prune as _prune
from packata_sql.history.read import contracts, history, with_anomalies
from packata_sql.history.records import RunRecord, contract_identity, run_record
from packata_sql.history.spool import spool, spooled
from packata_sql.history.store import (
    DEFAULT_PATH,
    DEFAULT_TIMEOUT_S,
    SPOOL_DIR,
    Store,
    locate,
    reading,
    writing,
)
from packata_sql.history.write import append
from packata_sql.report import Report
from packata_sql.trends import History

__all__ = ["DEFAULT_LAST", "DEFAULT_PATH", "DEFAULT_TIMEOUT_S", "SPOOL_DIR", "Kept", "Pruned",
           "Store", "StoreUnavailable", "keep", "locate", "prune", "read", "record"]

DEFAULT_LAST = 20


@dataclass(frozen=True)
class Kept:
    """What keeping one run did: the report with its history attached (None when the store
    could not be written), the spool file it waits in instead, the one warning to print."""

    report: Report
    run_id: str
    recorded: bool
    imported: int = 0
    spooled: Path | None = None
    warning: str | None = None


def record(report: Report, store: Store, *, run_id: str | None = None,
           timeout: float = DEFAULT_TIMEOUT_S) -> str:
    """Appends one run in one transaction and returns its id; raises `StoreUnavailable`."""
    chosen = run_id or uuid.uuid4().hex
    with writing(store, timeout) as connection:
        append(connection, run_record(report, chosen))
    return chosen


def keep(report: Report, store: Store, *, last: int = DEFAULT_LAST,
         flag_anomalies: bool = False, timeout: float = DEFAULT_TIMEOUT_S,
         run_id: str | None = None) -> Kept:
    """`check --history`: spooled runs and this one appended in one transaction, then the
    contract's last `last` runs (this one included) attached as `report.history`. A store
    that cannot be written leaves the report as it is and the run spooled, with a warning."""
    chosen = run_id or uuid.uuid4().hex
    current = run_record(report, chosen)
    waiting = spooled(store)
    unreadable = [path for path, found in waiting if found is None]
    try:
        with writing(store, timeout) as connection:
            imported = sum(append(connection, found) for _, found in waiting if found)
            append(connection, current)
            found_history = history(connection, store.shown, contract_identity(report),
                                    last=last)
    except StoreUnavailable as refused:
        return _spooled(report, store, current, str(refused))
    for path, found in waiting:
        if found is not None:
            path.unlink(missing_ok=True)
    if flag_anomalies:
        found_history = with_anomalies(found_history)
    warning = (f"{len(unreadable)} spooled run(s) under {SPOOL_DIR} could not be read and were "
               "left in place") if unreadable else None
    return Kept(replace(report, history=found_history), chosen, True, imported,
                warning=warning)


def _spooled(report: Report, store: Store, current: RunRecord, reason: str) -> Kept:
    try:
        path = spool(store, current)
    except OSError:
        return Kept(report, current.run_id, False,
                    warning=f"{reason}; nor could it be spooled under {SPOOL_DIR}: this run "
                            "is not kept")
    return Kept(report, current.run_id, False, spooled=path,
                warning=f"{reason}; the run is spooled in {path} and the next --history run "
                        "that reaches the store imports it")


def read(store: Store, *, contract_id: str | None = None, rule: str | None = None,
         last: int = DEFAULT_LAST) -> tuple[History, ...]:
    """One `History` per contract (or only `contract_id`'s), newest contract first."""
    with reading(store) as connection:
        chosen = [contract_id] if contract_id is not None else contracts(connection)
        return tuple(history(connection, store.shown, name, last=last, rule=rule)
                     for name in chosen)


def prune(store: Store, *, keep_days: int | None = None, keep_runs: int | None = None,
          timeout: float = DEFAULT_TIMEOUT_S) -> Pruned:
    """Deletes old runs and their rules in one transaction."""
    with writing(store, timeout) as connection:
        return _prune(connection, keep_days=keep_days, keep_runs=keep_runs)

"""Runs that could not reach their store wait as files under `.packata/spool/` (in the
current directory) and are imported, then removed, by the next run that reaches that store.
A spool file holds exactly what the store would (`RunRecord`), so nothing more can leak."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from packata_sql.history.records import RunRecord
from packata_sql.history.store import SPOOL_DIR, Store


def _folder(store: Store) -> Path:
    """One folder per store, named by a digest of its credential-free address."""
    digest = hashlib.sha256(store.shown.encode("utf-8")).hexdigest()[:16]
    return SPOOL_DIR / digest


def spool(store: Store, record: RunRecord) -> Path:
    """Writes the run atomically (a temporary file renamed): a reader never sees half."""
    folder = _folder(store)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{record.run_id}.json"
    partial = folder / f".{record.run_id}.partial"
    partial.write_text(record.to_json(), encoding="utf-8")
    os.replace(partial, path)
    return path


def spooled(store: Store) -> list[tuple[Path, RunRecord | None]]:
    """The spooled runs for this store, oldest file first; None for a file that cannot be
    read as a run (left in place, reported by the caller)."""
    folder = _folder(store)
    if not folder.is_dir():
        return []
    found: list[tuple[Path, RunRecord | None]] = []
    for path in sorted(folder.glob("*.json"), key=lambda p: (p.stat().st_mtime_ns, p.name)):
        try:
            found.append((path, RunRecord.from_json(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError, KeyError, TypeError):
            found.append((path, None))
    return found

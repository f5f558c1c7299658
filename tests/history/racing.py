"""Four processes writing one store at once, released together (shared by the SQLite test
here and the PostgreSQL one in integration/)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

WRITER = Path(__file__).with_name("writer.py")
ROOT = Path(__file__).resolve().parents[2]


def race(place: Path, store: str, writers: int = 4) -> list[str]:
    """The run ids the writers recorded, after all of them were released at one moment."""
    processes = [subprocess.Popen(
        [sys.executable, str(WRITER), str(place / "orders.yaml"),
         f"duckdb:///{place / 'w.duckdb'}", store], cwd=place, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)}) for _ in range(writers)]
    try:
        for process in processes:
            assert process.stdout is not None and process.stdout.readline() == "ready\n"
        for process in processes:  # every writer is waiting: go
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        ids = []
        for process in processes:
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0, err
            ids.append(out.strip())
        return ids
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()

"""Progress on stderr, never stdout: a transient rich display on a terminal, plain lines per
statement in CI or when piped, nothing with `--progress none`."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from packata_sql.api import Progress
from packata_sql.render.neutral import terminal


def choose(mode: str, stream: TextIO | None = None) -> str:
    """`auto` becomes `live` on a terminal outside CI, else `plain`. Streams default to the
    `sys.stderr` of the moment (a default bound at import would keep a replaced, closed one)."""
    if mode != "auto":
        return mode
    import os

    if os.environ.get("CI") or not (stream or sys.stderr).isatty():
        return "plain"
    return "live"


class PlainProgress:
    """One line when a scan or SQL rule starts and one when it ends, with elapsed time."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = 0
        self.done = 0
        self.started = time.monotonic()
        self.step_started = self.started

    def __call__(self, event: Progress) -> None:
        now = time.monotonic()
        if event.step == "started":
            self.total = event.total
            return
        if event.step in ("scan", "sql"):
            self.step_started = now
            what = (f"scanning {event.label} ({event.rules} rule{'s' if event.rules != 1 else ''}"
                    f"{', fused' if event.rules > 1 else ''})" if event.step == "scan"
                    else f"running SQL rule {event.label}")
            self.write(f"{what} …")
        elif event.step == "done":
            self.done += event.rules
            self.write(f"{event.label}: done in {now - self.step_started:.2f} s · "
                       f"{self.done}/{self.total} rules · {now - self.started:.1f} s elapsed")

    def write(self, line: str) -> None:
        print(f"packata-sql: {terminal(line)}", file=self.stream, flush=True)

    def close(self) -> None:
        """Nothing to tidy: every line is already written."""


class LiveProgress:
    """A rich progress bar that disappears when the run ends (transient)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        # Descriptions hold rule keys and object names: text, never rich markup.
        self.bar = Bar(TextColumn("{task.description}", markup=False), BarColumn(),
                       MofNCompleteColumn(), TimeElapsedColumn(),
                       console=Console(file=stream or sys.stderr), transient=True)
        self.task = self.bar.add_task("connecting", total=None)
        self.bar.start()

    def __call__(self, event: Progress) -> None:
        if event.step == "started":
            self.bar.update(self.task, total=event.total, description="checking")
        elif event.step == "scan":
            fused = " (fused scan)" if event.rules > 1 else ""
            self.bar.update(self.task, description=terminal(f"{event.label}{fused}"))
        elif event.step == "sql":
            self.bar.update(self.task, description=terminal(f"SQL rule {event.label}"))
        elif event.step == "done":
            self.bar.advance(self.task, event.rules)

    def close(self) -> None:
        self.bar.stop()


def start(mode: str) -> tuple[Callable[[Progress], None] | None, Callable[[], None]]:
    """The observer for the run and how to close it."""
    chosen = choose(mode)
    if chosen == "none":
        return None, lambda: None
    observer: PlainProgress | LiveProgress = LiveProgress() if chosen == "live" else PlainProgress()
    return observer, observer.close

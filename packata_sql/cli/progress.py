"""Progress on stderr, never stdout: a transient rich display on a terminal (with the engine's
own progress of a long scan where it reports it, else the step's elapsed time), plain lines
per statement in CI or when piped (no progress values: a log has no use for them), nothing
with `--progress none`."""

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
    """A rich display that disappears when the run ends (transient): a line for the rules
    done of all, and one for the running scan or SQL rule with the engine's own progress
    where it reports it (DuckDB, Spark), else a moving bar and the step's elapsed time, so a
    long fused scan never shows a frozen `0/15`."""

    def __init__(self, stream: TextIO | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        # Descriptions hold rule keys and object names: text, never rich markup.
        self.bar = Bar(SpinnerColumn(), TextColumn("{task.description}", markup=False),
                       BarColumn(), TextColumn("{task.fields[amount]}", markup=False),
                       TimeElapsedColumn(), console=Console(file=stream or sys.stderr),
                       transient=True)
        self.total = 0
        self.done = 0
        self.task = self.bar.add_task("connecting", total=None, amount="")
        self.step = self.bar.add_task("", total=None, amount="", visible=False)
        self.bar.start()

    def __call__(self, event: Progress) -> None:
        if event.step == "started":
            self.total = event.total
            self.bar.update(self.task, total=event.total, description="checking",
                            amount=f"{self.done}/{self.total} rules")
        elif event.step in ("scan", "sql"):
            fused = " (fused scan)" if event.rules > 1 else ""
            what = f"{event.label}{fused}" if event.step == "scan" else f"SQL rule {event.label}"
            # A new task each step: its clock starts now, and without a total its bar moves
            # (indeterminate) until the engine reports progress.
            self.bar.remove_task(self.step)
            self.step = self.bar.add_task(terminal(what), total=None, amount="")
        elif event.step == "progress" and event.percent is not None:
            self.bar.update(self.step, total=100, completed=event.percent,
                            amount=f"{event.percent:.0f} %")
        elif event.step == "done":
            self.done += event.rules
            self.bar.update(self.task, advance=event.rules,
                            amount=f"{self.done}/{self.total} rules")

    def close(self) -> None:
        self.bar.stop()


def start(mode: str) -> tuple[Callable[[Progress], None] | None, Callable[[], None]]:
    """The observer for the run and how to close it."""
    chosen = choose(mode)
    if chosen == "none":
        return None, lambda: None
    observer: PlainProgress | LiveProgress = LiveProgress() if chosen == "live" else PlainProgress()
    return observer, observer.close

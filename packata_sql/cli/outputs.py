"""Where a run's reports go: stdout in one format plus any number of `--output KIND=FILE`
files, all from the same scan. Every file is checked writable before connecting, so a typo
in a path never costs a warehouse scan."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from packata_sql.errors import UsageError
from packata_sql.render import render
from packata_sql.report import Report
from packata_sql.spelling import choice_hint

FILE_KINDS = ("json", "junit", "markdown", "html")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,30}")


@dataclass(frozen=True)
class Output:
    kind: str
    path: Path
    bare: bool = False  # given as a bare FILE, in the --format


def stdout_format(requested: str | None) -> str:
    """`--format`, else GitHub annotations inside GitHub Actions, else the table."""
    if requested:
        return requested
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "table"


def parse_outputs(raw: list[str], bare_kind: str) -> list[Output]:
    """`KIND=FILE`, or a bare FILE written in `bare_kind` (the --format)."""
    outputs = []
    for text in raw:
        kind, separator, path = text.partition("=")
        if separator and kind in FILE_KINDS and path:
            outputs.append(Output(kind, Path(path)))
        elif separator and kind and os.sep not in kind and "." not in kind:
            # A word is shown, as choices are; anything else (a URL's piece, a secret) is not.
            shown = kind if _WORD.fullmatch(kind) else "(not shown)"
            raise UsageError(f"--output: {choice_hint('report kind', shown, FILE_KINDS)}, "
                             "as KIND=FILE")
        else:
            outputs.append(Output(bare_kind, Path(text), bare=True))
    return outputs


def check_writable(outputs: list[Output]) -> None:
    """Every output file can be written, and no two reports share one (the second would
    silently replace the first)."""
    taken: dict[Path, Output] = {}
    for output in outputs:
        path = output.path
        first = taken.setdefault(path.resolve(), output)
        if first is not output:
            raise UsageError(f"--output {output.kind}: {path} is also the {first.kind} report's "
                             "file; give each report a file of its own")
        folder = path.parent if str(path.parent) else Path(".")
        if path.is_dir():
            raise UsageError(f"--output {output.kind}: {path} is a directory; give a file name")
        if not folder.is_dir():
            raise UsageError(f"--output {output.kind}: the folder {folder} does not exist; "
                             "create it first")
        if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise UsageError(f"--output {output.kind}: {path} is not writable")


def write_outputs(report: Report, outputs: list[Output], *, fail_on_warning: bool) -> None:
    for output in outputs:
        text = render(report, output.kind, color=False, fail_on_warning=fail_on_warning)
        try:
            output.path.write_text(text, encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot write {output.path} ({error.strerror})") from None


def terminal() -> tuple[bool, int | None]:
    """Colour and width for stdout as rich detects them (TTY, NO_COLOR, FORCE_COLOR,
    COLUMNS); None width off a terminal, where the table keeps its file width."""
    from rich.console import Console

    console = Console(file=sys.stdout)
    colour = console.is_terminal and console.color_system is not None and not console.no_color
    sized = console.is_terminal or bool(os.environ.get("COLUMNS"))
    return colour, console.width if sized else None

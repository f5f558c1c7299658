"""`packata-sql history`: per contract, each rule's last statuses as a sparkline, when it
last changed, the first failure of its current streak and whether it flaps; or the JSON
document tools read (docs/cli.md, history)."""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from packata_sql.render.json import dumps
from packata_sql.render.neutral import terminal
from packata_sql.render.words import moment_text, runs_text, trend_notes
from packata_sql.report import history_document
from packata_sql.trends import GLYPHS, History

FORMAT = "packata-sql/history@1"
FILE_WIDTH = 120


def render_history_json(histories: Sequence[History]) -> str:
    return dumps({"format": FORMAT,
                  "contracts": [history_document(found) for found in histories]}) + "\n"


def render_history_table(histories: Sequence[History], *, color: bool = False,
                         width: int | None = None) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color,
                      width=width or FILE_WIDTH, highlight=False, emoji=False)
    if not histories:
        console.print(Text("no runs in the history store yet"))
    for found in histories:
        runs = found.runs
        span = (f" · {moment_text(runs[0].observed_at)} … {moment_text(runs[-1].observed_at)}"
                if runs else "")
        table = Table(title=Text(terminal(f"history · {found.contract} · {runs_text(len(runs))}"
                                          f"{span}")), title_justify="left", expand=False)
        table.add_column("rule", overflow="fold")
        table.add_column("runs", no_wrap=True)
        table.add_column("now", no_wrap=True)
        table.add_column("last changed", no_wrap=True)
        table.add_column("notes", overflow="fold")
        for trend in found.rules:
            changed = trend.last_changed_at
            table.add_row(Text(terminal(trend.key)), Text(trend.sparkline),
                          Text(trend.statuses[-1] if trend.points else ""),
                          Text(moment_text(changed) if changed else "never"),
                          Text(terminal(" · ".join(trend_notes(trend)))))
        console.print(table)
        console.print(Text(terminal(f"store: {found.store}")))
    legend = ", ".join(f"{glyph} {status}" for status, glyph in GLYPHS.items())
    console.print(Text(f"runs, oldest first: {legend}"))
    return buffer.getvalue()

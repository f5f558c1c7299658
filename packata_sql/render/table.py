"""The human report: a rich table. The caller decides colour and width (rich detects them
for a terminal, honouring NO_COLOR and FORCE_COLOR); files get plain text."""

from __future__ import annotations

import io
import re

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from packata_sql.contracts.model import Severity
from packata_sql.render.neutral import terminal
from packata_sql.render.words import (
    OUTCOME_COLOURS,
    description,
    duration,
    expectation_shown,
    headline,
    history_notes,
    inspect_hint,
    label,
    nothing_executed,
    ordered,
    problem_lines,
    row_reason,
    runs_text,
    status_word,
    value_text,
)
from packata_sql.report import Report, RuleResult, Status

_STYLES = {
    Status.PASSED: "green",
    Status.FAILED: "bold red",
    Status.ERROR: "magenta",
    Status.INCONCLUSIVE: "yellow",
    Status.SKIPPED: "dim",
}
FILE_WIDTH = 100


def _status(result: RuleResult) -> Text:
    style = _STYLES[result.status]
    if result.status is Status.FAILED and result.severity is Severity.WARNING:
        style = "yellow"
    return Text(status_word(result).replace(" (", "\n("), style=style)


def _descriptive(report: Report) -> str:
    """Rules that describe quality (text, custom for other tools) and were not executed."""
    count = report.descriptive_only
    if not count:
        return ""
    rules = "rule is" if count == 1 else "rules are"
    if report.accept_unexecutable:
        return f" · {count} descriptive {rules} accepted unexecuted"
    return (f" · {count} {rules} descriptive only, not executable here"
            " (--accept-unexecutable accepts them)")


class _Key:
    """A rule key that wraps between its parts (`schema[orders].` `properties[email].`
    `logicalTypeOptions.maxLength`), never inside a name, so the key reads (and copies) whole;
    only a part wider than the column is folded."""

    _PARTS = re.compile(r"[^.\[]*(?:\[[^\]]*\])?\.?|.+")

    def __init__(self, key: str, style: str = "") -> None:
        self.key, self.style = terminal(key), style

    def parts(self) -> list[str]:
        return [p for p in self._PARTS.findall(self.key) if p]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(max(map(cell_len, self.parts())), cell_len(self.key))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = [""]
        for part in self.parts():
            if lines[-1] and cell_len(lines[-1] + part) > options.max_width:
                lines.append("")
            lines[-1] += part
        yield Text("\n".join(line.rstrip(" ") for line in lines), style=self.style,
                   overflow="fold")


class _Hint(_Key):
    """The `inspect:` hint: one line where it fits, else wrapped between its words and, in the
    rule key, between the key's parts."""

    _PARTS = re.compile(r"[^.\[ ]*(?:\[[^\]]*\])?[. ]?|.+")


def _rule_cell(report: Report, result: RuleResult) -> Group:
    """The label, the key beneath it when they differ, a SQL rule's description, the reason it
    did not run cleanly, its history notes (`check --history`), a failed rule's `inspect:`
    hint and, with --show-sql, the SQL."""
    parts: list[Text | _Key] = [Text(terminal(label(result)))]
    if label(result) != result.key:
        parts.append(_Key(result.key, "dim"))
    said = description(result)
    if said:
        parts.append(Text(terminal(said), style="italic"))
    if result.status is not Status.FAILED and result.diagnostic is not None:
        parts.append(Text(terminal(row_reason(result)), style=_STYLES[result.status]))
    notes = history_notes(report, result)
    if notes:
        parts.append(Text(terminal(" · ".join(notes)), style="yellow"))
    hint = inspect_hint(result)
    if hint:
        parts.append(_Hint(hint, "dim"))
    if result.sql:
        parts.append(Text(terminal(result.sql, lines=True), style="cyan"))
    return Group(*parts)


def _measured_cell(result: RuleResult) -> Text:
    text = Text(terminal(value_text(result)))
    expected = terminal(expectation_shown(result))  # a failed rule: the parts it failed
    if expected:
        expected = "expected " + expected
        text.append(("\n" if text else "") + expected, style="dim" if result.status is
                    Status.PASSED else "")
    return text


# What rich's own rendering would change: tabs, control characters, line separators other
# than "\n" (read by `Text` as lines when it measures).
_NOT_PLAIN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _cell_lines(cell: object) -> list[str] | None:
    """A cell's lines as rich writes them when every line fits its column: a `Text` line by
    line, a key whole (as `_Key` writes one that fits), a `Group` its parts' lines in turn;
    None for anything else."""
    if isinstance(cell, Group):
        lines: list[str] = []
        for part in cell.renderables:
            found = _cell_lines(part)
            if found is None:
                return None
            lines += found
        return lines
    if isinstance(cell, _Key):
        return None if _NOT_PLAIN.search(cell.key) or "\n" in cell.key else [cell.key.rstrip(" ")]
    if isinstance(cell, Text):
        return None if _NOT_PLAIN.search(cell.plain) else cell.plain.split("\n")
    if isinstance(cell, str):
        return None if _NOT_PLAIN.search(cell) else cell.split("\n")
    return None


def _widest(cell: object) -> int:
    """The cell's widest line as rich measures it (`_Key`: the whole key)."""
    if isinstance(cell, Group):
        return max((_widest(part) for part in cell.renderables), default=0)
    text = cell.key if isinstance(cell, _Key) else cell.plain if isinstance(cell, Text) else \
        str(cell)
    return max((cell_len(line) for line in text.split("\n")), default=0)


def _plain_table(table: Table, width: int) -> str | None:
    """The table without colour exactly as rich prints it when every line of every cell fits
    its column at the columns' natural widths (no wrapping, no folding): each line padded
    to its column, in rich's box. rich lays out each cell of each row (≈ 0.3 ms a row: 1.4 s
    for the 4,000 rules of 500 tables); this writes the same text in a few ms. None when any
    cell needs rich's own layout (a line wider than its column, a tab, a control character,
    a title wider than the table): the caller then prints the table through rich.
    tests/render/test_plain_table.py holds the two equal."""
    columns = table.columns
    cells = [[column.header, *column.cells] for column in columns]
    lines = [[_cell_lines(cell) for cell in column] for column in cells]
    if any(found is None for column in lines for found in column):
        return None
    widths = [max(max(map(_widest, column)), (c.min_width or 0)) + 2
              for c, column in zip(columns, cells, strict=True)]
    table_width = sum(widths) + len(columns) + 1
    title = table.title
    title_text = title.plain if isinstance(title, Text) else str(title or "")
    if table_width > width or cell_len(title_text) > table_width or "\n" in title_text \
            or _NOT_PLAIN.search(title_text):
        return None

    def row(parts: list[list[str] | None], edge: str, inner: str) -> list[str]:
        height = max(len(part or ()) for part in parts)
        out = []
        for index in range(height):
            texts = []
            for column, part, size in zip(columns, parts, widths, strict=True):
                text = part[index] if part is not None and index < len(part) else ""
                room = size - 2
                if column.justify == "right":
                    text = text.rstrip()
                    text = " " * (room - cell_len(text)) + text
                else:
                    text = text + " " * (room - cell_len(text))
                texts.append(f" {text} ")
            out.append(edge + inner.join(texts) + edge)
        return out

    rows = list(zip(*lines, strict=True))
    body = [f"{title_text}{' ' * (table_width - cell_len(title_text))}"] if title else []
    body.append("┏" + "┳".join("━" * size for size in widths) + "┓")
    body += row(list(rows[0]), "┃", "┃")
    body.append("┡" + "╇".join("━" * size for size in widths) + "┩")
    for cells_of_row in rows[1:]:
        body += row(list(cells_of_row), "│", "│")
    body.append("└" + "┴".join("─" * size for size in widths) + "┘")
    return "\n".join(body) + "\n"


def render_table(report: Report, *, color: bool, width: int | None = None) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color,
                      width=width or FILE_WIDTH, highlight=False, emoji=False)
    schema = f" · schema: {report.schema}" if report.schema else ""
    # A Text title: a str title would be read as rich markup (`[/red]` in a path).
    table = Table(title=Text(terminal(f"packata-sql check · {report.contract}{schema}")),
                  title_justify="left",
                  expand=False, show_lines=False)
    table.add_column("status", no_wrap=True)
    table.add_column("rule", overflow="fold")
    table.add_column("measured", overflow="fold", justify="right", min_width=14)
    for result in ordered(report.results):
        table.add_row(_status(result), _rule_cell(report, result), _measured_cell(result))
    for line in problem_lines(report):  # above the rows that say `not measured: see above`
        console.print(Text.assemble(("error", _STYLES[Status.ERROR]), terminal(f" {line}")))
    plain = None if color else _plain_table(table, console.width)
    if plain is None:
        console.print(table)
    else:
        buffer.write(plain)
    # Rule errors already show as skipped rows; list warnings and contract-level problems.
    notes = [f for f in report.findings if f.level.value == "warning" or f.rule_key is None]
    for finding in notes:
        where = f"{finding.source_path}" + (f" (line {finding.line})" if finding.line else "")
        console.print(Text.assemble((finding.level.value, "yellow"),
                                    terminal(f" {finding.code} at {where}: {finding.message}")))
    categories = report.summary_by_category()
    if len(categories) > 1:
        for category, summary in categories.items():
            shown = ", ".join(f"{n} {s}" for s, n in summary.items() if n)
            console.print(Text(f"{category}: {shown}"))
    why_not = nothing_executed(report)
    if why_not:
        console.print(Text.assemble(("incomplete", "yellow"), terminal(f": {why_not}")))
    outcome, _, rest = headline(report).partition(" · ")
    console.print(Text.assemble(
        (outcome, f"bold {OUTCOME_COLOURS[report.outcome]}"),
        terminal(f" · {rest}{_descriptive(report)}"
                 f" · read-only: {report.read_only or 'not connected'}"
                 + (f" · authored SQL: {report.authored_sql}" if report.authored_sql else "")
                 + f" · target: {report.target}" + (" · interrupted" if report.interrupted else "")
                 + (f" · {duration(report)}" if report.elapsed_ms is not None else "")),
    ))
    if report.routes:
        console.print(Text.assemble(("routes", "yellow"),
                                    " the login can escape read-only through: ",
                                    terminal(", ".join(report.routes))))
    for advice in report.hardening:
        console.print(Text.assemble(("hardening", "yellow"), f" {terminal(advice)}"))
    if report.history is not None:
        console.print(Text(terminal(f"history: {runs_text(len(report.history.runs))} in "
                                    f"{report.history.store}")))
    return buffer.getvalue()

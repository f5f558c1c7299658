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


def _status_text(result: RuleResult) -> tuple[str, str]:
    """The status cell's text and style."""
    style = _STYLES[result.status]
    if result.status is Status.FAILED and result.severity is Severity.WARNING:
        style = "yellow"
    return status_word(result).replace(" (", "\n("), style


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


#: A part of a rule cell: its kind ("text"; "key" and "hint" wrap between their parts), its
#: text, already made inert, and its style.
_Part = tuple[str, str, str]


def _rule_parts(report: Report, result: RuleResult) -> list[_Part]:
    """The label, the key beneath it when they differ, a SQL rule's description, the reason it
    did not run cleanly, its history notes (`check --history`), a failed rule's `inspect:`
    hint and, with --show-sql, the SQL."""
    parts: list[_Part] = [("text", terminal(label(result)), "")]
    if label(result) != result.key:
        parts.append(("key", terminal(result.key), "dim"))
    said = description(result)
    if said:
        parts.append(("text", terminal(said), "italic"))
    if result.status is not Status.FAILED and result.diagnostic is not None:
        parts.append(("text", terminal(row_reason(result)), _STYLES[result.status]))
    notes = history_notes(report, result)
    if notes:
        parts.append(("text", terminal(" · ".join(notes)), "yellow"))
    hint = inspect_hint(result)
    if hint:
        parts.append(("hint", terminal(hint), "dim"))
    if result.sql:
        parts.append(("text", terminal(result.sql, lines=True), "cyan"))
    return parts


def _rule_cell(parts: list[_Part]) -> Group:
    kinds = {"key": _Key, "hint": _Hint}
    return Group(*(kinds[kind](text, style) if kind in kinds else Text(text, style=style)
                   for kind, text, style in parts))


def _measured_parts(result: RuleResult) -> tuple[str, str, str]:
    """The measured value, and beneath it what was expected (a failed rule: the parts it
    failed) with its style."""
    expected = terminal(expectation_shown(result))
    return (terminal(value_text(result)), "expected " + expected if expected else "",
            "dim" if result.status is Status.PASSED else "")


def _measured_cell(parts: tuple[str, str, str]) -> Text:
    value, expected, style = parts
    text = Text(value)
    if expected:
        text.append(("\n" if text else "") + expected, style=style)
    return text


# What rich's own rendering would change: tabs, control characters (`Text` drops some),
# line separators other than "\n" (read by `Text` as lines when it measures).
_NOT_PLAIN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")

#: One row's cells: the status (text, style), the rule's parts, the measured parts.
_Row = tuple[tuple[str, str], list[_Part], tuple[str, str, str]]
_COLUMNS = (("status", "left", 0), ("rule", "left", 0), ("measured", "right", 14))


def _plain_lines(row: _Row) -> list[tuple[list[str], int]] | None:
    """Each cell's lines and its widest line as rich measures it (a key: whole), when no
    text holds what rich would change; else None."""
    (status, _), parts, (value, expected, _) = row
    measured = value + ("\n" if value and expected else "") + expected
    texts = [status, *(text for _, text, _ in parts), measured]
    if any(_NOT_PLAIN.search(text) for text in texts) \
            or any("\n" in text for kind, text, _ in parts if kind in ("key", "hint")):
        return None
    rule: list[str] = []
    widest = 0
    for kind, text, _ in parts:
        if kind in ("key", "hint"):  # `_Key` writes a key that fits on one line, measured whole
            rule.append(text.rstrip(" "))
            widest = max(widest, cell_len(text))
        else:
            lines, width = _lines(text)
            rule += lines
            widest = max(widest, width)
    return [_lines(status), (rule, widest), _lines(measured)]


def _lines(text: str) -> tuple[list[str], int]:
    """`text`'s lines and the widest, in terminal cells."""
    lines = text.split("\n")
    return lines, max(cell_len(line) for line in lines)


def _title_lines(title: str, width: int) -> list[str]:
    """The title as rich writes it above a table `width` wide: wrapped there between words
    (a long contract path), each line padded to the width. One `Text`: rich itself lays it
    out."""
    console = Console(file=io.StringIO(), width=width, no_color=True, highlight=False,
                      emoji=False)
    lines = console.render_lines(Text(title), console.options.update(justify="left"), pad=True)
    return ["".join(segment.text for segment in line) for line in lines]


def _plain_table(title: str, rows: list[_Row], width: int) -> str | None:
    """The table without colour exactly as rich prints it when every line of every cell fits
    its column at the columns' natural widths (no wrapping, no folding): each line padded
    to its column, in rich's box. rich lays out each cell of each row (≈ 0.3 ms a row: 1.4 s
    for the 4,000 rules of 500 tables); this writes the same text in a few ms. None when any
    cell needs rich's own layout (a line wider than its column, a tab, a control character):
    the caller then prints the table through rich. A title wider than the table (a long
    contract path) wraps as rich wraps it.
    tests/render/test_plain_table.py holds the two equal."""
    cells: list[list[tuple[list[str], int]]] = []
    for row in rows:
        found = _plain_lines(row)
        if found is None:
            return None
        cells.append(found)
    widths = [max(cell_len(name), minimum, *(row[i][1] for row in cells)) + 2
              for i, (name, _, minimum) in enumerate(_COLUMNS)]
    table_width = sum(widths) + len(widths) + 1
    if table_width > width:
        return None
    header: list[tuple[list[str], int]] = [([name], 0) for name, _, _ in _COLUMNS]
    out = [*_title_lines(title, table_width), "┏" + "┳".join("━" * size for size in widths) + "┓"]
    for index, row_cells in enumerate([header, *cells]):
        edge = "┃" if index == 0 else "│"
        for line in range(max(len(lines) for lines, _ in row_cells)):
            texts = []
            for (lines, _), (_, justify, _), size in zip(row_cells, _COLUMNS, widths,
                                                         strict=True):
                text: str = lines[line] if line < len(lines) else ""
                if justify == "right":
                    text = text.rstrip()
                    text = " " * (size - 2 - cell_len(text)) + text
                else:
                    text += " " * (size - 2 - cell_len(text))
                texts.append(f" {text} ")
            out.append(edge + edge.join(texts) + edge)
        if index == 0:
            out.append("┡" + "╇".join("━" * size for size in widths) + "┩")
    out.append("└" + "┴".join("─" * size for size in widths) + "┘")
    return "\n".join(out) + "\n"


def _rich_table(title: str, rows: list[_Row]) -> Table:
    # A Text title: a str title would be read as rich markup (`[/red]` in a path).
    table = Table(title=Text(title), title_justify="left", expand=False, show_lines=False)
    table.add_column("status", no_wrap=True)
    table.add_column("rule", overflow="fold")
    table.add_column("measured", overflow="fold", justify="right", min_width=14)
    for (status, style), parts, measured in rows:
        table.add_row(Text(status, style=style), _rule_cell(parts), _measured_cell(measured))
    return table


def render_table(report: Report, *, color: bool, width: int | None = None) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color,
                      width=width or FILE_WIDTH, highlight=False, emoji=False)
    schema = f" · schema: {report.schema}" if report.schema else ""
    title = terminal(f"packata-sql check · {report.contract}{schema}")
    rows: list[_Row] = [(_status_text(result), _rule_parts(report, result),
                         _measured_parts(result)) for result in ordered(report.results)]
    for line in problem_lines(report):  # above the rows that say `not measured: see above`
        console.print(Text.assemble(("error", _STYLES[Status.ERROR]), terminal(f" {line}")))
    # rich draws another box on a legacy Windows console: the direct text is its usual one.
    direct = not color and not console.legacy_windows
    plain = _plain_table(title, rows, console.width) if direct else None
    if plain is None:
        console.print(_rich_table(title, rows))
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

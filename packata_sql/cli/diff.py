"""`packata-sql diff OLD NEW`: what changed between two versions of a contract, as text, as
Markdown for a pull request, or as JSON; exit 1 on a breaking change."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from packata_sql import __version__, api
from packata_sql.render.neutral import markdown, markdown_code, plain

if TYPE_CHECKING:
    from packata_sql.contracts.diff import ContractChange, ContractDiff

DIFF_FORMAT = "packata-sql/diff@1"
_SEVERITY = ("breaking", "warning", "compatible")


def diff_command(args: argparse.Namespace) -> int:
    result = api.diff(args.old, args.new, drift=args.drift)
    text = {"json": render_json, "markdown": render_markdown}.get(args.format, render_text)(
        result, args.old, args.new)
    sys.stdout.write(text)
    sys.stdout.flush()
    level = result.classification.value
    return 1 if level == "breaking" or (level == "warning" and args.fail_on == "warning") else 0


def _ordered(result: ContractDiff) -> list[ContractChange]:
    """The most serious first, then in the comparison's order (objects, fields, rules)."""
    return sorted(result.changes, key=lambda c: _SEVERITY.index(c.classification.value))


def _counts(result: ContractDiff) -> str:
    parts = [f"{sum(1 for c in result.changes if c.classification.value == level)} {level}"
             for level in _SEVERITY]
    return ", ".join(parts)


def _where(change: ContractChange) -> str:
    """`object.subject`, except for a positional rule key, which already names its object."""
    if not change.subject:
        return change.object
    return change.subject if change.subject.startswith(f"schema[{change.object}]") else \
        f"{change.object}.{change.subject}"


def _transition(change: ContractChange) -> str:
    before, after = change.before or "", change.after or ""
    if before and after:
        return f"{before} → {after}"
    return before or after


def render_text(result: ContractDiff, old: str, new: str) -> str:
    lines = [f"{old} → {new}: {result.classification.value} "
             f"({len(result.changes)} change(s): {_counts(result)})"]
    for change in _ordered(result):
        transition = _transition(change)
        lines.append(f"  {change.classification.value:<10} {change.change:<22} {_where(change)}"
                     + (f": {transition}" if transition else ""))
    # One line per change: a name holding a line break cannot forge another change's line.
    return "\n".join(plain(line) for line in lines) + "\n"


def render_markdown(result: ContractDiff, old: str, new: str) -> str:
    """A pull-request comment or step summary: the verdict, then one table row per change,
    breaking first; compatible changes folded."""
    head = [f"## Contract changes: {result.classification.value}", "",
            f"{markdown_code(old)} → {markdown_code(new)}: {len(result.changes)} change(s) "
            f"({_counts(result)}).", ""]
    if not result.changes:
        return "\n".join([*head, "No change to the schema or the rules.", ""])
    serious = [c for c in _ordered(result) if c.classification.value != "compatible"]
    compatible = [c for c in result.changes if c.classification.value == "compatible"]
    body = _table(serious) if serious else []
    if compatible:
        body += ["", "<details>", f"<summary>{len(compatible)} compatible change(s)</summary>",
                 "", *_table(compatible), "", "</details>"]
    return "\n".join([*head, *body, "", f"<sub>packata-sql {__version__}</sub>", ""])


def _table(changes: list[ContractChange]) -> list[str]:
    rows = ["| classification | change | where | before → after |", "|---|---|---|---|"]
    for change in changes:
        rows.append(f"| {change.classification.value} | `{change.change}` | "
                    f"{_cell(_where(change))} | {_cell(_transition(change))} |")
    return rows


def _cell(text: str) -> str:
    return markdown(text)


def render_json(result: ContractDiff, old: str, new: str) -> str:
    document = {"format": DIFF_FORMAT, "packata_sql_version": __version__, "old": old,
                "new": new, "classification": result.classification.value,
                "counts": {level: sum(1 for c in result.changes
                                      if c.classification.value == level)
                           for level in _SEVERITY},
                "changes": [change.document() for change in result.changes]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

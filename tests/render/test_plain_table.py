"""The table without colour is written directly when every cell fits its column
(`render/table.py: _plain_table`): the text must equal rich's own rendering of the same table,
byte for byte, and rich must still lay out whatever does not fit (long keys that wrap between
their parts, tabs, control characters, wide characters, a narrow console)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from packata_sql.contracts.model import Category, Severity
from packata_sql.render import table as table_module
from packata_sql.render.table import render_table
from packata_sql.report import Diagnostic, Report, RuleResult, Status

WORDS = ["orders", "e-mail", "名前", "ünïcödé", "x" * 30, "amount", "a b c", "", " lead",
         "trail ", "tab\there", "ctl\x07", "wide🙂", "schema[o].properties[p].quality[3]"]


def result(rng: random.Random, index: int) -> RuleResult:
    status = rng.choice(list(Status))
    word = rng.choice(WORDS)
    key = f"schema[{rng.choice(WORDS)}].properties[{word}].quality[{index}]"
    return RuleResult(
        key, key, rng.choice(list(Category)), rng.choice(list(Severity)), status,
        name=rng.choice([None, word, f"{word} rule {index}"]),
        value=rng.choice([None, Fraction(index), Fraction(1, 3), True]),
        unit=rng.choice([None, "rows", "percent"]),
        evidence=rng.choice([{}, {"rows": 10, "count": index}]),
        failed=rng.choice([(), ("= 0",), ("< 2 %", "> 1")]),
        diagnostic=rng.choice([None, Diagnostic("provider-error", "the engine refused it"),
                               Diagnostic("not-exact", f"{word} cannot be compared exactly")]),
        sql=rng.choice([None, None, f"SELECT COUNT(*)\nFROM {word}"]),
        target=rng.choice([None, f"{word}.{rng.choice(WORDS)}"]),
        metric=rng.choice([None, "nullValues", "duplicateValues"]),
        line=rng.choice([None, index]),
        expectation=rng.choice([None, "= 0", f"in {word}"]),
        inspect_sql=rng.choice([None, f"SELECT key FROM {word} LIMIT 20"]),
        description=rng.choice([None, f"{word} description"]),
    )


def report(seed: int, rules: int) -> Report:
    rng = random.Random(seed)
    folder = rng.choice(["contracts", "/tmp/packata-objects-m6yf6nv4/a rather long folder"])
    return Report(f"{folder}/{rng.choice(WORDS)}.yaml", "duckdb:w.duckdb", "enforced",
                  tuple(result(rng, i) for i in range(rules)), (), schema=rng.choice([None, "s"]))


def through_rich(monkeypatch: pytest.MonkeyPatch, shown: Report, width: int) -> str:
    with monkeypatch.context() as patched:
        patched.setattr(table_module, "_plain_table", lambda title, rows, width: None)
        return render_table(shown, color=False, width=width)


def test_the_plain_table_is_rich_s_own_text(monkeypatch):
    """120 reports (40 seeds at three widths): each written as rich writes it, about half of
    them by the direct path and the rest by rich (cells that wrap, tabs, escapes)."""
    original = table_module._plain_table
    direct = []
    monkeypatch.setattr(table_module, "_plain_table", lambda title, rows, width: (
        direct.append(original(title, rows, width) is not None) or original(title, rows, width)))
    for seed, width in itertools.product(range(40), (60, 100, 160)):
        shown = report(seed, rules=seed % 7)  # none, too, for some
        written = render_table(shown, color=False, width=width)
        assert written == through_rich(monkeypatch, shown, width), (seed, width)
    assert direct.count(True) >= 30 and direct.count(False) >= 30


def test_most_plain_reports_take_the_direct_path(monkeypatch):
    """Rules with ordinary names at the default width never need rich's layout: the direct
    path is taken (it is the one that saves the time), and it writes rich's text."""
    rng = random.Random(7)
    results = tuple(
        RuleResult(f"schema[t_{i}].properties[c].quality[0]", "", Category.QUALITY,
                   Severity.ERROR, rng.choice([Status.PASSED, Status.FAILED]),
                   name=f"c_{i}", value=Fraction(i), unit="rows", target=f"t_{i}.c",
                   metric="nullValues", failed=("= 0",), expectation="= 0")
        for i in range(300))
    # The title (its contract path) is wider than the table: it wraps, the rows stay direct.
    shown = Report("/tmp/packata-objects-m6yf6nv4/postgres-500 with a long name.yaml",
                   "duckdb:w.duckdb", "enforced", results, ())
    taken = []
    original = table_module._plain_table

    def spy(title, rows, width):
        written = original(title, rows, width)
        taken.append(written is not None)
        return written

    monkeypatch.setattr(table_module, "_plain_table", spy)
    direct = render_table(shown, color=False)
    assert taken == [True]
    assert direct == through_rich(monkeypatch, shown, 100)


@pytest.mark.parametrize("cell", ["tab\there", "esc\x1b[1m", "line\u2028sep", "bell\x07",
                                  "x" * 200])
def test_cells_rich_would_change_go_through_rich(cell):
    row = (("passed", "green"), [("text", "label", ""), ("key", cell, "dim")], ("1 row", "", ""))
    assert table_module._plain_table("t", [row], 100) is None
    assert table_module._plain_table("t", [(("passed", ""), [("text", "x", "")], (cell, "", ""))],
                                     100) is None

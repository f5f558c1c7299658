"""trends.py, the run history's read model (docs/semantics.md, run history): a rule's streak,
since when it fails, whether the failure is new, whether it flaps, and the median ± k·MAD
anomaly, on worked examples. The statuses are the report's words, oldest first."""

from __future__ import annotations

from fractions import Fraction

import pytest

from packata_sql.trends import (
    ANOMALY_K,
    FLAP_CHANGES,
    MIN_POINTS,
    History,
    Point,
    RuleTrend,
    anomaly,
    median,
    sparkline,
)


def trend(*statuses: str) -> RuleTrend:
    return RuleTrend("r", tuple(Point(f"run-{i}", f"2026-12-01T{i:02d}:00:00Z", status)
                                for i, status in enumerate(statuses)))


def test_the_streak_is_the_newest_points_sharing_the_last_status():
    turned = trend("passed", "failed", "passed", "failed", "failed")
    assert [p.run_id for p in turned.streak] == ["run-3", "run-4"]
    assert turned.changed and turned.last_changed_at == "2026-12-01T03:00:00Z"
    assert turned.failing_since == "2026-12-01T03:00:00Z" and not turned.new_failure
    steady = trend("failed", "failed", "failed")
    assert len(steady.streak) == 3 and not steady.changed and steady.last_changed_at is None
    assert steady.failing_since == "2026-12-01T00:00:00Z"  # failing in every run shown
    assert not steady.new_failure  # no run before it passed
    assert trend().streak == () and trend().failing_since is None and not trend().changed


@pytest.mark.parametrize(("statuses", "new"), [
    (("passed", "failed"), True),
    (("error", "failed"), True),  # anything but a failure before it
    (("failed",), False),  # its only run: nothing says it is new
    (("passed", "failed", "failed"), False),
    (("failed", "passed"), False),
])
def test_a_new_failure_fails_now_and_did_not_in_the_run_before(statuses, new):
    assert trend(*statuses).new_failure is new


def test_failing_since_is_none_unless_it_fails_now():
    assert trend("failed", "failed", "passed").failing_since is None
    assert trend("failed", "error").failing_since is None


def test_a_rule_flaps_from_three_changes_on():
    assert FLAP_CHANGES == 3
    assert trend("passed", "failed", "passed").changes == 2
    assert not trend("passed", "failed", "passed").flapping
    assert trend("passed", "failed", "passed", "failed").flapping
    assert not trend("passed", "passed", "failed", "failed", "failed").flapping


def test_the_sparkline_is_one_glyph_per_run_oldest_left():
    assert trend("passed", "failed", "error", "inconclusive", "skipped").sparkline == "▁█E?-"
    assert sparkline(["passed", "made-up"]) == "▁?"


def test_history_finds_a_rule_by_its_key():
    found = trend("passed")
    assert History("s", (found,), ()).rule("r") is found
    assert History("s", (found,), ()).rule("other") is None


def test_the_median_of_an_even_count_is_the_mean_of_the_middle_two():
    assert median([Fraction(4), Fraction(1), Fraction(3), Fraction(2)]) == Fraction(5, 2)
    assert median([Fraction(3), Fraction(1), Fraction(2)]) == 2


NINE = [Fraction(v) for v in (100, 101, 99, 100, 102, 100, 98, 100, 101)]


def test_an_anomaly_lies_outside_median_plus_or_minus_k_mad():
    """Median 100, deviations 0 1 1 0 2 0 2 0 1, MAD 1: the usual range is 97–103 for k = 3."""
    found = anomaly(Fraction(3), NINE)
    assert found is not None
    assert (found.median, found.mad, found.low, found.high, found.k, found.n) == (
        100, 1, 97, 103, ANOMALY_K, 9)
    assert anomaly(Fraction(103), NINE) is None and anomaly(Fraction(97), NINE) is None  # edges
    assert anomaly(Fraction(104), NINE) is not None
    assert anomaly(Fraction(104), NINE, k=Fraction(4)) is None


def test_fewer_than_seven_earlier_values_never_make_an_anomaly():
    assert MIN_POINTS == 7
    assert anomaly(Fraction(10**6), NINE[:6]) is None
    assert anomaly(Fraction(10**6), NINE[:7]) is not None


def test_with_a_mad_of_zero_any_other_value_is_an_anomaly():
    same = [Fraction(5)] * 7
    assert anomaly(Fraction(5), same) is None
    found = anomaly(Fraction(51, 10), same)
    assert found is not None and found.mad == 0 and found.low == found.high == 5

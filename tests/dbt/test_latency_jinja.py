"""The dbt gate's SLA latency verdict (pure Jinja, integer microseconds, calendar months) against
packata-sql's own (run/freshness.py, contracts/durations.py), on random newest values,
observation instants, limits and zones (docs/semantics.md 1.1)."""

from __future__ import annotations

import datetime
import random
from fractions import Fraction

import pytest
import pytz

from packata_sql.contracts.durations import Duration
from packata_sql.contracts.model import Latency
from packata_sql.dbt.generate import runtime_text
from packata_sql.plans.gate import _latency_document
from packata_sql.run.freshness import newest_instant

from .jinja_macros import load_macros

UTC = datetime.UTC
LIMITS = [Duration(Fraction(1), "d"), Duration(Fraction(3, 2), "h"), Duration(Fraction(90), "min"),
          Duration(Fraction(1), "mo"), Duration(Fraction(13), "mo"), Duration(Fraction(1), "y"),
          Duration(Fraction(2), "w"), Duration(Fraction(45), "s")]
ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata"]


@pytest.fixture(scope="module")
def latency_macro():
    return load_macros(runtime_text(), {"packata_sql_latency"})["packata_sql_latency"]


def python_side(latency: Latency, micros: int, instants: bool,
                observed: datetime.datetime) -> tuple[str, int]:
    assert latency.limit is not None
    instant = newest_instant(micros, None if instants else latency.zone)
    age = observed - instant
    age_us = (age.days * 86400 + age.seconds) * 1_000_000 + age.microseconds
    fresh = instant >= latency.limit.before(observed)
    return ("passed" if fresh else "failed"), age_us


def test_the_gate_ages_as_check_does(latency_macro):
    chooser = random.Random(23)
    for _ in range(3000):
        latency = Latency(chooser.choice(LIMITS), chooser.choice(ZONES))
        observed = datetime.datetime(2024, 1, 31, tzinfo=UTC) + datetime.timedelta(
            days=chooser.randrange(0, 800), microseconds=chooser.randrange(0, 86_400_000_000))
        observed_us = int((observed - datetime.datetime(1970, 1, 1, tzinfo=UTC))
                          / datetime.timedelta(microseconds=1))
        micros = observed_us - chooser.choice([0, 1, 3_600_000_000, 86_400_000_000,
                                               chooser.randrange(0, 40_000_000_000_000)])
        instants = chooser.random() < 0.5
        got = latency_macro(_latency_document(latency), {"kind": "number", "num": micros, "den": 1},
                            5, instants, observed, datetime, pytz)
        status, age_us = python_side(latency, micros, instants, observed)
        assert (got["status"], got["value"]) == (status, [age_us, 1_000_000]), (latency, micros)
        assert got["failed"] == ([] if status == "passed" else [f"no older than {latency.limit.text()}"])


def test_no_newest_value_is_inconclusive(latency_macro):
    document = _latency_document(Latency(Duration(Fraction(1), "d")))
    observed = datetime.datetime(2024, 1, 1, tzinfo=UTC)
    empty = latency_macro(document, {"kind": "null"}, 0, False, observed, datetime, pytz)
    nulls = latency_macro(document, {"kind": "null"}, 3, False, observed, datetime, pytz)
    assert (empty["status"], empty["code"]) == ("inconclusive", "zero-rows-latency")
    assert (nulls["status"], nulls["code"]) == ("inconclusive", "all-null-latency")


@pytest.mark.parametrize("wall", [
    datetime.datetime(2024, 10, 27, 2, 30),  # Paris: twice (the first reading, +02:00)
    datetime.datetime(2024, 3, 31, 2, 30),  # Paris: never (the offset before the gap, +01:00)
    datetime.datetime(2024, 7, 1, 12, 0),
])
def test_daylight_saving_edges_read_as_check_reads_them(latency_macro, wall):
    latency = Latency(Duration(Fraction(1), "d"), "Europe/Paris")
    micros = int((wall - datetime.datetime(1970, 1, 1)) / datetime.timedelta(microseconds=1))
    observed = datetime.datetime(2024, 11, 1, tzinfo=UTC)
    got = latency_macro(_latency_document(latency), {"kind": "number", "num": micros, "den": 1},
                        1, False, observed, datetime, pytz)
    assert got["value"] == [python_side(latency, micros, False, observed)[1], 1_000_000]

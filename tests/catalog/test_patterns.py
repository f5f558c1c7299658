"""SEMANTICS 3.3 pattern guards, before any SQL is generated."""

from __future__ import annotations

import pytest

from packata_sql.catalog.patterns import catastrophic, pattern_problem


@pytest.mark.parametrize("pattern", [
    "(a+)+", "(a|b)*", "((a+)b)*", "(a+){10}", "(a{2,3})+", "(?:x*)*", "(\\d+\\s?)+$", "(.*a){3,}",
])
def test_repeated_groups_with_choices_are_refused(pattern):
    assert catastrophic(pattern)
    assert "catastrophic" in pattern_problem(pattern)


@pytest.mark.parametrize("pattern", [
    "^[a-z]+@[a-z]+\\.[a-z]{2,}$", "(\\d{3})-(\\d{4})", "(ab)+", "(a{2})+", "[(]+", "\\(+",
    "^(?:https?://)?[^/]+$", "[a|b]*",
])
def test_linear_patterns_pass(pattern):
    assert not catastrophic(pattern)
    assert pattern_problem(pattern) is None


def test_length_and_syntax_guards_never_echo_the_pattern():
    assert "200" in pattern_problem("x" * 201)
    problem = pattern_problem("[unclosed")
    assert problem is not None and "[unclosed" not in problem


@pytest.mark.parametrize("dialect,pattern,supported", [
    ("postgres", "a(?=b)", True),
    ("postgres", "(?<=a)b", True),
    ("postgres", "a*+b", False),
    ("postgres", "(?>ab)c", False),
    ("postgres", "(?P<x>a)", False),
    ("mysql", "(?P<x>a)", False),
    ("mysql", "(?<x>a)", True),
    ("duckdb", "(?P<x>a)", True),
    ("duckdb", "a(?=b)", False),
    ("bigquery", "\\1", False),
    ("sqlite", "a(?=b)", True),
    ("sqlserver", "a", False),
])
def test_engine_specific_pattern_support(dialect, pattern, supported):
    from packata_sql.dialects import get_dialect

    assert (get_dialect(dialect).pattern_problem(pattern) is None) is supported

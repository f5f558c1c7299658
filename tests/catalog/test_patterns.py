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

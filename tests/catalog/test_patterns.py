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
    ("postgres", "(?P<x>a)", True),
    ("mysql", "(?P<x>a)", True),
    ("mysql", "(?<x>a)", True),
    ("duckdb", "(?P<x>a)", True),
    ("duckdb", "a(?=b)", False),
    ("bigquery", "\\1", False),
    ("sqlite", "a(?=b)", False),  # SQLite's REGEXP runs RE2, like DuckDB
    ("sqlite", "(a)\\1", False),
    ("sqlite", "(?P<x>a)", True),
    ("sqlserver", "a", False),
    # escaped or bracketed operators are not possessive quantifiers or lookarounds
    ("duckdb", "^\\++$", True),
    ("postgres", "[*+]+", True),
    ("bigquery", "[(?=]x", True),
    ("duckdb", "a\\1", False),
])
def test_engine_specific_pattern_support(dialect, pattern, supported):
    from packata_sql.dialects import get_dialect

    assert (get_dialect(dialect).pattern_problem(pattern) is None) is supported


# SEMANTICS 3.3: one meaning on every engine (RE2's); each flavor spells it explicitly.
@pytest.mark.parametrize("pattern,flavor,spelled", [
    (r"^\w+$", "re2", "^[0-9A-Za-z_]+$"),
    (r"^\w+$", "icu-pcre", r"^[0-9A-Za-z_]+\z"),
    ("a.b", "postgres", r"a[^\n]b"),
    ("a.b", "icu-pcre", r"a[^\n]b"),
    (r"\bx\B", "postgres", r"\yx\Y"),
    (r"\s", "re2", r"[\t\n\f\r ]"),
    ("[[:alpha:]_]", "postgres", "[A-Za-z_]"),
    (r"[\d.-]", "re2", r"[0-9\.\-]"),
    (r"x\Z", "re2", r"x\z"),
    ("a{,3}", "postgres", "a{0,3}"),
    (r"(?P<year>\d{4})-(?P=year)?", None, None),
    (r"\u00e9\x2e", "postgres", r"é\."),
    (r"\v", "icu-pcre", r"\x{b}"),
    ("(?i)ab", "re2", "[aA][bB]"),
    ("(?i)[a-c_]é", "re2", "[a-c_A-C]é"),
    ("(?i)[^[:lower:]]", "postgres", "[^a-zA-Z]"),
    ("(?i)(a)\\1", None, None),
])
def test_each_engine_gets_the_same_meaning_spelled_its_way(pattern, flavor, spelled):
    from packata_sql.dialects.regex import Flavor, NotPortable, portable

    if flavor is None:
        with pytest.raises(NotPortable):
            portable(pattern, Flavor.RE2)
        return
    assert portable(pattern, Flavor(flavor)) == spelled


@pytest.mark.parametrize("pattern", [r"[a\W]", "(?s)a.b", "(?m)^a$", "(?i:a)b", "(?x)a b"])
def test_constructs_engines_read_differently_are_refused(pattern):
    problem = pattern_problem(pattern)
    assert problem is not None and "differently" in problem


def test_python_warnings_about_nested_sets_stay_off_stderr(recwarn):
    assert pattern_problem("[[:digit:]]") is None
    assert not [w for w in recwarn if issubclass(w.category, FutureWarning)]

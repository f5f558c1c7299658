"""docs/semantics.md 3.3 pattern guards, before any SQL is generated."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import yaml

from packata_sql.catalog.patterns import (
    backtracking_problem,
    catastrophic,
    pattern_problem,
    polynomial,
)
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract

CORPUS = yaml.safe_load((Path(__file__).parent / "pattern_corpus.yaml").read_text("utf-8"))
BACKTRACKING = ("mysql", "spark", "trino", "databricks", "snowflake")
NOT_BACKTRACKING = ("duckdb", "postgres", "bigquery", "sqlite")


def pattern_findings(dialect: str, pattern: str) -> list[str]:
    """The finding codes `compile` gives an invalidValues rule with this pattern."""
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "p", "version": "1.0.0",
                "status": "active", "schema": [{"name": "t", "properties": [{
                    "name": "c", "logicalType": "string", "quality": [{
                        "metric": "invalidValues", "arguments": {"pattern": pattern},
                        "mustBe": 0}]}]}]}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "contract.yaml"
        path.write_text(yaml.safe_dump(document), encoding="utf-8")
        contract = load_odcs(str(path))
    return [f.code for f in compile_contract(contract, get_dialect(dialect)).findings]


@pytest.mark.parametrize("entry", CORPUS["catastrophic"], ids=lambda e: e["pattern"][:30])
def test_catastrophic_corpus_is_refused_only_where_the_matcher_backtracks(entry):
    pattern = entry["pattern"]
    assert catastrophic(pattern)
    assert pattern_problem(pattern) is None  # nothing wrong with it on RE2 or PostgreSQL
    for dialect in BACKTRACKING:
        assert "unsafe-pattern" in pattern_findings(dialect, pattern), dialect
    for dialect in NOT_BACKTRACKING:
        assert pattern_findings(dialect, pattern) == [], dialect


@pytest.mark.parametrize("entry", CORPUS["polynomial"], ids=lambda e: e["pattern"][:30])
def test_polynomial_corpus_is_refused_only_where_the_matcher_backtracks(entry):
    pattern = entry["pattern"]
    assert polynomial(pattern)
    assert pattern_problem(pattern) is None
    for dialect in BACKTRACKING:
        assert "unsafe-pattern" in pattern_findings(dialect, pattern), dialect
    for dialect in NOT_BACKTRACKING:
        assert pattern_findings(dialect, pattern) == [], dialect


@pytest.mark.parametrize("entry", CORPUS["real"], ids=lambda e: e["name"])
def test_real_patterns_are_accepted_on_every_engine(entry):
    pattern = entry["pattern"]
    assert not catastrophic(pattern)
    assert not polynomial(pattern)
    for dialect in (*BACKTRACKING, *NOT_BACKTRACKING):
        assert pattern_findings(dialect, pattern) == [], dialect


@pytest.mark.parametrize("pattern", [
    "(a+)+", "((a+)b)+c(a|a)*", "(a+){10}", "(a{2,3})+", "(?:x*)*", "(\\d+\\s?)+$", "(.*a){3,}",
    "(a|ab)*c", "(\\w|\\d)+$", "(é|é)+$", "(\\u00e9|é)+$", "(x+x+)+y", "(a|a?)+",
    # a loop body that can match nothing: 2**count orders, tried at every start position
    "(a?){0,16}$", "^(a?){0,17}$", "^(?:(a?){0,4})+$", "(?m)^(a?){0,16}$", "(?i:(a+)+)",
])
def test_ambiguous_loops_are_refused_for_backtracking_matchers(pattern):
    assert catastrophic(pattern)
    assert "catastrophic" in (backtracking_problem(pattern) or "")


@pytest.mark.parametrize("pattern", [
    "^[a-z]+@[a-z]+\\.[a-z]{2,}$", "(\\d{3})-(\\d{4})", "(ab)+", "(a{2})+", "[(]+", "\\(+",
    "^(?:https?://)?[^/]+$", "[a|b]*",
    "(a|b)*", "(?i)^(ab|cd)+$",  # rigid: one width, one way
    "((a+)b)*", "^([^/]+/)*[^/]+$", "^(\\.[a-z]+)+$",  # delimited at the end or the start
    "^(a?){0,16}$", "\\A([A-Z]?){3}x",  # few optional iterations, one start position
])
def test_unambiguous_loops_pass(pattern):
    assert not catastrophic(pattern)
    assert pattern_problem(pattern) is None


@pytest.mark.parametrize("pattern", [
    ".*.*=", "\\w+\\d+!", "a+b?a+!", "a+(b|)a+", "a{2,}a+", "(?:x)*a*(?:y?)a*",  # in sequence
    "a+(?:(?:b?)?)a+", "(?:a+)(?:c|)(?:a+)", "a*(?:b*)a*!",  # across optional parts and groups
    "(?:a*b|a)*!", "(?:x?\\s*,\\s*)+$", "(?:a+,)*a+,?a+",  # across iterations of a repeated group
    "é+[à-ÿ]+!", "é+[^a]+!", "(?i)A+a+", "[\\u00e0-\\u00ff]+\\u00e9+!",  # overlap beyond ASCII, folding
    "(?=.*a.*b)", "(.*,){2}.*=",
])
def test_polynomial_loops_are_refused_for_backtracking_matchers(pattern):
    assert polynomial(pattern)
    assert backtracking_problem(pattern) is not None  # some are also catastrophic


@pytest.mark.parametrize("pattern", [
    "^\\w+(,[a-z]+)*$", "(a*b)*a*", "\\d+\\.\\d+", "^[a-z]+-[0-9]+$", "a+b+c+", "[a-f]+[g-z]+",
    "é+[a-z]+", "[à-è]+[ê-ÿ]+", "^([^/]+/)*[^/]+$", "^[^@\\s]{1,64}@[^@\\s]{1,255}\\.[^@\\s]{1,63}$",
    "(?i)[a-c]+[D-F]+", ".*=", "^x(?=a+b)c+",
])
def test_one_unbounded_repetition_per_run_of_characters_passes(pattern):
    assert not polynomial(pattern)
    assert backtracking_problem(pattern) is None


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


# docs/semantics.md 3.3: one meaning on every engine (RE2's); each flavor spells it explicitly.
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

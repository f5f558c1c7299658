"""Hostile contract files: alias bombs, aliases into themselves, deep nesting, huge numbers
and bad escapes are usage errors naming the file and line, within a second; no input ends
in "internal error" (a property test over hostile YAML shapes)."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.contracts.yaml_source import SourceError
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
RULE = "schema:\n  - name: t\n    quality:\n      - metric: rowCount\n        mustBe: {}\n"  # line 10


def alias_bomb() -> str:
    """The classic "billion laughs": nine levels of nine aliases each, 9**9 strings in 428 bytes."""
    lines = ['a0: &a0 "lol"']
    for level in range(1, 10):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def nested_block(levels: int) -> str:
    return "".join("  " * i + f"k{i}:\n" for i in range(1, levels + 1)) + "  " * levels + " v\n"


# name → (document, the line the error must name)
HOSTILE = {
    "alias-bomb": (HEAD + alias_bomb(), 11),  # a5 (line 11) copies a4 (7,381 nodes) past 10,000
    "alias-into-itself": (HEAD + "schema: &s [*s]\n", 6),
    "alias-into-its-mapping": (HEAD + "schema:\n  - &o {name: t, quality: *o}\n", 7),
    "undefined-alias": (HEAD + "schema: *nothing\n", 6),
    "nested-1000-block": (HEAD + "custom:\n" + nested_block(1000), 6 + 100),
    "nested-1000-flow": (HEAD + "schema: " + "[" * 1000 + "]" * 1000 + "\n", 6),
    "integer-5000-digits": (HEAD + RULE.format("9" * 5000), 10),
    "hex-3000-digits": (HEAD + RULE.format("0x" + "f" * 3000), 10),
    "huge-exponent": (HEAD + RULE.replace("mustBe", "mustBeLessThan").format("1e999999999"), 10),
    "tiny-exponent": (HEAD + RULE.format("1e-999999999"), 10),
    "lone-surrogate": (HEAD + 'description: "\\ud800"\n', 6),
    "second-document": (HEAD + "---\nid: y\n", 6),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_documents_are_source_errors_with_a_line_within_a_second(name, tmp_path):
    document, line = HOSTILE[name]
    path = tmp_path / "c.yaml"
    path.write_text(document, encoding="utf-8")
    started = time.monotonic()
    with pytest.raises(SourceError) as raised:
        load_odcs(str(path))
    assert time.monotonic() - started < 1
    assert raised.value.line == line, str(raised.value)
    # `file:line: ` or, where YAML names the column, `file:line:column: ` with a snippet.
    assert re.match(rf"{re.escape(str(path))}:{line}(:\d+)?: ", str(raised.value))


@pytest.mark.parametrize("name", ["alias-bomb", "alias-into-itself", "nested-1000-block",
                                  "huge-exponent", "lone-surrogate"])
def test_the_same_limits_hold_without_libyaml(name, tmp_path, monkeypatch):
    """PyYAML's own parser (where PyYAML was built without libyaml) accepts `\\ud800`."""
    import yaml

    from packata_sql.contracts import yaml_source

    monkeypatch.setattr(yaml_source, "_LOADER", yaml.SafeLoader)
    document, line = HOSTILE[name]
    path = tmp_path / "c.yaml"
    path.write_text(document, encoding="utf-8")
    with pytest.raises(SourceError) as raised:
        load_odcs(str(path))
    assert raised.value.line == line, str(raised.value)


@pytest.mark.parametrize("name", ["alias-bomb", "alias-into-itself", "nested-1000-flow",
                                  "integer-5000-digits", "huge-exponent", "lone-surrogate"])
def test_hostile_documents_exit_3_from_the_command_line(name, tmp_path):
    document, line = HOSTILE[name]
    path = tmp_path / "c.yaml"
    path.write_text(document, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", str(path), "--url",
                           f"duckdb:///{tmp_path}/absent.duckdb"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 3, done.stderr
    assert re.search(rf"{re.escape(str(path))}:{line}(:\d+)?: ", done.stderr)
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_aliases_within_the_limit_still_load(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(HEAD + "x-rule: &r {metric: nullValues, mustBe: 0}\nschema:\n  - name: t\n"
                    "    properties:\n      - name: a\n        quality: [*r]\n"
                    "      - name: b\n        quality: [*r]\n", encoding="utf-8")
    rules = [r for r in load_odcs(str(path)).rules if r.category is Category.QUALITY]
    assert len(rules) == 2
    assert sorted(rule.line for rule in rules) == [11, 13]  # each alias's own line


@pytest.mark.parametrize("operand", ['"1e999999999"', '"-1e-999999999"'])
def test_huge_numbers_in_text_are_findings_not_hangs(operand, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(HEAD + RULE.replace("mustBe", "mustBeLessThan").format(operand),
                    encoding="utf-8")
    started = time.monotonic()
    compiled = compile_contract(load_odcs(str(path)), get_dialect("duckdb"))
    assert time.monotonic() - started < 1
    assert [f.code for f in compiled.findings] == ["invalid-operand"]


# Pieces of hostile YAML: anchors and aliases, odd tags, numbers past every limit, escapes,
# stray indicators; assembled into flow nodes nested at random depths.
SCALARS = st.sampled_from([
    "1", "-0", "1.5", "1e999999999", "-1e-999999999", "9" * 5000, "0x" + "f" * 3000, "0o17",
    ".nan", "-.inf", "~", "true", '"\\ud800"', '"\\udfff\\ud800"', '"\\U0001F600"', "'it''s'",
    "*a", "*b", "*zz", "&a x", "&b [*a, *a]", "x", '"\\x00"', "!!str 5", "!!binary aGk=",
    "!custom x", "<<", "2024-01-01", "''", "rowCount", "nullValues", "invalidValues",
    "mustBe", "mustBeLessThan", "'.*.*.*.*='", "[", "{", "]", "}", ":", "? x", "- ", "|",
    "\t", "%YAML 1.1", "---", "...", "@", "`", "#",
])
KEYS = st.sampled_from(["schema", "name", "quality", "properties", "metric", "mustBe",
                        "arguments", "pattern", "validValues", "*a", "&a k", "? [x]", "1e9999"])


def _flow(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(children, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
        st.lists(st.tuples(KEYS, children), max_size=4).map(
            lambda pairs: "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"),
        st.tuples(st.sampled_from(["&a ", "&b ", "!!map ", ""]), children).map("".join),
    )


NODES = st.recursive(SCALARS, _flow, max_leaves=25)
DEEP = st.integers(0, 1200).map(lambda n: "[" * n + "]" * n)
DOCUMENTS = st.one_of(
    st.lists(st.tuples(KEYS, st.one_of(NODES, DEEP)), max_size=6).map(
        lambda pairs: HEAD + "".join(f"{k}: {v}\n" for k, v in pairs)),
    st.tuples(NODES, NODES).map(lambda pair: HEAD + "schema:\n  - name: t\n    quality:\n"
                                f"      - {pair[0]}\n      - metric: rowCount\n"
                                f"        mustBe: {pair[1]}\n"),
    st.lists(st.one_of(SCALARS, KEYS, NODES), max_size=12).map(lambda parts: HEAD + " ".join(parts)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=DOCUMENTS)
def test_no_hostile_document_ends_in_an_internal_error(document):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.yaml"
        path.write_text(document, encoding="utf-8", errors="surrogatepass")
        started = time.monotonic()
        try:
            contract = load_odcs(str(path))
        except SourceError as error:
            assert error.path == str(path)
        else:
            for dialect in ("duckdb", "sqlite", "postgres"):
                compile_contract(contract, get_dialect(dialect))
        assert time.monotonic() - started < 5

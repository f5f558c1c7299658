"""ODCS v3 loading: versions, paths, lines, names, unknown keys, and bad files."""

from __future__ import annotations

import textwrap
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from packata_sql.contracts.model import (
    Category,
    Custom,
    Level,
    Library,
    Operator,
    Severity,
    Sql,
    Text,
)
from packata_sql.contracts.odcs import load_odcs
from packata_sql.contracts.yaml_source import SourceError

HEAD = "apiVersion: v3.0.2\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"


def load(tmp_path: Path, body: str, **options):
    path = tmp_path / "c.yaml"
    path.write_text(HEAD + textwrap.dedent(body), encoding="utf-8")
    return load_odcs(str(path), **options)


def test_odcs_30_rule_forms(tmp_path):
    contract = load(tmp_path, """
    schema:
      - name: orders
        quality:
          - rule: rowCount
            mustBeGreaterThan: 10
            mustBeLessThan: 20
        properties:
          - name: id
            quality:
              - rule: duplicateCount
                mustBe: 0
              - rule: nullCheck
                mustBe: 0
              - type: library
                rule: validValues
                validValues: [a, b]
                mustBe: 0
    """)
    definitions = [r.definition for r in contract.rules if r.category is Category.QUALITY]
    assert definitions == [
        Library("rowCount"), Library("duplicateValues"), Library("nullValues"),
        Library("invalidValues", (("validValues", ("a", "b")),)),
    ]
    assert [e.operator for e in contract.rules[0].expectations] == [Operator.GT, Operator.LT]


def test_odcs_31_metric_and_arguments_with_inferred_type(tmp_path):
    contract = load(tmp_path, """
    schema:
      - name: t
        properties:
          - name: c
            quality:
              - metric: missingValues
                arguments:
                  missingValues: [null, '']
                mustBeLessThan: 5
                unit: percent
    """)
    rule = contract.rules[0]
    assert rule.definition == Library("missingValues", (("missingValues", (None, "")),))
    assert rule.unit == "percent"


def test_metric_wins_over_rule_with_a_diagnostic(tmp_path):
    contract = load(tmp_path, """
    schema:
      - name: t
        quality:
          - metric: rowCount
            rule: duplicateCount
            mustBe: 1
    """)
    assert contract.rules[0].definition == Library("rowCount")
    assert [(f.code, f.level) for f in contract.findings] == [("metric-overrides-rule", Level.WARNING)]


def test_paths_keys_and_lines_for_every_level(tmp_path):
    contract = load(tmp_path, """
    schema:
      - name: orders
        physicalName: tbl_orders
        quality:
          - metric: rowCount
            mustBe: 1
        properties:
          - name: address
            logicalType: object
            properties:
              - name: city
                quality:
                  - metric: nullValues
                    mustBe: 0
          - name: tags
            logicalType: array
            items:
              logicalType: string
              quality:
                - metric: nullValues
                  mustBe: 0
          - name: email
            physicalName: e_mail
            quality:
              - id: email-ok
                metric: nullValues
                mustBe: 0
    """)
    seen = [(r.key, r.source_path, r.line) for r in contract.rules
            if r.category is Category.QUALITY]
    assert seen == [
        ("schema[orders].quality[0]", "schema[0].quality[0]", 11),
        ("schema[orders].properties[address].properties[city].quality[0]",
         "schema[0].properties[0].properties[0].quality[0]", 19),
        ("schema[orders].properties[tags].items.quality[0]",
         "schema[0].properties[1].items.quality[0]", 26),
        ("email-ok", "schema[0].properties[2].quality[0]", 31),
    ]
    quality = [r for r in contract.rules if r.category is Category.QUALITY]
    email = quality[3].target
    assert (email.physical_object, email.physical_property) == ("tbl_orders", "e_mail")
    assert quality[1].target.nested and quality[2].target.nested


def test_unknown_keys_are_findings_with_lines(tmp_path):
    """docs/semantics.md 1.2: an unknown key on a rule skips that rule; on an object it names no rule
    and keeps the run from passing."""
    contract = load(tmp_path, """
    schema:
      - name: t
        colour: blue
        quality:
          - metric: rowCount
            mustBeLesThan: 3
    """)
    found = [(f.code, f.level, f.source_path, f.rule_key, f.line, f.message)
             for f in contract.findings]
    assert found == [
        ("unknown-key", Level.ERROR, "schema[0]", None, 9,
         "unknown key 'colour' (it is not read, and the run cannot pass)"),
        ("unknown-operator", Level.ERROR, "schema[0].quality[0]", "schema[t].quality[0]", 12,
         "unknown operator 'mustBeLesThan'; did you mean 'mustBeLessThan'? (the rule is not "
         "run)"),
    ]


def test_yaml_12_numbers_are_exact(tmp_path):
    contract = load(tmp_path, """
    schema:
      - name: t
        quality:
          - metric: rowCount
            mustBeLessThan: 1e3
            mustBeGreaterThan: 0.1
    """)
    operands = {e.operator: e.operand for e in contract.rules[0].expectations}
    assert operands == {Operator.LT: Fraction(1000), Operator.GT: Fraction(1, 10)}


def test_quoted_numbers_stay_text_and_yes_is_text(tmp_path):
    contract = load(tmp_path, """
    schema:
      - name: t
        properties:
          - name: c
            quality:
              - metric: invalidValues
                arguments: {validValues: ['1', 1, 1.50, yes, true, ~]}
                mustBe: 0
    """)
    members = dict(contract.rules[0].definition.arguments)["validValues"]
    assert members == ("1", 1, Decimal("1.50"), "yes", True, None)
    assert [type(m) for m in members[:3]] == [str, int, Decimal]


def test_rule_types_and_severities(tmp_path):
    contract = load(tmp_path, """
    schema:
      - name: t
        quality:
          - type: text
            description: prose
          - type: sql
            query: SELECT 1
            mustBe: 1
          - type: custom
            engine: soda
            implementation: 'x'
          - metric: rowCount
            mustBe: 1
            severity: minor
          - metric: rowCount
            mustBe: 1
            severity: catastrophic
    """)
    kinds = [type(r.definition) for r in contract.rules]
    assert kinds == [Text, Sql, Custom, Library, Library]
    assert [r.severity for r in contract.rules[3:]] == [Severity.WARNING, Severity.ERROR]
    assert [f.code for f in contract.findings] == ["unknown-severity"]


def test_unparseable_yaml_names_file_and_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("apiVersion: v3.0.2\nschema:\n  - name: [unclosed\n", encoding="utf-8")
    with pytest.raises(SourceError) as raised:
        load_odcs(str(path))
    assert raised.value.line is not None and str(path) in str(raised.value)


def test_yaml_errors_name_the_offending_character_and_line(tmp_path):
    path = tmp_path / "tabs.yaml"
    path.write_text("apiVersion: v3.0.2\nschema:\n\t- name: t\n", encoding="utf-8")
    with pytest.raises(SourceError) as raised:
        load_odcs(str(path))
    assert raised.value.line == 3
    assert "'\\t'" in str(raised.value)


@pytest.mark.parametrize("text,expected", [
    ("- just\n- a list\n", "not a mapping"),
    ("title: hello\n", "apiVersion"),
    ("apiVersion: v2.2.0\n", "apiVersion"),
    ("", "empty"),
    ("apiVersion: v3.0.0\nschema: nope\n", "'schema' must be a list"),
    ("a: 1\na: 2\n", "duplicate key"),
])
def test_files_that_are_not_contracts(tmp_path, text, expected):
    path = tmp_path / "x.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SourceError, match=expected):
        load_odcs(str(path))


def test_missing_file(tmp_path):
    with pytest.raises(SourceError, match="file not found"):
        load_odcs(str(tmp_path / "absent.yaml"))


def test_duplicate_ids_are_keyed_by_their_source_paths_with_a_finding(tmp_path):
    """docs/semantics.md 1.2: both rules are measured, each under its source path; the finding names
    no rule (neither is skipped) and keeps the run from passing."""
    contract = load(tmp_path, """
    schema:
      - name: t
        quality:
          - {id: same, metric: rowCount, mustBe: 1}
          - {id: same, metric: rowCount, mustBe: 2}
          - {id: other, metric: rowCount, mustBe: 2}
    """)
    assert [r.key for r in contract.rules] == ["schema[0].quality[0]", "schema[0].quality[1]",
                                               "other"]
    assert [(f.code, f.level, f.rule_key, f.line) for f in contract.findings] == [
        ("duplicate-id", Level.ERROR, None, 10)]
    assert "schema[0].quality[0], schema[0].quality[1]" in contract.findings[0].message


def test_byte_order_mark_and_crlf_lines_load(tmp_path):
    path = tmp_path / "windows.yaml"
    text = HEAD + "schema:\n  - name: t\n    quality:\n      - metric: rowCount\n        mustBe: 1\n"
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    contract = load_odcs(str(path))
    assert [(r.key, r.line) for r in contract.rules] == [("schema[t].quality[0]", 9)]

"""A typo or an invalid value in a constraint declaration is a finding on a skipped rule, never
a constraint silently dropped (issue 11 item 1, issue 14 item 1): the rule's key names what is
written, the finding its file line, its path and the likely spelling."""

from __future__ import annotations

import textwrap
from pathlib import Path

from packata_sql.contracts.model import Level
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import compile_contract

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
P = "schema[orders].properties[id]"


def load(tmp_path: Path, properties: str):
    path = tmp_path / "c.yaml"
    path.write_text(HEAD + "schema:\n  - name: orders\n    properties:\n"
                    + textwrap.indent(textwrap.dedent(properties), "      "), encoding="utf-8")
    return load_odcs(str(path))


def skipped(contract) -> dict[str, tuple[str, int | None, str]]:
    """Each blocked rule: the code, line and message of the finding that skips it."""
    compiled = compile_contract(contract, get_dialect("duckdb"))
    return {key: (f.code, f.line, f.message) for key, f in compiled.blocked.items()}


def test_misspelt_constraint_keys_are_skipped_rules_with_the_right_spelling(tmp_path):
    contract = load(tmp_path, """\
        - name: id
          logicalType: integer
          requird: true
          uniqe: true
          primarykey: true
          logicalTypeOption: {maxLength: 3}
          colour: blue
        """)
    blocked = skipped(contract)
    assert {key: blocked[key] for key in blocked} == {
        f"{P}.requird": ("unknown-constraint-key", 11, "unknown key 'requird'; did you mean "
                         "'required'? (the constraint is not checked)"),
        f"{P}.uniqe": ("unknown-constraint-key", 12, "unknown key 'uniqe'; did you mean "
                       "'unique'? (the constraint is not checked)"),
        f"{P}.primarykey": ("unknown-constraint-key", 13, "unknown key 'primarykey'; did you "
                            "mean 'primaryKey'? (the constraint is not checked)"),
        f"{P}.logicalTypeOption": ("unknown-constraint-key", 14, "unknown key "
                                   "'logicalTypeOption'; did you mean 'logicalTypeOptions'? "
                                   "(the constraint is not checked)"),
    }
    finding = next(f for f in contract.findings if f.rule_key == f"{P}.requird")
    assert (finding.level, finding.source_path) == (Level.ERROR, "schema[0].properties[0].requird")
    # An unknown key unlike any constraint key is an error naming no rule (the run cannot
    # pass, docs/semantics.md 1.2); none is reported twice.
    unknown = [(f.code, f.level, f.line) for f in contract.findings if f.code == "unknown-key"]
    assert unknown == [("unknown-key", Level.ERROR, 15)]


def test_a_misspelt_option_suggests_the_option_and_is_skipped(tmp_path):
    contract = load(tmp_path, """\
        - name: id
          logicalType: string
          logicalTypeOptions: {maxLenght: 3, minLength: 1, flavour: sweet}
        """)
    blocked = skipped(contract)
    assert blocked[f"{P}.logicalTypeOptions.maxLenght"] == (
        "unknown-option", 11, "'maxLenght' is not a logicalTypeOptions key; did you mean "
        "'maxLength'?")
    # A key close to none stays an option packata-sql does not check (a skipped rule too).
    assert blocked[f"{P}.logicalTypeOptions.flavour"][0] == "constraint-not-checkable"
    assert f"{P}.logicalTypeOptions.minLength" not in blocked
    codes = [f.code for f in compile_contract(contract, get_dialect("duckdb")).findings
             if f.rule_key == f"{P}.logicalTypeOptions.maxLenght"]
    assert codes == ["unknown-option"]  # not also "not checkable"


def test_invalid_values_are_skipped_rules_at_their_lines(tmp_path):
    contract = load(tmp_path, """\
        - name: id
          required: "yes"
          unique: 1
          primaryKey: true
          primaryKeyPosition: one
          logicalTypeOptions: 5
          logicalType: [integer]
          enum: {value: 1}
        """)
    blocked = skipped(contract)
    assert {key: blocked[key][:2] for key in blocked} == {
        f"{P}.required": ("invalid-constraint", 10),
        f"{P}.unique": ("invalid-constraint", 11),
        f"{P}.primaryKeyPosition": ("invalid-constraint", 13),
        f"{P}.logicalTypeOptions": ("invalid-constraint", 14),
        f"{P}.logicalType": ("invalid-constraint", 15),
        f"{P}.enum": ("invalid-constraint", 16),
    }
    assert blocked[f"{P}.required"][2] == "'required' must be true or false; it is not checked"
    # The declared key still runs: its measurement does not depend on the position.
    assert "schema[orders].primaryKey" in {r.key for r in contract.rules} - set(blocked)


def test_typos_on_nested_fields_skip_a_rule_as_on_columns(tmp_path):
    """A field of an object property holds constraints as a column does (issue 23 item 4),
    so a misspelt one skips a rule keyed by the field's logical path."""
    contract = load(tmp_path, """\
        - name: id
          logicalType: object
          properties:
            - name: inner
              requird: true
        """)
    assert skipped(contract) == {f"{P}.properties[inner].requird": (
        "unknown-constraint-key", 13,
        "unknown key 'requird'; did you mean 'required'? (the constraint is not checked)")}


def test_typos_under_array_items_keep_the_run_from_passing(tmp_path):
    contract = load(tmp_path, """\
        - name: id
          logicalType: array
          items:
            logicalType: object
            properties:
              - name: inner
                requird: true
        """)
    assert not skipped(contract)
    assert [(f.code, f.level, f.rule_key) for f in contract.findings
            if "requird" in f.message] == [("unknown-key", Level.ERROR, None)]


def test_other_spellings_on_nested_fields_are_read_as_odcs_keys(tmp_path):
    """Issue 19 item 4: `isUnique` is read as `unique`, on a nested field as on a column; under
    array items nothing is checked and the warning names both spellings."""
    contract = load(tmp_path, """\
        - name: id
          logicalType: object
          properties:
            - name: inner
              isUnique: true
              isNullable: false
        - name: lines
          logicalType: array
          items:
            properties:
              - name: inner
                isUnique: true
                isNullable: false
        """)
    keys = {r.key for r in contract.rules}
    assert {f"{P}.properties[inner].unique", f"{P}.properties[inner].required"} <= keys
    nested = [f for f in contract.findings if f.code == "nested-constraint-not-checked"]
    assert [(f.message, f.line) for f in nested] == [
        ("isUnique, isNullable under array items or map entries is not checked: arrays are "
         "never flattened implicitly", 20)]

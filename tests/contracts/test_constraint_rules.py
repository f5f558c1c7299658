"""Constraint rules derived from a declared schema: keys, order, expectations, findings, and the
format-neutral constructor a second declaration format reuses."""

from __future__ import annotations

import textwrap
from fractions import Fraction
from pathlib import Path

from packata_sql.contracts.constraints import constraint_rules, primary_key
from packata_sql.contracts.model import (
    Category,
    Constraint,
    Expectation,
    Level,
    Operator,
    SchemaObject,
    SchemaProperty,
)
from packata_sql.contracts.odcs import load_odcs
from packata_sql.dialects import get_dialect
from packata_sql.plans.compiler import CatalogPlan, Plan, compile_contract

HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
SCHEMA = """
schema:
  - name: orders
    physicalName: tbl_orders
    properties:
      - name: line
        logicalType: integer
        primaryKey: true
        primaryKeyPosition: 2
      - name: id
        physicalName: order_id
        logicalType: integer
        physicalType: BIGINT
        required: true
        primaryKey: true
        primaryKeyPosition: 1
      - name: email
        logicalType: string
        unique: true
        logicalTypeOptions: {maxLength: 20, pattern: '@', multipleOf: 3}
      - name: note
      - name: amount
        logicalType: number
        logicalTypeOptions: {minimum: 0, exclusiveMinimum: true, maximum: 5}
"""


def load(tmp_path: Path, text: str):
    path = tmp_path / "c.yaml"
    path.write_text(HEAD + textwrap.dedent(text), encoding="utf-8")
    return load_odcs(str(path))


def test_keys_definitions_and_order(tmp_path):
    contract = load(tmp_path, SCHEMA)
    p = "schema[orders].properties"
    assert [(r.key, r.definition) for r in contract.rules] == [
        (f"{p}[line].logicalType", Constraint("logicalType", ("line",),
                                              (("logicalType", "integer"),))),
        (f"{p}[id].logicalType", Constraint("logicalType", ("order_id",),
                                            (("logicalType", "integer"),))),
        (f"{p}[id].physicalType", Constraint("physicalType", ("order_id",),
                                             (("physicalType", "BIGINT"),))),
        (f"{p}[id].required", Constraint("required", ("order_id",))),
        (f"{p}[email].logicalType", Constraint("logicalType", ("email",),
                                               (("logicalType", "string"),))),
        (f"{p}[email].unique", Constraint("unique", ("email",))),
        (f"{p}[email].logicalTypeOptions.maxLength",
         Constraint("maxLength", ("email",), (("maxLength", 20), ("logicalType", "string")))),
        (f"{p}[email].logicalTypeOptions.pattern",
         Constraint("pattern", ("email",), (("pattern", "@"), ("logicalType", "string")))),
        (f"{p}[email].logicalTypeOptions.multipleOf",
         Constraint("multipleOf", ("email",), (("multipleOf", 3), ("logicalType", "string")))),
        (f"{p}[note].present", Constraint("present", ("note",))),
        (f"{p}[amount].logicalType", Constraint("logicalType", ("amount",),
                                                (("logicalType", "number"),))),
        (f"{p}[amount].logicalTypeOptions.minimum",
         Constraint("minimum", ("amount",),
                    (("minimum", 0), ("exclusive", True), ("logicalType", "number")))),
        (f"{p}[amount].logicalTypeOptions.maximum",
         Constraint("maximum", ("amount",), (("maximum", 5), ("logicalType", "number")))),
        # Composite key in primaryKeyPosition order, once per object.
        ("schema[orders].primaryKey",
         Constraint("primaryKey", ("order_id", "line"), (("properties", ("id", "line")),))),
    ]
    assert all(r.category is Category.CONSTRAINT for r in contract.rules)
    zero = (Expectation(Operator.EQ, Fraction(0)),)
    assert {r.key: r.expectations for r in contract.rules}[f"{p}[id].required"] == zero
    assert {r.key: r.expectations for r in contract.rules}[f"{p}[id].logicalType"] == ()
    required = next(r for r in contract.rules if r.key == f"{p}[id].required")
    # The rule points at the line that declares it.
    assert (required.source_path, required.line) == ("schema[0].properties[1].required", 19)
    pattern = next(r for r in contract.rules if r.key.endswith("[email].logicalTypeOptions.pattern"))
    assert (pattern.source_path, pattern.line) == (
        "schema[0].properties[2].logicalTypeOptions.pattern", 25)
    assert next(r for r in contract.rules if r.key.endswith("primaryKey")).line == 13
    assert required.target.physical_object == "tbl_orders"


def test_unchecked_options_are_skipped_with_findings_not_dropped(tmp_path):
    contract = load(tmp_path, SCHEMA)
    compiled = compile_contract(contract, get_dialect("duckdb"))
    p = "schema[orders].properties"
    assert compiled.blocked[f"{p}[email].logicalTypeOptions.multipleOf"].code == \
        "constraint-not-checkable"
    kinds = {type(plan) for plan in compiled.ordered}
    assert kinds == {Plan, CatalogPlan}
    # Row-reading constraints of one object fuse: they share the object's segments.
    assert {plan.object_segments for plan in compiled.plans} == {("tbl_orders",)}


def test_bad_options_are_findings(tmp_path):
    contract = load(tmp_path, """
    schema:
      - name: t
        properties:
          - name: n
            logicalType: integer
            required: 'yes'
            logicalTypeOptions: {minLength: 2, minimum: 'low', pattern: '^a'}
          - name: s
            logicalType: string
            logicalTypeOptions: {maxLength: -1, format: hostname, validValues: [1], pattern: '('}
          - name: nested
            logicalType: object
            properties:
              - name: inner
                required: true
    """)
    codes = {f.rule_key: f.code for f in compile_contract(contract, get_dialect("duckdb")).findings}
    p = "schema[t].properties"
    assert codes[f"{p}[n].logicalTypeOptions.minLength"] == "constraint-not-checkable"
    assert codes[f"{p}[n].logicalTypeOptions.minimum"] == "constraint-not-checkable"
    assert codes[f"{p}[n].logicalTypeOptions.pattern"] == "constraint-not-checkable"
    assert codes[f"{p}[s].logicalTypeOptions.pattern"] == "unsafe-pattern"
    assert codes[f"{p}[s].logicalTypeOptions.maxLength"] == "invalid-constraint"
    assert codes[f"{p}[s].logicalTypeOptions.format"] == "constraint-not-checkable"
    assert codes[f"{p}[s].logicalTypeOptions.validValues"] == "member-type-mismatch"
    # required: 'yes' is not dropped: its rule is skipped with the finding, at its line.
    assert codes[f"{p}[n].required"] == "invalid-constraint"
    required = next(f for f in contract.findings if f.rule_key == f"{p}[n].required")
    assert (required.level, required.line, required.source_path) == (
        Level.ERROR, 12, "schema[0].properties[0].required")
    # A field of an object property is checked as a column is (issue 23 item 4).
    nested = f"{p}[nested].properties[inner].required"
    assert nested in {r.key for r in contract.rules} and nested not in codes


def test_a_second_format_gets_the_same_rules_from_the_model():
    """What a JSON policy loader would do: build the model, call the public constructor."""
    obj = SchemaObject("orders", "tbl_orders", (
        SchemaProperty("line", "line", "integer", primary_key=True, primary_key_position=2),
        SchemaProperty("id", "order_id", "integer", required=True, primary_key=True,
                       primary_key_position=1),
    ), source_path="policy.json#orders")
    taken: set[str] = {"schema[orders].primaryKey"}  # already used: the new rule is renamed
    rules, findings = constraint_rules(obj, taken)
    assert [r.key for r in rules][:3] == [
        "schema[orders].properties[line].logicalType", "schema[orders].properties[id].logicalType",
        "schema[orders].properties[id].required"]
    assert rules[-1].key.startswith("schema[orders].primaryKey#")
    assert [f.code for f in findings] == ["duplicate-key"]
    assert [p.name for p in primary_key(obj)] == ["id", "line"]

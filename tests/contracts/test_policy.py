"""The JSON quality policy: rules and keys, the evidence hash, and malformed policies as usage
errors naming the rule id and key (issue 12)."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packata_sql.cli.main import main
from packata_sql.contracts.canonical import CanonicalError, canonical_bytes, sha256_hex
from packata_sql.contracts.model import Category, Constraint, Expectation, Library, Operator
from packata_sql.contracts.policy import load_policy
from packata_sql.contracts.yaml_source import SourceError

VECTORS = Path(__file__).parent / "vectors"
EXAMPLE = (VECTORS / "example_policy.json").read_text(encoding="utf-8")


def _policy(document: object) -> str:
    return json.dumps(document)


def _example() -> dict:
    return json.loads(EXAMPLE)


def test_the_example_becomes_rules_keyed_by_id():
    contract = load_policy("p.json", EXAMPLE, "orders")
    rules = {r.key: r for r in contract.rules}
    assert list(rules) == ["non-empty", "columns", "id-shape", "id-present", "id-unique",
                           "amount-range", "known-status"]
    assert rules["non-empty"].definition == Library("rowCount")
    assert rules["non-empty"].expectations == (Expectation(Operator.GE, Fraction(1)),)
    assert rules["columns"].definition == Constraint("present", ("id", "status"))
    assert rules["id-shape"].definition == Constraint(
        "logicalType", ("id",), (("logicalType", "integer"), ("nullable", False)))
    assert rules["id-shape"].expectations == (Expectation(Operator.EQ, Fraction(0)),)
    assert rules["id-unique"].definition.argument("ignore_nulls") is False
    assert rules["amount-range"].definition.argument("allow_null") is True  # the default
    assert rules["known-status"].definition.argument("values") == ("new", "closed")
    assert {r.category for k, r in rules.items() if k.startswith(("columns", "id-shape"))} \
        == {Category.CONSTRAINT}
    assert rules["known-status"].target.logical_type is None
    assert contract.drift_overrides == (("field-added-required", "warning"),
                                        ("field-removed", "breaking"))
    assert contract.schema_drift is None  # the policy overrides drift; it does not turn it on
    assert dict(contract.declaration) == {
        "format": "policy", "version": "monthly-import-v1",
        "sha256": "539064f7d7e43c019d996e021f3e357933e802ca6f77e85e2162c5bd0191834d"}


def test_a_field_type_reaches_rules_declared_before_it():
    document = {"object": "t", "rules": [
        {"id": "in-set", "type": "referential", "field": "n", "allowed_values": [1, 2]},
        {"id": "n-type", "type": "field", "field": "n", "data_type": "integer"}]}
    contract = load_policy("p.json", _policy(document))
    assert contract.rules[0].target.logical_type == "integer"
    assert contract.rules[0].definition.argument("values") == (1, 2)


def test_a_row_count_without_bounds_records_the_count():
    contract = load_policy("p.json", _policy({"object": "t", "rules": [
        {"id": "n", "type": "row_count", "maximum": 10.5}]}))
    assert contract.rules[0].expectations == (
        Expectation(Operator.GE, Fraction(0)), Expectation(Operator.LE, Fraction(21, 2)))


def test_range_bounds_stay_exact():
    contract = load_policy("p.json", '{"object": "t", "rules": [{"id": "r", "type": "range", '
                                     '"field": "x", "minimum": -0.1, "maximum": 1e2}]}')
    constraint = contract.rules[0].definition
    assert constraint.argument("minimum") == Decimal("-0.1")
    assert constraint.argument("maximum") == 100


def _mutated(index: int | None, **changes: object) -> dict:
    document = _example()
    target = document if index is None else document["rules"][index]
    for key, value in changes.items():
        if value is _DROP:
            del target[key]
        else:
            target[key] = value
    return document


_DROP = object()
MALFORMED = [
    (_mutated(0, type="rowcount"), "rules[0] (id 'non-empty'): 'type'"),
    (_mutated(1, id=_DROP), "rules[1]: 'id' is required"),
    (_mutated(1, id=""), "rules[1]: 'id' is required"),
    (_mutated(2, id="non-empty"), "rules[2] (id 'non-empty'): 'id' is also the id of rules[0]"),
    (_mutated(0, minimum=-1), "(id 'non-empty'): 'minimum' must not be negative"),
    (_mutated(0, maximum=-3), "(id 'non-empty'): 'maximum' must not be negative"),
    (_mutated(0, minimum=5, maximum=4), "(id 'non-empty'): 'minimum' is greater than"),
    (_mutated(5, minimum=5, maximum=4), "(id 'amount-range'): 'minimum' is greater than"),
    (_mutated(5, minimum=_DROP), "(id 'amount-range') needs 'minimum' and/or 'maximum'"),
    (_mutated(5, minimum="0"), "(id 'amount-range'): 'minimum' must be a finite number"),
    (_mutated(5, minimum=True), "(id 'amount-range'): 'minimum' must be a finite number"),
    (_mutated(0, minimun=1), "(id 'non-empty'): 'minimun' is not a key of a 'row_count' rule"),
    (_mutated(6, allowed_values=[]), "(id 'known-status'): 'allowed_values' must be a non-empty"),
    (_mutated(6, allowed_values=["new", None]), "(id 'known-status'): 'allowed_values' holds"),
    (_mutated(6, allow_null="yes"), "(id 'known-status'): 'allow_null' must be true or false"),
    (_mutated(4, ignore_nulls=1), "(id 'id-unique'): 'ignore_nulls' must be true or false"),
    (_mutated(2, data_type="int"), "(id 'id-shape'): 'data_type' must be one of"),
    (_mutated(2, severity="critical"), "(id 'id-shape'): 'severity' must be 'error'"),
    (_mutated(1, fields=[]), "(id 'columns'): 'fields' must name columns"),
    (_mutated(3, field="id"), "(id 'id-present') needs 'field' (one name) or 'fields'"),
    (_mutated(4, fields=["id", "id"]), "(id 'id-unique'): 'fields' names a column twice"),
    (_mutated(None, schema_policy={"column_dropped": "warning"}),
     "schema_policy: 'column_dropped' is not a drift change"),
    (_mutated(None, schema_policy={"field_removed": "fatal"}),
     "schema_policy: 'field_removed' must be compatible, warning or breaking"),
    (_mutated(None, rules=[1]), "rules[0] must be an object"),
]


@pytest.mark.parametrize(("document", "named"), MALFORMED)
def test_malformed_policies_are_usage_errors_naming_rule_and_key(document, named):
    with pytest.raises(SourceError) as caught:
        load_policy("p.json", json.dumps(document, indent=1), "orders")
    assert named in str(caught.value)


def test_the_error_names_the_line(tmp_path):
    text = EXAMPLE.replace('"minimum": 0}', '"minimum": 0, "maximum": -1}')
    with pytest.raises(SourceError) as caught:
        load_policy("p.json", text, "orders")
    assert caught.value.line == 8


def test_a_malformed_policy_exits_3_without_traceback(tmp_path, capsys):
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(_mutated(0, type="rows")), encoding="utf-8")
    code = main(["check", str(path), "--object", "orders", "--url", "duckdb:///nowhere.duckdb"])
    err = capsys.readouterr().err
    assert code == 3
    assert "id 'non-empty'" in err and "'type'" in err and "Traceback" not in err


def test_an_unknown_top_level_key_is_a_finding_that_keeps_the_run_from_passing(tmp_path,
                                                                              capsys):
    """Issue 19 item 3: a misspelt `schema_policy` would be dropped silently; it is an error
    finding with the closest key, the rules run, and the run ends incomplete (exit 2)."""
    import duckdb

    document = {"object": "orders", "schema_polcy": {"field_removed": "warning"},
                "rules": [{"id": "non-empty", "type": "row_count", "minimum": 1}]}
    text = json.dumps(document, indent=1)
    findings = load_policy("p.json", text, "orders").findings
    assert [(f.code, f.level.value, f.rule_key, f.line) for f in findings] == [
        ("unknown-key", "error", None, 3)]
    assert "did you mean 'schema_policy'?" in findings[0].message
    database = tmp_path / "w.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute("CREATE TABLE orders AS SELECT 1 AS id")
    connection.close()
    path = tmp_path / "policy.json"
    path.write_text(text, encoding="utf-8")
    report = tmp_path / "r.json"
    code = main(["check", str(path), "--url", f"duckdb:///{database}", "--format", "json",
                 "--output", str(report), "--progress", "none"])
    assert code == 2, capsys.readouterr().err
    result = json.loads(report.read_text(encoding="utf-8"))
    assert [(r["key"], r["status"]) for r in result["rules"]] == [("non-empty", "passed")]
    assert result["outcome"] == "incomplete"


def test_non_json_and_non_ijson_policies_are_refused():
    with pytest.raises(SourceError, match="not a JSON quality policy"):
        load_policy("p.json", "rules: []", "t")
    with pytest.raises(SourceError, match="outside the range"):
        load_policy("p.json", '{"rules": [], "version": 9007199254740993}', "t")
    with pytest.raises(SourceError, match="duplicate key"):
        load_policy("p.json", '{"rules": [], "rules": []}', "t")


@pytest.mark.parametrize("vector", json.loads((VECTORS / "canonical_json.json").read_text("utf-8")),
                         ids=lambda v: v["name"])
def test_canonical_json_vectors(vector):
    text = vector.get("input") or (VECTORS / vector["file"]).read_text(encoding="utf-8")
    assert canonical_bytes(text).decode("utf-8") == vector["canonical"]
    if "sha256" in vector:
        assert sha256_hex(text) == vector["sha256"]


def test_the_hash_is_stable_across_reformatting():
    document = _example()
    reordered = {key: document[key] for key in reversed(list(document))}
    reordered["rules"] = [dict(reversed(list(rule.items()))) for rule in document["rules"]]
    spellings = [
        json.dumps(document),
        json.dumps(document, indent=4, sort_keys=True),
        json.dumps(reordered, separators=(",", ":")),
        json.dumps(document, indent="\t", ensure_ascii=True),
        EXAMPLE.replace('"minimum": 1}', '"minimum": 1.0}').replace('"minimum": 0}', '"minimum": 0e0}'),
    ]
    assert {sha256_hex(text) for text in spellings} == {sha256_hex(EXAMPLE)}


def _changes() -> list[dict]:
    variants = []
    for index, rule in enumerate(_example()["rules"]):
        for key, value in rule.items():
            document = _example()
            document["rules"][index][key] = value + "x" if isinstance(value, str) else \
                ([*value, "x"] if isinstance(value, list) else (not value if isinstance(value, bool)
                                                                else value + 1))
            variants.append(document)
    document = _example()
    document["rules"][0]["severity"] = "warning"  # a new key on one rule
    variants.append(document)
    document = _example()
    document["rules"].reverse()  # rule order is part of the policy
    variants.append(document)
    document = _example()
    document["schema_policy"]["field_removed"] = "warning"
    variants.append(document)
    return variants


def test_the_hash_changes_when_any_rule_changes():
    digests = [sha256_hex(json.dumps(document)) for document in _changes()]
    assert sha256_hex(EXAMPLE) not in digests
    assert len(set(digests)) == len(digests)


def test_canonical_refuses_nan():
    with pytest.raises(CanonicalError):
        canonical_bytes('{"x": NaN}')


_SCALARS = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=8) \
    | st.floats(allow_nan=False, allow_infinity=False, width=64)
_DOCUMENTS = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


def _reversed_keys(value: object) -> object:
    if isinstance(value, dict):
        return {k: _reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed_keys(v) for v in value]
    return value


@settings(max_examples=150, deadline=None)
@given(_DOCUMENTS)
def test_any_document_hashes_the_same_however_it_is_written(document):
    compact = json.dumps(document, separators=(",", ":"))
    spaced = json.dumps(_reversed_keys(document), indent=3, ensure_ascii=False)
    assert sha256_hex(compact) == sha256_hex(spaced)
    # The same value (JSON numbers are IEEE doubles in RFC 8785, so read both as floats).
    assert json.loads(canonical_bytes(spaced), parse_int=float) == \
        json.loads(compact, parse_int=float)

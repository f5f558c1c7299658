"""The official ODCS JSON schemas (v3.0.2, v3.1.0, v3.2.0) are bundled; the loader knows every
key they define, and every contract shape the suite relies on is valid against its version."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml

from packata_sql.contracts.model import Category
from packata_sql.contracts.odcs import load_odcs
from packata_sql.contracts.odcs_schema import SCHEMA_VERSIONS, known_keys, official_schema

ROOT = Path(__file__).parents[2]
CORPUS = [
    *sorted((Path(__file__).parent / "corpus").glob("*.yaml")),
    ROOT / "tests" / "golden" / "contract.yaml",
    ROOT / "packata_sql" / "demo" / "contract.yaml",
]

ODCS_32 = """\
apiVersion: v3.2.0
kind: DataContract
id: shop
version: 1.0.0
status: active
context: {instructions: read status as the order lifecycle}
servers:
  - server: athena
    type: athena
    workgroup: primary
    stagingDir: s3://bucket/tmp
    schema: sales
schema:
  - name: orders
    synonyms: [{synonym: purchases}]
    properties:
      - name: status
        logicalType: string
        semanticType: dimension
        enum:
          - {value: open, label: Open}
          - {value: closed, description: done}
        quality:
          - metric: invalidValues
            arguments: {validValues: [open, closed]}
            mustBe: 0
      - name: attributes
        logicalType: map
        map:
          key: {logicalType: string}
          value:
            logicalType: integer
            quality:
              - metric: nullValues
                mustBe: 0
"""


def version_of(document: dict[str, Any]) -> str:
    """The bundled schema for the document's apiVersion (3.0.0 and 3.0.1 read as 3.0.2)."""
    declared = str(document["apiVersion"]).lstrip("v")
    return "3.0.2" if declared.startswith("3.0") else declared


def schema_errors(document: dict[str, Any]) -> list[str]:
    """The official schema's objections, but for the one packata-sql documents: an Expressif
    rule's expectations and arguments (docs/formats.md "Expressif rules")."""
    from packata_sql.contracts.official import _expressif_keys

    plain = json.loads(json.dumps(document, default=str))  # YAML dates → strings, as in JSON
    validator = jsonschema_rs.Draft201909Validator(official_schema(version_of(plain)))
    return [f"{e.instance_path}: {e.message}" for e in validator.iter_errors(plain)
            if not _expressif_keys(e)]


def test_the_bundled_schemas_are_the_three_versions_and_valid_json_schemas():
    assert SCHEMA_VERSIONS == ("3.0.2", "3.1.0", "3.2.0")
    for version in SCHEMA_VERSIONS:
        schema = official_schema(version)
        jsonschema_rs.meta.validate(schema)  # raises on a schema that is not valid
        assert f"v{version}" in schema["properties"]["apiVersion"]["enum"]


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name if p.parent.name == "corpus"
                         else f"{p.parent.name}/{p.name}")
def test_corpus_is_valid_for_its_version_and_loads_without_unknown_keys(path):
    assert schema_errors(yaml.safe_load(path.read_text("utf-8"))) == []
    findings = load_odcs(str(path)).findings
    assert [f.message for f in findings if f.code == "unknown-key"] == []
    # Real contracts keep their constraints: no declaration read as a typo or invalid value.
    assert [f.message for f in findings if f.code in (
        "unknown-constraint-key", "unknown-option", "invalid-constraint")] == []


def test_odcs_32_keys_load_without_warnings_and_typos_still_warn(tmp_path):
    assert schema_errors(yaml.safe_load(ODCS_32)) == []
    path = tmp_path / "c.yaml"
    path.write_text(ODCS_32, encoding="utf-8")
    contract = load_odcs(str(path))
    assert [f for f in contract.findings if f.code == "unknown-key"] == []
    # the map's value is read like array items: its rule is kept (and not executed, nested)
    quality = [r for r in contract.rules if r.category is Category.QUALITY]
    assert [r.target.property_path for r in quality] == [("status",), ("attributes", "map", "value")]
    assert quality[1].target.nested
    path.write_text(ODCS_32.replace("semanticType:", "semantikType:"), encoding="utf-8")
    typo = [f for f in load_odcs(str(path)).findings if f.code == "unknown-key"]
    assert [(f.message, f.line) for f in typo] == [
        ("unknown key 'semantikType'; did you mean 'semanticType'? (it is not read, and the "
         "run cannot pass)", 19)]


def test_known_keys_come_from_the_schemas():
    keys = known_keys()
    assert {"enum", "map", "semanticType", "synonyms"} <= keys.property
    assert {"context"} <= keys.top and {"workgroup", "stream"} <= keys.server
    assert "rule" in keys.quality and "metric" in keys.quality
    assert "mustBeLesThan" not in keys.quality

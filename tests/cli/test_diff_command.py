"""`packata-sql diff OLD NEW` through the real binary (issue 24.8): the classes of
docs/cli.md, exit 1 on a breaking change, Markdown a CommonMark parser reads as the table of
changes, and JSON."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt

BINARY = str(Path(sys.executable).with_name("packata-sql"))
OLD: dict[str, Any] = {
    "apiVersion": "v3.1.0", "kind": "DataContract", "id": "shop", "version": "1.0.0",
    "status": "active",
    "schema": [{"name": "orders", "properties": [
        {"name": "id", "logicalType": "integer", "required": True, "quality": [
            {"id": "id_unique", "metric": "duplicateValues", "mustBe": 0}]},
        {"name": "note|remark", "logicalType": "string", "quality": [
            {"id": "note_nulls", "metric": "nullValues", "mustBeLessThan": 10}]},
    ]}],
}


def packata(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=60)


def _pair(tmp_path: Path, new: dict[str, Any]) -> tuple[str, str]:
    old_path, new_path = tmp_path / "v1.yaml", tmp_path / "v2.yaml"
    old_path.write_text(yaml.safe_dump(OLD), encoding="utf-8")
    new_path.write_text(yaml.safe_dump(new), encoding="utf-8")
    return str(old_path), str(new_path)


def _tightened() -> dict[str, Any]:
    new = copy.deepcopy(OLD)
    new["version"] = "1.1.0"
    properties = new["schema"][0]["properties"]
    properties[1]["quality"][0]["mustBeLessThan"] = 5
    properties.append({"name": "created", "logicalType": "date"})
    return new


def _breaking() -> dict[str, Any]:
    new = _tightened()
    new["schema"][0]["properties"][0]["required"] = False
    return new


def test_no_change_exits_0(tmp_path):
    done = packata("diff", *_pair(tmp_path, copy.deepcopy(OLD)))
    assert done.returncode == 0, done.stderr
    assert "compatible (0 change(s)" in done.stdout


def test_warnings_exit_0_unless_asked(tmp_path):
    old, new = _pair(tmp_path, _tightened())
    done = packata("diff", old, new)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"{old} → {new}: warning (2 change(s): 0 breaking, 1 warning, 1 compatible)",
        "  warning    rule-tightened         orders.note_nulls: < 10 → < 5",
        "  compatible field-added-nullable   orders.created: date",
    ]
    assert packata("diff", old, new, "--fail-on", "warning").returncode == 1


def test_a_breaking_change_exits_1_and_overrides_apply(tmp_path):
    old, new = _pair(tmp_path, _breaking())
    done = packata("diff", old, new)
    assert done.returncode == 1
    assert "  breaking   nullability-relaxed    orders.id: not null → nullable" in done.stdout
    accepted = packata("diff", old, new, "--drift", "nullability-relaxed=warning")
    assert accepted.returncode == 0
    typo = packata("diff", old, new, "--drift", "nullability-relax=warning")
    assert typo.returncode == 3
    assert "did you mean 'nullability-relaxed'?" in typo.stderr


def test_markdown_is_a_table_of_changes_breaking_first(tmp_path):
    done = packata("diff", *_pair(tmp_path, _breaking()), "--format", "markdown")
    assert done.returncode == 1
    parser = MarkdownIt("commonmark").enable("table")
    tokens = parser.parse(done.stdout)
    heading = next(t for i, t in enumerate(tokens) if tokens[i - 1].type == "heading_open")
    assert heading.content == "Contract changes: breaking"
    rows: list[list[str]] = []
    for index, token in enumerate(tokens):
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and tokens[index - 1].type in ("td_open", "th_open"):
            rows[-1].append(_text(token))
    assert rows[0] == ["classification", "change", "where", "before → after"]
    assert rows[1:3] == [["breaking", "nullability-relaxed", "orders.id", "not null → nullable"],
                         ["warning", "rule-tightened", "orders.note_nulls", "< 10 → < 5"]]
    # Compatible changes are folded into <details>, their table still a table.
    assert "<details>" in done.stdout and ["compatible", "field-added-nullable",
                                           "orders.created", "date"] in rows


def _text(inline: Any) -> str:
    """A cell's text as a reader sees it (code spans and escapes resolved)."""
    return "".join(child.content for child in inline.children or []
                   if child.type in ("text", "code_inline"))


def test_a_cell_with_a_pipe_stays_one_cell(tmp_path):
    new = copy.deepcopy(OLD)
    new["schema"][0]["properties"].pop(1)
    done = packata("diff", *_pair(tmp_path, new), "--format", "markdown")
    tokens = MarkdownIt("commonmark").enable("table").parse(done.stdout)
    cells = [_text(t) for i, t in enumerate(tokens)
             if t.type == "inline" and tokens[i - 1].type == "td_open"]
    assert "orders.note|remark" in cells


def test_json_lists_every_change(tmp_path):
    done = packata("diff", *_pair(tmp_path, _breaking()), "--format", "json")
    assert done.returncode == 1
    document = json.loads(done.stdout)
    assert document["format"] == "packata-sql/diff@1"
    assert document["classification"] == "breaking"
    assert document["counts"] == {"breaking": 1, "warning": 1, "compatible": 1}
    assert {"object": "orders", "subject": "id", "change": "nullability-relaxed",
            "classification": "breaking", "before": "not null",
            "after": "nullable"} in document["changes"]


def test_an_unreadable_contract_is_a_usage_error(tmp_path):
    done = packata("diff", str(tmp_path / "missing.yaml"), str(tmp_path / "missing.yaml"))
    assert done.returncode == 3
    assert "file not found" in done.stderr


def test_a_rule_without_id_is_named_by_its_key_once(tmp_path):
    old = copy.deepcopy(OLD)
    old["schema"][0]["quality"] = [{"metric": "rowCount", "mustBeGreaterThan": 0}]
    new = copy.deepcopy(old)
    new["schema"][0]["quality"][0]["mustBeGreaterThan"] = 10
    old_path, new_path = tmp_path / "v1.yaml", tmp_path / "v2.yaml"
    old_path.write_text(yaml.safe_dump(old), encoding="utf-8")
    new_path.write_text(yaml.safe_dump(new), encoding="utf-8")
    done = packata("diff", str(old_path), str(new_path))
    assert done.returncode == 0, done.stderr
    [line] = [row for row in done.stdout.splitlines() if "rule-tightened" in row]
    assert line == "  warning    rule-tightened         schema[orders].quality[0]: > 0 → > 10"

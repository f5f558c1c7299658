"""What an ODCS property declares about permitted data (required, unique, primary key,
types, logicalTypeOptions) and whether the contract turns schema drift on: read into the
format-neutral model, with findings for what cannot be read."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from packata_sql.contracts.model import Finding, Level, SchemaProperty

YamlPath = tuple[str | int, ...]
Lines = Callable[[YamlPath], int | None]


def schema_property(findings: list[Finding], line: Lines, prop: Mapping[str, Any],
                    yaml_path: YamlPath, where: str) -> SchemaProperty:
    """What a top-level property declares about permitted data."""
    name = text(prop.get("name"))
    flags = {key: flag(findings, line, prop, key, where, yaml_path)
             for key in ("required", "unique", "primaryKey")}
    position = prop.get("primaryKeyPosition")
    if position is not None and (isinstance(position, bool) or not isinstance(position, int)):
        findings.append(Finding(
            "invalid-constraint", "'primaryKeyPosition' must be an integer", where,
            line=line((*yaml_path, "primaryKeyPosition")),
        ))
        position = None
    options = prop.get("logicalTypeOptions")
    if options is not None and not isinstance(options, dict):
        findings.append(Finding(
            "invalid-constraint", "'logicalTypeOptions' must be a mapping", where,
            line=line((*yaml_path, "logicalTypeOptions")),
        ))
    return SchemaProperty(
        name, text(prop.get("physicalName")) or name, text(prop.get("logicalType")) or None,
        text(prop.get("physicalType")) or None, flags["required"], flags["unique"],
        flags["primaryKey"], position if isinstance(position, int) and position > 0 else None,
        tuple((str(k), freeze(v)) for k, v in options.items())
        if isinstance(options, dict) else (),
        where, line(yaml_path), bool(text(prop.get("physicalName"))),
        _enum(findings, line, prop.get("enum"), where, yaml_path),
        _declaration_lines(line, prop, yaml_path),
    )


def _enum(findings: list[Finding], line: Lines, raw: object, where: str,
          yaml_path: YamlPath) -> tuple[object, ...] | None:
    """ODCS 3.2 `enum: [{value: …, label: …}, …]` (a bare value is read as its `value`)."""
    if raw is None:
        return None
    entries = raw if isinstance(raw, list) else None
    values = [e.get("value") if isinstance(e, dict) else e for e in entries or []]
    if entries is None or any(isinstance(e, dict) and "value" not in e for e in entries):
        findings.append(Finding(
            "invalid-constraint", "'enum' must be a list of entries with a 'value'; not checked",
            where, line=line((*yaml_path, "enum")),
        ))
        return None
    return tuple(freeze(v) for v in values)


def _declaration_lines(line: Lines, prop: Mapping[str, Any],
                       yaml_path: YamlPath) -> tuple[tuple[str, int | None], ...]:
    """Where each constraint is written, so its rule and findings point at that line."""
    found = [(key, line((*yaml_path, key))) for key in
             ("logicalType", "physicalType", "required", "unique", "primaryKey", "enum")
             if key in prop]
    options = prop.get("logicalTypeOptions")
    if isinstance(options, dict):
        found += [(f"logicalTypeOptions.{key}", line((*yaml_path, "logicalTypeOptions", key)))
                  for key in options]
    return tuple(found)


def flag(findings: list[Finding], line: Lines, prop: Mapping[str, Any], key: str,
         where: str, yaml_path: YamlPath) -> bool:
    """A true/false declaration; anything else is a finding and counts as not declared."""
    value = prop.get(key)
    if value is None or isinstance(value, bool):
        return bool(value)
    findings.append(Finding(
        "invalid-constraint", f"'{key}' must be true or false; it is not checked", where,
        line=line((*yaml_path, key)),
    ))
    return False


_CONSTRAINT_KEYS = ("required", "unique", "primaryKey", "logicalTypeOptions", "enum")


def nested_constraints(findings: list[Finding], line: Lines, prop: Mapping[str, Any],
                       where: str, yaml_path: YamlPath) -> None:
    """Nested properties are no columns: what they declare is reported, not dropped."""
    declared = [key for key in _CONSTRAINT_KEYS if prop.get(key) not in (None, False, {})]
    if declared:
        findings.append(Finding(
            "nested-constraint-not-checked",
            f"{', '.join(declared)} on a nested property is not checked yet", where,
            Level.WARNING, line=line((*yaml_path, declared[0])),
        ))


def schema_drift(findings: list[Finding], line: Lines,
                 raw: object) -> tuple[tuple[str, str], ...] | None:
    """`customProperties: [{property: schemaDrift, value: true | {change: level}}]`."""
    entries = raw if isinstance(raw, list) else []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("property") != "schemaDrift":
            continue
        value = entry.get("value")
        if value is True:
            return ()
        if isinstance(value, dict):
            _drift_override_findings(findings, line, value, index)
            return tuple((str(k), str(v)) for k, v in value.items())
        if value is not False:
            findings.append(Finding(
                "invalid-schema-drift", "'schemaDrift' must be true, false or a mapping of "
                "change → compatible|warning|breaking", f"customProperties[{index}]",
                Level.WARNING, line=line(("customProperties", index)),
            ))
    return None


def _drift_override_findings(findings: list[Finding], line: Lines, value: Mapping[Any, Any],
                             index: int) -> None:
    """Each `change: level` override is read as `--drift` reads it; a wrong change key or
    level is an error at its own line, so `lint` and `check` stop on it alike."""
    from packata_sql.drift import OverrideError, parse_overrides

    for key, level in value.items():
        try:
            parse_overrides([f"{key}={level}"])
        except OverrideError as error:
            findings.append(Finding(
                "invalid-drift-override", f"schemaDrift: {error}",
                f"customProperties[{index}].value.{key}",
                line=line(("customProperties", index, "value", key)),
            ))


def text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def freeze(value: object) -> object:
    """Lists become tuples so that rules stay hashable."""
    if isinstance(value, list):
        return tuple(freeze(item) for item in value)
    if isinstance(value, dict):
        return tuple((k, freeze(v)) for k, v in value.items())
    return value

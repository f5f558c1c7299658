"""ODCS v3 (3.0.x to 3.2) YAML → canonical rules and findings, with source paths and lines.

We read the YAML ourselves instead of through the official Pydantic model: that model drops
unknown keys silently, and users need to hear about a typo such as `mustBeLesThan`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from packata_sql.contracts.constraints import constraint_rules
from packata_sql.contracts.expectations import SPELLINGS, parse_expectations
from packata_sql.contracts.model import (
    Category,
    Contract,
    Custom,
    Definition,
    Finding,
    Level,
    Library,
    Rule,
    SchemaObject,
    Server,
    Severity,
    Site,
    Sql,
    Target,
    Text,
)
from packata_sql.contracts.odcs_declarations import (
    YamlPath,
    misspelt_constraints,
    nested_constraints,
    schema_drift,
    schema_property,
)
from packata_sql.contracts.odcs_declarations import freeze as _freeze
from packata_sql.contracts.odcs_declarations import text as _text
from packata_sql.contracts.odcs_schema import known_keys
from packata_sql.contracts.yaml_source import Loaded, SourceError, load_yaml_file

Path = YamlPath

# Keys the official schemas do not define but contracts use: snake-case operators (docs/semantics.md
# 2.1), the ODCS 3.0.x habit of `validValues` beside `rule`, and a few earlier spellings.
_EXTRA_KEYS = {
    "top": frozenset({"references"}),
    "quality": frozenset({"validValues", *SPELLINGS}),
    "server": frozenset({"driver", "topic"}),
}
#: The top-level custom property by which a contract accepts its descriptive rules unexecuted.
ACCEPT_UNEXECUTABLE = "packata-sql.acceptUnexecutable"
# ODCS 3.0.x `rule` names and the 3.1+ metric each became.
_RULE_TO_METRIC = {
    "nullCheck": "nullValues",
    "duplicateCount": "duplicateValues",
    "validValues": "invalidValues",
    "rowCount": "rowCount",
    "countCheck": "rowCount",
}
_SEVERITIES = {
    **dict.fromkeys(("info", "low", "minor", "warning", "warn"), Severity.WARNING),
    **dict.fromkeys(("error", "critical", "high", "major", "blocker"), Severity.ERROR),
}


@dataclass(frozen=True)
class _Scope:
    """Where a quality list hangs: its object and, below the object, its property path."""

    object_name: str
    physical_object: str
    index_path: str
    name_path: str
    yaml_path: Path
    property_path: tuple[str, ...] = ()
    physical_property: str | None = None
    logical_type: str | None = None
    nested: bool = False
    exact_object: bool = False
    exact_property: bool = False


@dataclass
class _Reader:
    loaded: Loaded
    path: str
    inclusive_between: bool
    rules: list[Rule] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)

    def line(self, yaml_path: Path) -> int | None:
        return self.loaded.line(yaml_path)

    def warn_unknown(self, node: Mapping[str, Any], kind: str, where: str,
                     yaml_path: Path, reported: Collection[str] = ()) -> None:
        """`kind` is a field of KnownKeys: top, object, property, quality or server; keys in
        `reported` have their own finding (a misspelt constraint key)."""
        known = getattr(known_keys(), kind) | _EXTRA_KEYS.get(kind, frozenset())
        for key in node:
            if key not in known and key not in reported:
                code, message = unknown_key(str(key), known, operator=kind == "quality")
                self.findings.append(Finding(code, message, where, Level.WARNING,
                                             line=self.line((*yaml_path, key))))


def load_odcs(path: str, *, inclusive_between: bool = False,
              loaded: Loaded | None = None) -> Contract:
    """Raises SourceError when the file is not a readable ODCS v3 contract at all. `loaded`:
    the file already parsed (its format detected), so it is not parsed again."""
    if loaded is None:
        loaded = load_yaml_file(path)
    document = loaded.value
    if not isinstance(document, dict):
        raise SourceError(path, "not an ODCS contract: the document is not a mapping", 1)
    api_version = document.get("apiVersion")
    if not isinstance(api_version, str) or not api_version.lstrip("v").startswith("3"):
        raise SourceError(
            path, "not an ODCS v3 contract: 'apiVersion' must be v3.x", loaded.line(("apiVersion",)) or 1
        )
    reader = _Reader(loaded, path, inclusive_between)
    reader.warn_unknown(document, "top", "$", ())
    if document.get("kind", "DataContract") != "DataContract":
        reader.findings.append(Finding(
            "unexpected-kind", "'kind' should be DataContract", "kind", Level.WARNING,
            line=loaded.line(("kind",)),
        ))
    servers = _read_servers(reader, document.get("servers"))
    schema = document.get("schema")
    if schema is not None and not isinstance(schema, list):
        raise SourceError(path, "'schema' must be a list of objects", loaded.line(("schema",)))
    objects = [_read_object(reader, obj, index) for index, obj in enumerate(schema or [])]
    accept = _accepts_unexecutable(reader, document.get("customProperties"))
    drift = schema_drift(reader.findings, reader.line, document.get("customProperties"))
    return Contract(path, tuple(reader.rules), tuple(reader.findings), servers,
                    tuple(o for o in objects if o is not None), accept_unexecutable=accept,
                    schema_drift=drift, id=_metadata(document.get("id")),
                    version=_metadata(document.get("version")))


def unknown_key(key: str, known: frozenset[str], *, operator: bool) -> tuple[str, str]:
    """The finding for a key no ODCS version defines, with the closest known spelling; a
    misspelt `mustBe…` operator is `unknown-operator` (the rule would have no expectation)."""
    from packata_sql.spelling import closest

    match = closest(key, known)
    hint = f"; did you mean '{match}'?" if match else ""
    if operator and key.replace("_", "").lower().startswith("mustbe"):
        return "unknown-operator", f"unknown operator '{key}' is ignored{hint}"
    return "unknown-key", f"unknown key '{key}' is ignored{hint}"


def _metadata(value: object) -> str | None:
    return None if value is None or isinstance(value, dict | list) else str(value)


def _accepts_unexecutable(reader: _Reader, raw: object) -> bool:
    """The contract's own `--accept-unexecutable`, as an ODCS custom property."""
    for index, entry in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(entry, dict) or entry.get("property") != ACCEPT_UNEXECUTABLE:
            continue
        if isinstance(entry.get("value"), bool):
            return bool(entry["value"])
        reader.findings.append(Finding(
            "invalid-custom-property", f"'{ACCEPT_UNEXECUTABLE}' must be true or false; ignored",
            f"customProperties[{index}]", Level.WARNING,
            line=reader.line(("customProperties", index, "value")),
        ))
    return False


def _read_servers(reader: _Reader, raw: object) -> tuple[Server, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        reader.findings.append(Finding("invalid-servers", "'servers' must be a list", "servers",
                                       line=reader.line(("servers",))))
        return ()
    servers = []
    for index, entry in enumerate(raw):
        where = f"servers[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("server"), str):
            reader.findings.append(Finding(
                "invalid-server", "a server needs a mapping with a 'server' name", where,
                line=reader.line(("servers", index)),
            ))
            continue
        reader.warn_unknown(entry, "server", where, ("servers", index))
        settings = tuple((k, v) for k, v in entry.items() if k not in ("server", "type"))
        servers.append(Server(entry["server"], str(entry.get("type", "")), settings))
    return tuple(servers)


def _read_object(reader: _Reader, obj: object, index: int) -> SchemaObject | None:
    yaml_path: Path = ("schema", index)
    where = f"schema[{index}]"
    if not isinstance(obj, dict):
        reader.findings.append(Finding("invalid-object", "a schema entry must be a mapping", where,
                                       line=reader.line(yaml_path)))
        return None
    reader.warn_unknown(obj, "object", where, yaml_path)
    name = _text(obj.get("name"))
    physical = _text(obj.get("physicalName")) or name
    if not name:
        reader.findings.append(Finding("missing-name", "a schema object needs a 'name'", where,
                                       line=reader.line(yaml_path)))
    scope = _Scope(name, physical, where, f"schema[{name or index}]", yaml_path,
                   exact_object=bool(_text(obj.get("physicalName"))))
    _read_quality(reader, obj, scope)
    _read_properties(reader, obj.get("properties"), scope, top_level=True)
    properties = obj.get("properties")
    declared = tuple(
        schema_property(reader.line, p, (*yaml_path, "properties", i), f"{where}.properties[{i}]")
        for i, p in enumerate(properties if isinstance(properties, list) else [])
        if isinstance(p, dict) and _text(p.get("name"))
    )
    schema_object = SchemaObject(name, physical, declared, where, reader.line(yaml_path),
                                 bool(_text(obj.get("physicalName"))))
    if name:
        rules, findings = constraint_rules(schema_object, reader.keys)
        reader.rules.extend(rules)
        reader.findings.extend(findings)
    return schema_object


def _read_properties(reader: _Reader, raw: object, parent: _Scope, *, top_level: bool) -> None:
    if raw is None:
        return
    list_path = (*parent.yaml_path, "properties")
    if not isinstance(raw, list):
        reader.findings.append(Finding("invalid-properties", "'properties' must be a list",
                                       f"{parent.index_path}.properties",
                                       line=reader.line(list_path)))
        return
    for index, prop in enumerate(raw):
        yaml_path = (*list_path, index)
        where = f"{parent.index_path}.properties[{index}]"
        if not isinstance(prop, dict):
            reader.findings.append(Finding("invalid-property", "a property must be a mapping",
                                           where, line=reader.line(yaml_path)))
            continue
        reader.warn_unknown(prop, "property", where, yaml_path,
                            misspelt_constraints(prop) if top_level else ())
        name = _text(prop.get("name"))
        if not name:
            reader.findings.append(Finding("missing-name", "a property needs a 'name'", where,
                                           line=reader.line(yaml_path)))
        scope = _Scope(
            parent.object_name,
            parent.physical_object,
            where,
            f"{parent.name_path}.properties[{name or index}]",
            yaml_path,
            (*parent.property_path, name),
            (_text(prop.get("physicalName")) or name) if top_level else parent.physical_property,
            _text(prop.get("logicalType")) or None,
            nested=not top_level,
            exact_object=parent.exact_object,
            exact_property=bool(_text(prop.get("physicalName"))) if top_level
            else parent.exact_property,
        )
        _read_quality(reader, prop, scope)
        if not top_level:
            nested_constraints(reader.findings, reader.line, prop, where, yaml_path)
        _read_properties(reader, prop.get("properties"), scope, top_level=False)
        _read_items(reader, prop.get("items"), scope)
        _read_map(reader, prop.get("map"), scope)


def _read_map(reader: _Reader, raw: object, parent: _Scope) -> None:
    """ODCS 3.2 `map`: its `key` and `value` are item definitions (nested, not executed)."""
    if raw is None:
        return
    if not isinstance(raw, dict):
        reader.findings.append(Finding("invalid-map", "'map' must be a mapping",
                                       f"{parent.index_path}.map",
                                       line=reader.line((*parent.yaml_path, "map"))))
        return
    for part in ("key", "value"):
        _read_items(reader, raw.get(part), parent, ("map", part))


def _read_items(reader: _Reader, raw: object, parent: _Scope,
                segments: tuple[str, ...] = ("items",)) -> None:
    if raw is None:
        return
    yaml_path = (*parent.yaml_path, *segments)
    where = ".".join((parent.index_path, *segments))
    if not isinstance(raw, dict):
        reader.findings.append(Finding("invalid-items", f"'{segments[-1]}' must be a mapping",
                                       where, line=reader.line(yaml_path)))
        return
    reader.warn_unknown(raw, "property", where, yaml_path)
    scope = _Scope(
        parent.object_name, parent.physical_object, where,
        ".".join((parent.name_path, *segments)), yaml_path,
        (*parent.property_path, *segments), parent.physical_property,
        _text(raw.get("logicalType")) or None, nested=True, exact_object=parent.exact_object,
        exact_property=parent.exact_property,
    )
    _read_quality(reader, raw, scope)
    nested_constraints(reader.findings, reader.line, raw, where, yaml_path)
    _read_properties(reader, raw.get("properties"), scope, top_level=False)
    _read_items(reader, raw.get("items"), scope)
    _read_map(reader, raw.get("map"), scope)


def _read_quality(reader: _Reader, owner: Mapping[str, Any], scope: _Scope) -> None:
    raw = owner.get("quality")
    if raw is None:
        return
    list_path = (*scope.yaml_path, "quality")
    if not isinstance(raw, list):
        reader.findings.append(Finding("invalid-quality", "'quality' must be a list",
                                       f"{scope.index_path}.quality", line=reader.line(list_path)))
        return
    for index, entry in enumerate(raw):
        _read_rule(reader, entry, scope, index, (*list_path, index))


def _read_rule(reader: _Reader, entry: object, scope: _Scope, index: int, yaml_path: Path) -> None:
    source_path = f"{scope.index_path}.quality[{index}]"
    line = reader.line(yaml_path)
    declared = entry if isinstance(entry, dict) else {}
    key = _unique_key(reader, _text(declared.get("id")) or f"{scope.name_path}.quality[{index}]",
                      source_path)
    site = Site(source_path, key, line)
    target = Target(scope.object_name, scope.physical_object, scope.property_path,
                    scope.physical_property, scope.logical_type, scope.nested,
                    scope.exact_object, scope.exact_property)
    if not isinstance(entry, dict):
        reader.findings.append(site.finding("invalid-rule", "a quality rule must be a mapping"))
        reader.rules.append(Rule(key, source_path, Category.QUALITY, target, Text(""), line=line))
        return
    reader.warn_unknown(entry, "quality", source_path, yaml_path)
    definition = _definition(reader, entry, site)
    expectations, problems = parse_expectations(
        entry, site, inclusive_between=reader.inclusive_between
    )
    reader.findings.extend(problems)
    reader.rules.append(Rule(
        key=key,
        source_path=source_path,
        category=Category.QUALITY,
        target=target,
        definition=definition,
        expectations=expectations,
        unit=str(entry.get("unit") or "rows"),
        severity=_severity(reader, entry.get("severity"), site),
        line=line,
        name=_text(entry.get("name")) or None,
    ))


def _definition(reader: _Reader, entry: Mapping[str, Any], site: Site) -> Definition:
    kind = _text(entry.get("type")).lower()
    if not kind:
        kind = "sql" if "query" in entry and "metric" not in entry and "rule" not in entry \
            else "library"
    if kind == "text":
        return Text(_text(entry.get("description")))
    if kind == "sql":
        return Sql(_text(entry.get("query")))
    if kind == "custom":
        return Custom(_text(entry.get("engine")))
    if kind != "library":
        reader.findings.append(site.finding("unknown-rule-type", f"unknown rule type '{kind}'"))
        return Custom(kind)
    return _library(reader, entry, site)


def _library(reader: _Reader, entry: Mapping[str, Any], site: Site) -> Library:
    metric = _text(entry.get("metric"))
    rule = _text(entry.get("rule"))
    from_rule = _RULE_TO_METRIC.get(rule, rule)
    if metric and rule and from_rule != metric:
        reader.findings.append(site.finding(
            "metric-overrides-rule", f"both 'metric' and 'rule' are set; 'metric: {metric}' is used",
            Level.WARNING,
        ))
    arguments: dict[str, object] = {}
    raw_arguments = entry.get("arguments")
    if isinstance(raw_arguments, dict):
        arguments.update(raw_arguments)
    elif raw_arguments is not None:
        reader.findings.append(site.finding("invalid-arguments", "'arguments' must be a mapping"))
    if "validValues" in entry and "validValues" not in arguments:  # ODCS 3.0.x spelling
        arguments["validValues"] = entry["validValues"]
    if not metric and not rule:
        reader.findings.append(site.finding("missing-metric", "a library rule needs a 'metric'"))
    return Library(metric or from_rule, tuple((k, _freeze(v)) for k, v in arguments.items()))


def _severity(reader: _Reader, raw: object, site: Site) -> Severity:
    if raw is None:
        return Severity.ERROR
    found = _SEVERITIES.get(str(raw).strip().lower())
    if found is None:
        reader.findings.append(site.finding(
            "unknown-severity", "unknown severity; treated as error", Level.WARNING
        ))
        return Severity.ERROR
    return found


def _unique_key(reader: _Reader, wanted: str, source_path: str) -> str:
    key = wanted if wanted not in reader.keys else source_path
    if key in reader.keys:
        key = f"{source_path}#{len(reader.keys)}"
    if wanted in reader.keys:
        reader.findings.append(Finding(
            "duplicate-key", f"rule key '{wanted}' is used twice; this rule is keyed '{key}'",
            source_path, Level.WARNING, key,
        ))
    reader.keys.add(key)
    return key

"""ODCS v3 (3.0.x to 3.2) YAML → canonical rules and findings, with source paths and lines.

We read the YAML ourselves instead of through the official Pydantic model: that model drops
unknown keys silently, and users need to hear about a typo such as `mustBeLesThan`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from packata_sql.contracts.constraints import constraint_rules
from packata_sql.contracts.expectations import SPELLINGS, parse_expectations
from packata_sql.contracts.model import (
    EXPRESSIF_ENGINE,
    Category,
    Contract,
    Custom,
    Definition,
    Expressif,
    Finding,
    Level,
    Library,
    Rule,
    SchemaObject,
    SchemaProperty,
    Server,
    Severity,
    Site,
    Sql,
    Target,
    Text,
)
from packata_sql.contracts.odcs_declarations import (
    ALIASES,
    YamlPath,
    alias_finding,
    misspelt_constraints,
    nested_constraints,
    nested_labels,
    schema_drift,
    schema_property,
)
from packata_sql.contracts.odcs_declarations import freeze as _freeze
from packata_sql.contracts.odcs_declarations import text as _text
from packata_sql.contracts.odcs_schema import ODCS_VERSIONS, known_keys
from packata_sql.contracts.odcs_sla import sla_rules
from packata_sql.contracts.yaml_source import Loaded, SourceError, load_yaml_file
from packata_sql.contracts.zones import ZONE_OPTION, custom_zone, valid_zone, zone_findings

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
    #: Physical field names inside `physical_property` (Target.fields); empty at the top
    #: level and anywhere under array items or a map.
    fields: tuple[str, ...] = ()
    #: A nested field's `logicalTypeOptions.defaultTimezone`, as written (Target.zone).
    zone: str | None = None

    @property
    def holds_fields(self) -> bool:
        """Whether properties below this one are fields of its column (not array items)."""
        return not self.nested or bool(self.fields)


@dataclass
class _Reader:
    loaded: Loaded
    path: str
    inclusive_between: bool
    rules: list[Rule] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)
    #: Explicit rule `id`s and the keys of the rules that gave them, in order.
    ids: dict[str, list[str]] = field(default_factory=dict)
    #: Lists under a misspelt `quality`/`properties` key: every rule read from under the path
    #: is skipped with the key's finding.
    misspelt_lists: list[tuple[str, Finding]] = field(default_factory=list)

    def line(self, yaml_path: Path) -> int | None:
        return self.loaded.line(yaml_path)

    def warn_unknown(self, node: Mapping[str, Any], kind: str, where: str,
                     yaml_path: Path, reported: Collection[str] = (),
                     rule_key: str | None = None) -> dict[str, str | None]:
        """`kind` is a field of KnownKeys: top, object, property, quality or server; keys in
        `reported` have their own finding (a misspelt constraint key). An unknown key on a
        rule (`rule_key`) skips that rule; on the document, an object or a property it keeps
        the run from passing; on a server it is a warning (servers carry vendor settings).
        Returns each unknown key with its closest known spelling."""
        known = getattr(known_keys(), kind) | _EXTRA_KEYS.get(kind, frozenset())
        level = Level.WARNING if kind == "server" else Level.ERROR
        unknown: dict[str, str | None] = {}
        for key in node:
            if key in known or key in reported:
                continue
            line = self.line((*yaml_path, key))
            if kind == "property" and key in ALIASES:
                self.findings.append(alias_finding(node, str(key), where, line))
                continue
            spellings = known | frozenset(ALIASES) if kind == "property" else known
            code, message, match = unknown_key(str(key), spellings, operator=kind == "quality",
                                               rule=rule_key is not None)
            unknown[str(key)] = match
            self.findings.append(Finding(code, message, where, level, rule_key, line))
        return unknown

    def read_misspelt(self, unknown: Mapping[str, str | None], where: str,
                      yaml_path: Path) -> list[tuple[str, str]]:
        """The unknown keys spelt close to `quality` or `properties`, with that key: their
        rules are read (so none is dropped silently) and skipped."""
        found = [(key, match) for key, match in unknown.items()
                 if match in ("quality", "properties")]
        for key, match in found:
            self.misspelt_lists.append((f"{where}.{key}", Finding(
                "unknown-key", f"this rule is written under '{key}', which no ODCS version "
                f"defines; did you mean '{match}'? (the rule is not run)", where,
                line=self.line((*yaml_path, key)))))
        return found

    def skip_misspelt(self) -> None:
        """Every rule read from under a misspelt list key is skipped with its finding."""
        for prefix, finding in self.misspelt_lists:
            for rule in self.rules:
                if rule.source_path.startswith(f"{prefix}["):
                    self.findings.append(replace(finding, source_path=rule.source_path,
                                                 rule_key=rule.key, line=rule.line))

    def distinct_ids(self) -> None:
        """Two rules with the same `id`: both are measured, each keyed by its source path,
        and a `duplicate-id` finding keeps the run from passing (docs/semantics.md 1.2)."""
        renamed: dict[str, str] = {}
        for rule_id, keys in self.ids.items():
            if len(keys) < 2:
                continue
            paths = [r.source_path for r in self.rules if r.key in keys]
            renamed[keys[0]] = next(r.source_path for r in self.rules if r.key == keys[0])
            self.findings.append(Finding(
                "duplicate-id", f"rule id '{rule_id}' is given to {len(keys)} rules "
                f"({', '.join(paths)}); each is reported under its source path, and the run "
                "cannot pass until the ids are distinct", paths[0],
                line=next(r.line for r in self.rules if r.key == keys[0])))
        if not renamed:
            return
        self.rules = [replace(r, key=renamed.get(r.key, r.key)) for r in self.rules]
        self.findings = [replace(f, rule_key=renamed.get(f.rule_key, f.rule_key))
                         if f.rule_key is not None else f for f in self.findings]


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
    if api_version.strip().lstrip("v") not in ODCS_VERSIONS:
        from packata_sql.contracts.identity import CATALOG, CATALOG_VERSION

        reader.findings.append(Finding(
            "catalog-version-mismatch", f"apiVersion '{api_version}' is not an ODCS version "
            f"packata-sql reads (v{', v'.join(ODCS_VERSIONS)}); the rules are measured under "
            f"catalog {CATALOG} {CATALOG_VERSION}, and the run cannot pass until apiVersion "
            "names one of them", "apiVersion", line=loaded.line(("apiVersion",))))
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
    sla, sla_findings = sla_rules(document, [o for o in objects if o is not None], reader.keys,
                                  reader.line)
    reader.rules.extend(sla)
    reader.findings.extend(sla_findings)
    reader.skip_misspelt()
    reader.distinct_ids()
    accept = _accepts_unexecutable(reader, document.get("customProperties"))
    drift = schema_drift(reader.findings, reader.line, document.get("customProperties"))
    reader.findings.extend(zone_findings(document, reader.line))
    return Contract(path, tuple(reader.rules), tuple(reader.findings), servers,
                    tuple(o for o in objects if o is not None), accept_unexecutable=accept,
                    schema_drift=drift, id=_metadata(document.get("id")),
                    version=_metadata(document.get("version")),
                    zone=custom_zone(document.get("customProperties"))[0])


def unknown_key(key: str, known: frozenset[str], *, operator: bool,
                rule: bool) -> tuple[str, str, str | None]:
    """The finding for a key no ODCS version defines, with the closest known spelling; a
    misspelt `mustBe…` operator is `unknown-operator` (the rule would have no expectation).
    On a rule (`rule`) the rule is not run; elsewhere the run cannot pass."""
    from packata_sql.spelling import closest

    match = closest(key, known)
    hint = f"; did you mean '{match}'?" if match else ""
    then = "the rule is not run" if rule else "it is not read, and the run cannot pass"
    if not rule and match in ("quality", "properties"):
        then = "every rule under it is skipped, and the run cannot pass"
    if operator and key.replace("_", "").lower().startswith("mustbe"):
        return "unknown-operator", f"unknown operator '{key}'{hint} ({then})", match
    return "unknown-key", f"unknown key '{key}'{hint} ({then})", match


def _option_text(prop: dict[str, Any], option: str) -> str | None:
    """A `logicalTypeOptions` value as text, when written."""
    options = prop.get("logicalTypeOptions")
    value = options.get(option) if isinstance(options, dict) else None
    return None if value is None else str(value)


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
    unknown = reader.warn_unknown(obj, "object", where, yaml_path)
    name = _text(obj.get("name"))
    physical = _text(obj.get("physicalName")) or name
    if not name:
        reader.findings.append(Finding("missing-name", "a schema object needs a 'name'", where,
                                       line=reader.line(yaml_path)))
    scope = _Scope(name, physical, where, f"schema[{name or index}]", yaml_path,
                   exact_object=bool(_text(obj.get("physicalName"))))
    _read_quality(reader, obj, scope)
    _read_properties(reader, obj.get("properties"), scope, top_level=True)
    schema_object = SchemaObject(name, physical, _declared(reader, obj, yaml_path, where, "properties"),
                                 where, reader.line(yaml_path),
                                 bool(_text(obj.get("physicalName"))),
                                 nested_labels(obj.get("properties")),
                                 tuple(str(t) for t in obj.get("tags") or ()
                                       if isinstance(t, (str, int, float))))
    misspelt = reader.read_misspelt(unknown, where, yaml_path)
    if name:
        rules, findings = constraint_rules(schema_object, reader.keys)
        reader.rules.extend(rules)
        reader.findings.extend(findings)
    for key, match in misspelt:  # read as written, every rule skipped (skip_misspelt)
        if match == "quality":
            _read_quality(reader, obj, scope, key)
            continue
        _read_properties(reader, obj.get(key), scope, top_level=True, key=key)
        if name:
            shadow = replace(schema_object, properties=_declared(reader, obj, yaml_path, where, key))
            rules, findings = constraint_rules(shadow, reader.keys)
            reader.rules.extend(rules)
            reader.findings.extend(findings)
    return schema_object


def _declared(reader: _Reader, obj: Mapping[str, Any], yaml_path: Path, where: str,
              key: str) -> tuple[SchemaProperty, ...]:
    """What the object's top-level properties (under `key`) declare about permitted data."""
    properties = obj.get(key)
    return tuple(
        schema_property(reader.line, p, (*yaml_path, key, i), f"{where}.{key}[{i}]")
        for i, p in enumerate(properties if isinstance(properties, list) else [])
        if isinstance(p, dict) and _text(p.get("name"))
    )


def _read_properties(reader: _Reader, raw: object, parent: _Scope, *, top_level: bool,
                     key: str = "properties") -> None:
    """`key`: the list's key as written (a misspelt one is read too, its rules skipped)."""
    if raw is None:
        return
    list_path = (*parent.yaml_path, key)
    if not isinstance(raw, list):
        reader.findings.append(Finding("invalid-properties", f"'{key}' must be a list",
                                       f"{parent.index_path}.{key}",
                                       line=reader.line(list_path)))
        return
    for index, prop in enumerate(raw):
        yaml_path = (*list_path, index)
        where = f"{parent.index_path}.{key}[{index}]"
        if not isinstance(prop, dict):
            reader.findings.append(Finding("invalid-property", "a property must be a mapping",
                                           where, line=reader.line(yaml_path)))
            continue
        # A field of a struct or JSON column reads its constraints as a column does.
        holds_constraints = top_level or parent.holds_fields
        unknown = reader.warn_unknown(prop, "property", where, yaml_path,
                                      misspelt_constraints(prop) if holds_constraints else ())
        name = _text(prop.get("name"))
        if not name:
            reader.findings.append(Finding("missing-name", "a property needs a 'name'", where,
                                           line=reader.line(yaml_path)))
        scope = _Scope(
            parent.object_name,
            parent.physical_object,
            where,
            f"{parent.name_path}.{key}[{name or index}]",
            yaml_path,
            (*parent.property_path, name),
            (_text(prop.get("physicalName")) or name) if top_level else parent.physical_property,
            _text(prop.get("logicalType")) or None,
            nested=not top_level,
            exact_object=parent.exact_object,
            exact_property=bool(_text(prop.get("physicalName"))) if top_level
            else parent.exact_property,
            fields=(*parent.fields, _text(prop.get("physicalName")) or name)
            if not top_level and holds_constraints and name else (),
            zone=_option_text(prop, ZONE_OPTION) if not top_level else None,
        )
        _read_quality(reader, prop, scope)
        if scope.fields:
            _nested_constraint_rules(reader, prop, scope)
        elif not top_level:
            nested_constraints(reader.findings, reader.line, prop, where, yaml_path)
        _read_properties(reader, prop.get("properties"), scope, top_level=False)
        _read_items(reader, prop.get("items"), scope)
        _read_map(reader, prop.get("map"), scope)
        for misspelt, match in reader.read_misspelt(unknown, where, yaml_path):
            if match == "quality":
                _read_quality(reader, prop, scope, misspelt)
            else:
                _read_properties(reader, prop.get(misspelt), scope, top_level=False,
                                 key=misspelt)


def _nested_constraint_rules(reader: _Reader, prop: Mapping[str, Any], scope: _Scope) -> None:
    """What a field of a struct or JSON column declares becomes rules as a column's would,
    keyed by its logical path: its presence and types too, answered from a struct's catalog
    type or counted in JSON documents (docs/formats.md)."""
    declared = schema_property(reader.line, prop, scope.yaml_path, scope.index_path)
    if declared.primary_key:
        reader.findings.append(Finding(
            "nested-property-not-supported", "primaryKey on a nested field is not checked: "
            "a key is made of columns", scope.index_path, Level.WARNING,
            line=reader.line((*scope.yaml_path, "primaryKey"))))
    field_property = replace(declared, physical=scope.physical_property or "",
                             exact=scope.exact_property, primary_key=False,
                             names=scope.property_path, fields=scope.fields)
    if not scope.object_name or not scope.physical_property:
        return
    shadow = SchemaObject(scope.object_name, scope.physical_object, (field_property,),
                          exact=scope.exact_object)
    rules, findings = constraint_rules(shadow, reader.keys)
    reader.rules.extend(rules)
    reader.findings.extend(findings)


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


def _read_quality(reader: _Reader, owner: Mapping[str, Any], scope: _Scope,
                  key: str = "quality") -> None:
    """`key`: the list's key as written (a misspelt one is read too, its rules skipped)."""
    raw = owner.get(key)
    if raw is None:
        return
    list_path = (*scope.yaml_path, key)
    if not isinstance(raw, list):
        reader.findings.append(Finding("invalid-quality", f"'{key}' must be a list",
                                       f"{scope.index_path}.{key}", line=reader.line(list_path)))
        return
    for index, entry in enumerate(raw):
        _read_rule(reader, entry, scope, index, (*list_path, index), key)


def _read_rule(reader: _Reader, entry: object, scope: _Scope, index: int, yaml_path: Path,
               list_key: str = "quality") -> None:
    source_path = f"{scope.index_path}.{list_key}[{index}]"
    line = reader.line(yaml_path)
    declared = entry if isinstance(entry, dict) else {}
    rule_id = _text(declared.get("id"))
    key = _unique_key(reader, rule_id or f"{scope.name_path}.{list_key}[{index}]", source_path,
                      explicit=bool(rule_id))
    site = Site(source_path, key, line)
    target = Target(scope.object_name, scope.physical_object, scope.property_path,
                    scope.physical_property, scope.logical_type, scope.nested,
                    scope.exact_object, scope.exact_property, scope.fields,
                    scope.zone if valid_zone(scope.zone) else None)
    if not isinstance(entry, dict):
        reader.findings.append(site.finding("invalid-rule", "a quality rule must be a mapping"))
        reader.rules.append(Rule(key, source_path, Category.QUALITY, target, Text(""), line=line))
        return
    reader.warn_unknown(entry, "quality", source_path, yaml_path, rule_key=key)
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
        # A SQL rule measures what its query says: no unit unless it declares one.
        unit=str(entry.get("unit") or ("" if isinstance(definition, Sql) else "rows")),
        severity=_severity(reader, entry.get("severity"), site),
        line=line,
        name=_text(entry.get("name")) or None,
        description=_text(entry.get("description")) or None,
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
        engine = _text(entry.get("engine"))
        if engine.lower() == EXPRESSIF_ENGINE:
            return _expressif(reader, entry, site)
        return Custom(engine)
    if kind != "library":
        reader.findings.append(site.finding("unknown-rule-type", f"unknown rule type '{kind}'"))
        return Custom(kind)
    return _library(reader, entry, site)


def _expressif(reader: _Reader, entry: Mapping[str, Any], site: Site) -> Expressif:
    """The payload is kept as written for the compiler to read; only its container is checked
    here (ODCS: a string or an object), so a rule with none still appears, skipped."""
    raw = entry.get("implementation")
    implementation: str | tuple[tuple[str, object], ...] = ""
    if isinstance(raw, str):
        implementation = raw
    elif isinstance(raw, dict):
        implementation = tuple((str(k), _freeze(v)) for k, v in raw.items())
    else:
        reader.findings.append(site.finding(
            "invalid-implementation",
            "an expressif rule needs an 'implementation': a JSON string such as "
            '\'{"version":"1","kind":"predicate","scope":"value","program":"positive"}\' '
            "or the same as a mapping"))
    arguments = entry.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        reader.findings.append(site.finding("invalid-arguments", "'arguments' must be a mapping"))
    pairs = arguments.items() if isinstance(arguments, dict) else ()
    return Expressif(implementation, tuple((str(k), _freeze(v)) for k, v in pairs))


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


def _unique_key(reader: _Reader, wanted: str, source_path: str, *, explicit: bool) -> str:
    """`explicit`: `wanted` is the rule's own `id` (a second use is `duplicate-id`, reported
    once every rule is read); else the key made from the rule's path."""
    key = wanted if wanted not in reader.keys else source_path
    if key in reader.keys:
        key = f"{source_path}#{len(reader.keys)}"
    if explicit:
        reader.ids.setdefault(wanted, []).append(key)
    elif wanted in reader.keys:
        reader.findings.append(Finding(
            "duplicate-key", f"rule key '{wanted}' is used twice; this rule is keyed '{key}'",
            source_path, Level.WARNING, key,
        ))
    reader.keys.add(key)
    return key

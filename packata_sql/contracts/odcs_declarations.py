"""What an ODCS property declares about permitted data (required, unique, primary key,
types, logicalTypeOptions) and whether the contract turns schema drift on: read into the
format-neutral model, with findings for what cannot be read."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from packata_sql.contracts.model import Finding, Level, SchemaProperty

YamlPath = tuple[str | int, ...]
Lines = Callable[[YamlPath], int | None]


#: Property keys that declare a constraint: a key spelt close to one is a finding that skips a
#: rule (the constraint would otherwise go unchecked and the run could pass).
CONSTRAINT_KEYS = frozenset({"required", "unique", "primaryKey", "primaryKeyPosition",
                             "logicalType", "logicalTypeOptions", "physicalType", "enum"})
#: logicalTypeOptions keys packata-sql reads beyond the official schemas (docs/formats.md).
_EXTRA_OPTIONS = frozenset({"validValues", "enum"})
#: Property keys of other versions and tools that public contracts use, each with the ODCS 3
#: key it means and whether its boolean reads inverted (`isNullable: false` is
#: `required: true`). Read as that key, with an info finding.
ALIASES = {"isUnique": ("unique", False), "isPrimaryKey": ("primaryKey", False),
           "isNullable": ("required", True)}


def alias_finding(prop: Mapping[str, Any], key: str, where: str, line: int | None) -> Finding:
    """The info finding for a key of ALIASES: which ODCS 3 key it is read as (or why not)."""
    odcs, inverted = ALIASES[key]
    value = prop.get(key)
    if prop.get(odcs) is not None:
        return Finding("other-spelling", f"'{key}' is another spelling of ODCS 3 '{odcs}', "
                       f"which is also given; '{odcs}' is used", f"{where}.{key}",
                       Level.WARNING, line=line)
    read = f"{odcs}: {str(not value if inverted else value).lower()}" \
        if isinstance(value, bool) else odcs
    return Finding("other-spelling", f"'{key}: {str(value).lower()}' is read as ODCS 3 "
                   f"'{read}'", f"{where}.{key}", Level.INFO, line=line)


def _flag(prop: Mapping[str, Any], key: str) -> tuple[object, str]:
    """The value of a boolean constraint key, or of its other spelling when only that is
    given; and the key it was written as."""
    value = prop.get(key)
    if value is not None:
        return value, key
    for alias, (odcs, inverted) in ALIASES.items():
        if odcs == key and prop.get(alias) is not None:
            given = prop[alias]
            return (not given if inverted and isinstance(given, bool) else given), alias
    return None, key


def schema_property(line: Lines, prop: Mapping[str, Any], yaml_path: YamlPath,
                    where: str) -> SchemaProperty:
    """What a top-level property declares about permitted data. A declaration that cannot be
    read as written (a value of the wrong type, a misspelt constraint or option key) is kept
    as a problem: it becomes a skipped rule carrying the finding, so the run cannot pass."""
    problems: list[tuple[str, Finding]] = []

    def problem(declaration: str, code: str, message: str, *at: str | int) -> None:
        problems.append((declaration, Finding(code, message, f"{where}.{declaration}",
                                              line=line((*yaml_path, *at)))))

    name = text(prop.get("name"))
    flags = {}
    for key in ("required", "unique", "primaryKey"):
        value, written = _flag(prop, key)
        flags[key] = value is True
        if value is not None and not isinstance(value, bool):
            problem(key, "invalid-constraint", f"'{written}' must be true or false; it is not "
                    "checked", written)
    position = prop.get("primaryKeyPosition")
    if position is not None and (isinstance(position, bool) or not isinstance(position, int)):
        problem("primaryKeyPosition", "invalid-constraint", "'primaryKeyPosition' must be an "
                "integer (1 for the key's first column)", "primaryKeyPosition")
        position = None
    types = {}
    for key in ("logicalType", "physicalType"):
        value = prop.get(key)
        types[key] = text(value) or None
        if value is not None and not isinstance(value, str):
            problem(key, "invalid-constraint", f"'{key}' must be text; it is not checked", key)
    options = prop.get("logicalTypeOptions")
    if options is not None and not isinstance(options, dict):
        problem("logicalTypeOptions", "invalid-constraint", "'logicalTypeOptions' must be a "
                "mapping (e.g. {maxLength: 20}); none of it is checked", "logicalTypeOptions")
        options = None
    misspelt = misspelt_options(options or {})
    for key, match in misspelt.items():
        problem(f"logicalTypeOptions.{key}", "unknown-option", f"'{key}' is not a "
                f"logicalTypeOptions key; did you mean '{match}'?", "logicalTypeOptions", key)
    for key, match in misspelt_constraints(prop).items():
        problem(key, "unknown-constraint-key", f"unknown key '{key}'; did you mean '{match}'? "
                "(the constraint is not checked)", key)
    enum, readable = _enum(prop.get("enum"))
    if not readable:
        problem("enum", "invalid-constraint", "'enum' must be a list of entries with a "
                "'value'; not checked", "enum")
    return SchemaProperty(
        name, text(prop.get("physicalName")) or name, types["logicalType"],
        types["physicalType"], flags["required"], flags["unique"],
        flags["primaryKey"], position if isinstance(position, int) and position > 0 else None,
        tuple((str(k), freeze(v)) for k, v in (options or {}).items() if k not in misspelt),
        where, line(yaml_path), bool(text(prop.get("physicalName"))),
        enum,
        _declaration_lines(line, prop, options or {}, yaml_path),
        tuple(problems),
        classification=classification(prop.get("classification")),
        tags=tags(prop.get("tags")),
    )


def classification(value: object) -> str | None:
    """A property's `classification` as `--samples` reads it: mistyped (`[pii]`, which lint
    reports) it is its text, so a classified value is never shown because of its spelling."""
    if value is None:
        return None
    return (value.strip() if isinstance(value, str) else str(value)) or None


def tags(value: object) -> tuple[str, ...]:
    """A property's `tags` as text, read as loosely (`tags: pii`, `[1, pii]`)."""
    values = value if isinstance(value, list) else [] if value is None else [value]
    return tuple(str(t) for t in values if t is not None)


def _declaration_lines(line: Lines, prop: Mapping[str, Any], options: Mapping[str, Any],
                       yaml_path: YamlPath) -> tuple[tuple[str, int | None], ...]:
    """Where each key is written, so a rule and its findings point at that line."""
    found = [(str(key), line((*yaml_path, key))) for key in prop]
    found += [(odcs, line((*yaml_path, alias))) for alias, (odcs, _) in ALIASES.items()
              if alias in prop and odcs not in prop]
    found += [(f"logicalTypeOptions.{key}", line((*yaml_path, "logicalTypeOptions", key)))
              for key in options]
    return tuple(found)


def misspelt_constraints(prop: Mapping[str, Any]) -> dict[str, str]:
    """Keys no ODCS version defines whose closest known key declares a constraint
    (`requird` → `required`, `isUniqe` → `isUnique`), each with that key."""
    from packata_sql.contracts.odcs_schema import known_keys

    known = known_keys().property | frozenset(ALIASES)
    return {key: match for key, match in _closest(prop, known).items()
            if match in CONSTRAINT_KEYS or match in ALIASES}


def misspelt_options(options: Mapping[str, Any]) -> dict[str, str]:
    """logicalTypeOptions keys no ODCS version defines that are spelt close to one that does
    (`maxLenght` → `maxLength`); other unknown keys stay options packata-sql cannot check."""
    from packata_sql.contracts.odcs_schema import known_keys

    return _closest(options, known_keys().options | _EXTRA_OPTIONS)


def _closest(node: Mapping[str, Any], known: frozenset[str]) -> dict[str, str]:
    """Each unknown key of `node` with the known key it is spelt close to, if any."""
    unknown = [str(key) for key in node if str(key) not in known]
    if not unknown:
        return {}  # the common case: no name matching (and its imports) at all
    from packata_sql.spelling import closest

    found = {key: closest(key, known) for key in unknown}
    return {key: match for key, match in found.items() if match is not None}


def _enum(raw: object) -> tuple[tuple[object, ...] | None, bool]:
    """ODCS 3.2 `enum: [{value: …, label: …}, …]` (a bare value is read as its `value`), and
    whether it could be read so."""
    if raw is None:
        return None, True
    entries = raw if isinstance(raw, list) else None
    if entries is None or any(isinstance(e, dict) and "value" not in e for e in entries):
        return None, False
    return tuple(freeze(e.get("value") if isinstance(e, dict) else e) for e in entries), True


_CONSTRAINT_KEYS = ("required", "unique", "primaryKey", "logicalTypeOptions", "enum")


def nested_constraints(findings: list[Finding], line: Lines, prop: Mapping[str, Any],
                       where: str, yaml_path: YamlPath) -> None:
    """Properties under array items or a map are no columns: what they declare is reported,
    not dropped."""
    declared = [key for key in _CONSTRAINT_KEYS if prop.get(key) not in (None, False, {})]
    for alias, (_, inverted) in ALIASES.items():  # another tool's spelling (isUnique, …)
        value = prop.get(alias)
        if (not value if inverted and isinstance(value, bool) else value) not in (None, False):
            declared.append(alias)
    if declared:
        findings.append(Finding(
            "nested-constraint-not-checked",
            f"{', '.join(declared)} under array items or map entries is not checked: arrays "
            "are never flattened implicitly", where,
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
    from packata_sql.contracts.drift import OverrideError, parse_overrides

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


def nested_labels(properties: object) -> tuple[SchemaProperty, ...]:
    """Each property below the top level (`properties`, `items`, a `map`'s `key` and `value`,
    paths as the rule keys spell them) with its `classification` and `tags`; `properties` is
    an object's property list, read as loosely as the rules read it."""
    found: list[SchemaProperty] = []

    def labelled(prop: Mapping[str, Any], names: tuple[str, ...]) -> None:
        if len(names) > 1:  # below the top level
            found.append(SchemaProperty(
                names[-1], names[-1], names=names,
                classification=classification(prop.get("classification")),
                tags=tags(prop.get("tags"))))
        children = prop.get("properties")
        for child in children if isinstance(children, list) else ():
            if isinstance(child, dict) and text(child.get("name")):
                labelled(child, (*names, text(child.get("name"))))
        if isinstance(prop.get("items"), dict):
            labelled(prop["items"], (*names, "items"))
        shape = prop.get("map")
        for part in ("key", "value"):
            if isinstance(shape, dict) and isinstance(shape.get(part), dict):
                labelled(shape[part], (*names, "map", part))

    labelled({"properties": properties}, ())
    return tuple(found)


def freeze(value: object) -> object:
    """Lists become tuples so that rules stay hashable."""
    if isinstance(value, list):
        return tuple(freeze(item) for item in value)
    if isinstance(value, dict):
        return tuple((k, freeze(v)) for k, v in value.items())
    return value

"""What the JSON policy and pipeline loaders share: usage errors that name the rule and key
(never the rejected value), strict severities, field lists, the target object and the schema
the rules imply. Both formats gate a run, so a malformed declaration stops loading."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from packata_sql.contracts.model import SchemaObject, SchemaProperty, Severity
from packata_sql.contracts.yaml_source import SourceError

#: Keys that name the target object in a policy or pipeline file.
OBJECT_KEYS = ("object", "table")
Lines = Callable[[tuple[str | int, ...]], int | None]


@dataclass
class RuleSite:
    """One rule of a file: where it is, for errors that name it (`rules[2] (id 'x')`)."""

    path: str
    yaml_path: tuple[str | int, ...]
    label: str
    lines: Lines

    def error(self, key: str | None, problem: str) -> SourceError:
        where = f"{self.label}: '{key}'" if key else self.label
        line = self.lines((*self.yaml_path, key)) if key else None
        return SourceError(self.path, f"{where} {problem}", line or self.lines(self.yaml_path))


def rule_identity(entry: object, site: RuleSite, key: str, seen: dict[str, str]) -> str:
    """A rule's identity (a policy rule's `id`, a pipeline rule's `name`): required and unique.
    From here on the site's label names it too: `rules[2] (id 'x')`."""
    if not isinstance(entry, dict):
        raise site.error(None, f"must be an object with '{key}'")
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise site.error(key, "is required: a stable, unique, non-empty text")
    first, site.label = site.label, f"{site.label} ({key} '{value}')"
    if value in seen:
        raise site.error(key, f"is also the {key} of {seen[value]}; each must be unique")
    seen[value] = first
    return value


def severity(entry: Mapping[str, object], site: RuleSite) -> Severity:
    raw = entry.get("severity", "error")
    if raw not in ("error", "warning"):
        raise site.error("severity", "must be 'error' (blocks) or 'warning' (review)")
    return Severity(raw)


def field_list(entry: Mapping[str, object], site: RuleSite, one: str, many: str) -> tuple[str, ...]:
    """`one: name` or `many: [names]` (exactly one of them), non-empty names, no repeats."""
    if (entry.get(one) is None) == (entry.get(many) is None):
        raise site.error(None, f"needs '{one}' (one name) or '{many}' (a list), not both")
    if entry.get(one) is not None:
        names: object = [entry[one]]
        key = one
    else:
        names, key = entry[many], many
    if not isinstance(names, list) or not names or not all(
        isinstance(n, str) and n.strip() for n in names
    ):
        raise site.error(key, "must name columns: non-empty text (a non-empty list for "
                              f"'{many}')")
    if len(set(names)) != len(names):
        raise site.error(key, "names a column twice")
    return tuple(names)


def boolean(entry: Mapping[str, object], site: RuleSite, key: str, default: bool) -> bool:
    value = entry.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise site.error(key, "must be true or false")
    return value


def target_object(document: Mapping[str, object], path: str, requested: str | None,
                  lines: Lines, prefix: tuple[str | int, ...] = ()) -> str:
    """The object named in the file, else `--object`; a usage error when neither says."""
    declared = [(k, document[k]) for k in OBJECT_KEYS if document.get(k) is not None]
    if len(declared) > 1:
        raise SourceError(path, "name the object once, with 'object' or 'table'",
                          lines((*prefix, declared[1][0])))
    if declared:
        key, value = declared[0]
        if not isinstance(value, str) or not value.strip():
            raise SourceError(path, f"'{key}' must be the object's name", lines((*prefix, key)))
        if requested is not None and requested != value:
            raise SourceError(path, f"the file names its object in '{key}'; --object names "
                                    "another one (drop --object, or change the file)",
                              lines((*prefix, key)))
        return value
    if requested is None:
        raise SourceError(path, "which object do these rules check? Name it in the file "
                                "('object': NAME) or pass --object NAME")
    return requested


@dataclass
class ImpliedSchema:
    """The columns the rules name, in first-mention order, with any declared type."""

    name: str
    columns: dict[str, SchemaProperty] = field(default_factory=dict)

    def add(self, names: Sequence[str], logical_type: str | None = None,
            required: bool = False) -> None:
        for name in names:
            known = self.columns.get(name)
            self.columns[name] = SchemaProperty(
                name, name, logical_type or (known.logical_type if known else None),
                required=required or (known.required if known else False),
                source_path=f"fields[{name}]",
            )

    def logical_type(self, name: str) -> str | None:
        known = self.columns.get(name)
        return known.logical_type if known else None

    def object(self) -> SchemaObject:
        return SchemaObject(self.name, self.name, tuple(self.columns.values()), self.name)

"""The contract against the official ODCS JSON Schema of its apiVersion (bundled), each break
with its JSON path and line: what `lint` lists and `check` summarises in one line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from packata_sql.contracts.odcs_schema import SCHEMA_VERSIONS, official_schema
from packata_sql.contracts.yaml_source import Loaded

if TYPE_CHECKING:
    import jsonschema_rs


@dataclass(frozen=True)
class Problem:
    """One thing `lint` reports: a schema break or a loader/compiler finding."""

    level: str  # "error" or "warning"
    code: str
    where: str  # the rule path or JSON path
    line: int | None
    message: str


def schema_version(api_version: object) -> str:
    """The bundled schema closest to the contract's apiVersion (v3.0.x → 3.0.2, …)."""
    text = str(api_version or "").lstrip("v")
    for version in SCHEMA_VERSIONS:
        if text.split(".")[:2] == version.split(".")[:2]:
            return version
    return SCHEMA_VERSIONS[-1]


def schema_problems(loaded: Loaded) -> list[Problem]:
    """Every place the document breaks the official schema of its version, each once.
    jsonschema-rs (a compiled validator) imports and validates in milliseconds, where the
    pure-Python jsonschema cost `check` about 0.1 s of start-up; both find the same places."""
    import jsonschema_rs

    document: Any = loaded.value
    version = schema_version(document.get("apiVersion") if isinstance(document, dict) else None)
    validator = jsonschema_rs.validator_for(official_schema(version), validate_formats=False)
    problems = []
    errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.instance_path)))
    # A misspelt server `type` selects no server kind, so every setting of that server is also
    # "unevaluated": the type is the one problem to show.
    mistyped = {tuple(e.instance_path)[:-1] for e in errors if _is_enum(e)
                and tuple(e.instance_path)[-1:] == ("type",)}
    for error in errors:
        path = tuple(error.instance_path)
        if _expressif_keys(error) or (path in mistyped and isinstance(
                error.kind, jsonschema_rs.ValidationErrorKind.UnevaluatedProperties)):
            continue
        line = _line(loaded, path)
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
        message = _message(error)  # an enum's list is never cut: the fix may be its last
        problems.append(Problem("error", "odcs-schema", where, line, f"ODCS {version} schema: "
                                f"{message if _is_enum(error) else _short(message)}"))
    return distinct(problems)


def _is_enum(error: jsonschema_rs.ValidationError) -> bool:
    import jsonschema_rs

    return isinstance(error.kind, jsonschema_rs.ValidationErrorKind.Enum)


#: Keys an Expressif rule takes beyond ODCS's `custom` shape: its expectations (which take
#: precedence over its default) and its typed arguments (docs/formats.md, Expressif rules).
_EXPRESSIF_KEYS = frozenset({"arguments", "mustBe", "mustNotBe", "mustBeGreaterThan",
                             "mustBeGreaterOrEqualTo", "mustBeLessThan", "mustBeLessOrEqualTo",
                             "mustBeBetween", "mustNotBeBetween"})


def _expressif_keys(error: jsonschema_rs.ValidationError) -> bool:
    """The schema's only objection is that an `engine: expressif` rule has expectations or
    arguments, which packata-sql defines for it."""
    import jsonschema_rs

    kind = error.kind
    instance = error.instance
    return (isinstance(kind, jsonschema_rs.ValidationErrorKind.UnevaluatedProperties)
            and isinstance(instance, dict) and instance.get("type") == "custom"
            and str(instance.get("engine", "")).lower() == "expressif"
            and bool(kind.unexpected) and set(kind.unexpected) <= _EXPRESSIF_KEYS)


def distinct(problems: list[Problem]) -> list[Problem]:
    """Each problem once: the JSON Schema validator reports one bad node once per schema branch
    that reaches it (ODCS's `allOf` of `if`/`then` per logicalType)."""
    return list(dict.fromkeys(problems))


def _message(error: jsonschema_rs.ValidationError) -> str:
    """The validator's message; a value outside an enum lists every permitted value and the
    closest one (jsonschema-rs names only the first two)."""
    import jsonschema_rs

    if not isinstance(error.kind, jsonschema_rs.ValidationErrorKind.Enum):
        return str(error.message)
    from packata_sql.spelling import closest

    permitted = [str(o) for o in error.kind.options]
    match = closest(str(error.instance), permitted) if isinstance(error.instance, str) else None
    hint = f"; did you mean '{match}'?" if match else ""
    return f"{error.instance!r} is not one of {', '.join(permitted)}{hint}"


def _line(loaded: Loaded, path: tuple[str | int, ...]) -> int | None:
    """The line of the node, or of its nearest ancestor that has one."""
    while True:
        line = loaded.line(path)
        if line is not None or not path:
            return line
        path = path[:-1]


def _short(message: str) -> str:
    return message if len(message) <= 200 else message[:197] + "…"

"""`check --dbt-project DIR` (`CheckRequest.dbt_project`): the models dbt built in its last
invocation, read from the artifacts as plain JSON (no dbt import) and mapped to contract objects,
each object to the relation its rules read. Rules of models that did not build are skipped,
never run on stale tables."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packata_sql.contracts import json_source
from packata_sql.contracts.model import Contract, Finding, Level, Relation
from packata_sql.errors import UsageError

OLDEST_MANIFEST = 9  # dbt 1.5; older artifacts lack fields read here
_VERSION = re.compile(r"/manifest/v(\d+)\.json$")
_NOT_BUILT = "the dbt model of this object did not build successfully in the last dbt run"
_NOT_RUN = "the dbt model of this object was not part of the last dbt run"
_META_ADVICE = ("write it in the model's config as meta: {packata_sql: {object: NAME}}, NAME "
                "being the contract's object, and run dbt again")


@dataclass(frozen=True)
class Model:
    unique_id: str
    name: str
    alias: str
    schema: str
    meta_object: str | None
    status: str | None  # the status in run_results.json; None when not in that invocation


def _read(path: Path, what: str) -> dict[str, Any]:
    try:
        # Artifacts are large: only a nesting the parser itself cannot take is refused.
        document = json_source.loads(path.read_text(encoding="utf-8"), max_depth=None)
    except FileNotFoundError:
        raise UsageError(f"{path} not found: run dbt in the project first ({what})") from None
    except json_source.TooDeep as deep:
        raise UsageError(f"{path}: {deep}" + (f" (line {deep.line})" if deep.line else "")
                         + f"; it is not a dbt {what}") from None
    except (OSError, ValueError) as error:
        raise UsageError(f"{path} is not readable JSON ({type(error).__name__})") from None
    if not isinstance(document, dict):
        raise UsageError(f"{path} is not a dbt {what}")
    return document


def _member(document: dict[str, Any], key: str, kind: type, path: Path, where: str,
            advice: str = "rebuild it with dbt") -> Any:
    """`document[key]` when it is absent (None) or of `kind`; else a UsageError naming it."""
    value = document.get(key)
    if value is not None and not isinstance(value, kind):
        noun = "an object" if kind is dict else "a list" if kind is list else "text"
        raise UsageError(f"{path}: {where}{key} must be {noun}; {advice}")
    return value


def load_models(project_dir: str) -> list[Model]:
    target = Path(project_dir) / "target"
    path = target / "manifest.json"
    manifest = _read(path, "manifest")
    metadata = _member(manifest, "metadata", dict, path, "") or {}
    version = _VERSION.search(str(metadata.get("dbt_schema_version", "")))
    if version is None or int(version.group(1)) < OLDEST_MANIFEST:
        raise UsageError(f"{target / 'manifest.json'} is older than manifest v{OLDEST_MANIFEST} "
                         "(dbt 1.5); rebuild it with a newer dbt")
    results = target / "run_results.json"
    statuses = _statuses(results, _read(results, "run results")) if results.exists() else {}
    models = []
    for unique_id, node in (_member(manifest, "nodes", dict, path, "") or {}).items():
        if not isinstance(node, dict) or node.get("resource_type") != "model":
            continue
        where = f"nodes.{unique_id}."
        config = _member(node, "config", dict, path, where) or {}
        meta = _member(config, "meta", dict, path, where + "config.")
        if meta:
            where += "config."
        else:
            meta = _member(node, "meta", dict, path, where) or {}
        chosen = _member(meta, "packata_sql", dict, path, where + "meta.", _META_ADVICE) or {}
        named = _member(chosen, "object", str, path, where + "meta.packata_sql.", _META_ADVICE)
        models.append(Model(
            unique_id, str(node.get("name")), str(node.get("alias") or node.get("name")),
            str(node.get("schema")), named, statuses.get(unique_id),
        ))
    return models


def _statuses(path: Path, document: dict[str, Any]) -> dict[str, str | None]:
    """Each node's status in run_results.json, by unique_id."""
    entries = _member(document, "results", list, path, "") or []
    if not all(isinstance(entry, dict) for entry in entries):
        raise UsageError(f"{path}: results must be a list of objects; rebuild it with dbt")
    return {str(entry.get("unique_id")): None if entry.get("status") is None
            else str(entry.get("status")) for entry in entries}


def match(object_name: str, physical: str, models: Sequence[Model]) -> list[Model]:
    """meta.packata_sql.object, then alias == physicalName, then name == object name."""
    for found in ([m for m in models if m.meta_object == object_name],
                  [m for m in models if m.alias == physical],
                  [m for m in models if m.name == object_name]):
        if found:
            return found
    return []


def relations(contract: Contract, project_dir: str,
              schema: Sequence[str] = ()) -> Mapping[str, Relation]:
    """Each contract object with rules → the relation of its dbt model (in `schema` when the
    endpoint names one, else the model's), or why its rules cannot run: no model or several
    match (a warning on the contract), or the model did not build or run in the last dbt
    invocation (each rule skipped)."""
    models = load_models(project_dir)
    mapped: dict[str, Relation] = {}
    for name, physical in contract.checked_objects().items():  # a pipeline's too
        found = match(name, physical, models)
        if len(found) != 1:
            mapped[name] = Relation(refusal=Finding(
                "dbt-model-not-found" if not found else "dbt-model-ambiguous",
                f"object '{name}' matches {len(found)} dbt models; set "
                "config.meta.packata_sql.object on one", contract.path, Level.WARNING),
                for_object=True)
            continue
        model = found[0]
        if model.status != "success":
            code, message = ("dbt-not-run", _NOT_RUN) if model.status is None \
                else ("dbt-model-not-built", _NOT_BUILT)
            mapped[name] = Relation(refusal=Finding(code, message, contract.path))
            continue
        mapped[name] = Relation((*(schema or (model.schema,)), model.alias))
    return mapped

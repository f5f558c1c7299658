"""`check --dbt-project DIR`: the models dbt built in its last invocation, from the artifacts
as plain JSON (no dbt import), mapped to contract objects and checked through packata-sql's own
read-only session. Rules of models that did not build are skipped, never run on stale tables."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packata_sql.contracts import json_source
from packata_sql.contracts.model import Category, Contract, Finding, Level, Rule
from packata_sql.dialects import Dialect
from packata_sql.errors import UsageError
from packata_sql.plans.compiler import Compiled, compile_contract
from packata_sql.sessions.endpoint import Endpoint

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


def dbt_compiler(project_dir: str, endpoint: Endpoint) -> Callable[..., Compiled]:
    """A drop-in for compile_contract that compiles only the objects dbt built, on their models."""
    models = load_models(project_dir)

    def compile_built(contract: Contract, dialect: Dialect, *, prefix: Sequence[str] = (),
                      select: Iterable[str] | None = None,
                      parameters: Iterable[str] | None = None,
                      categories: Iterable[Category] | None = None) -> Compiled:
        wanted = set(select) if select is not None else None
        kinds = set(categories) if categories is not None else None
        rules = [r for r in contract.rules if (wanted is None or r.key in wanted)
                 and (kinds is None or r.category in kinds)]
        blocked: dict[str, Finding] = {}
        findings: list[Finding] = []
        parts: list[Compiled] = []
        for name, physical in contract.checked_objects().items():  # a pipeline's too
            mine = [r for r in rules if r.target.object_name == name]
            if not mine:
                continue
            found = match(name, physical, models)
            if len(found) != 1:
                problem = Finding(
                    "dbt-model-not-found" if not found else "dbt-model-ambiguous",
                    f"object '{name}' matches {len(found)} dbt models; set "
                    "config.meta.packata_sql.object on one", contract.path, Level.WARNING)
                findings.append(problem)
                blocked.update({r.key: problem for r in mine})
                continue
            model = found[0]
            if model.status != "success":
                code, message = ("dbt-not-run", _NOT_RUN) if model.status is None \
                    else ("dbt-model-not-built", _NOT_BUILT)
                blocked.update({r.key: Finding(code, message, r.source_path, rule_key=r.key)
                                for r in mine})
                continue
            renamed = tuple(_on_model(r, model.alias) for r in mine)
            parts.append(compile_contract(
                dataclasses.replace(contract, rules=renamed), dialect,
                prefix=endpoint.schema or (model.schema,), parameters=parameters))
        unattached = tuple(r for r in rules if not r.target.object_name)
        if unattached:  # e.g. an SLA no query observes: listed as in any check
            parts.append(compile_contract(dataclasses.replace(contract, rules=unattached),
                                          dialect, prefix=endpoint.schema or (),
                                          parameters=parameters))
        return _merge(parts, blocked, findings, contract)

    return compile_built


def _on_model(rule: Rule, alias: str) -> Rule:
    return dataclasses.replace(rule, target=dataclasses.replace(rule.target, physical_object=alias))


def _merge(parts: list[Compiled], blocked: dict[str, Finding], findings: list[Finding],
           contract: Contract) -> Compiled:
    merged_findings = list(dict.fromkeys(f for part in parts for f in part.findings))
    if not parts:  # the contract's own findings still show when nothing was built
        merged_findings = [f for f in contract.findings if f.rule_key is None]
    for part in parts:
        blocked = {**part.blocked, **blocked}
    return Compiled(
        tuple(p for part in parts for p in part.ordered),
        blocked,
        tuple(merged_findings + findings),
    )

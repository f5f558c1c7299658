"""Compiling each object on a relation given at run time instead of its declared table (the
dbt models a `--dbt-project` run checks), or skipping its rules with the relation's refusal."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from packata_sql.contracts.model import Category, Contract, Finding, Relation, Rule
from packata_sql.contracts.zones import ReadingZone
from packata_sql.dialects import Dialect
from packata_sql.plans.compiler import Compiled, compile_contract

_NO_RELATION = "no relation was given for this object"


def compile_on_relations(contract: Contract, dialect: Dialect,
                         relations: Mapping[str, Relation], *,
                         select: Iterable[str] | None = None,
                         parameters: Iterable[str] | None = None,
                         categories: Iterable[Category] | None = None,
                         zone: ReadingZone | None = None) -> Compiled:
    """`compile_contract` per object with rules, each on its relation; an object without one
    has its rules skipped (`no-relation`). `zone`: as `compile_contract` reads it."""
    wanted = set(select) if select is not None else None
    kinds = set(categories) if categories is not None else None
    rules = [r for r in contract.rules if (wanted is None or r.key in wanted)
             and (kinds is None or r.category in kinds)]
    blocked: dict[str, Finding] = {}
    findings: list[Finding] = []
    parts: list[Compiled] = []
    for name in contract.checked_objects():  # a pipeline's too
        mine = [r for r in rules if r.target.object_name == name]
        if not mine:
            continue
        relation = relations.get(name) or Relation(
            refusal=Finding("no-relation", _NO_RELATION, contract.path))
        if relation.refusal is not None or not relation.segments:
            refusal = relation.refusal or Finding("no-relation", _NO_RELATION, contract.path)
            if relation.for_object:
                findings.append(refusal)
                blocked.update({r.key: refusal for r in mine})
            else:
                blocked.update({r.key: dataclasses.replace(refusal, source_path=r.source_path,
                                                           rule_key=r.key) for r in mine})
            continue
        *prefix, table = relation.segments
        renamed = tuple(_on(r, table) for r in mine)
        parts.append(compile_contract(dataclasses.replace(contract, rules=renamed), dialect,
                                      prefix=tuple(prefix), parameters=parameters, zone=zone))
    unattached = tuple(r for r in rules if not r.target.object_name)
    if unattached:  # e.g. an SLA no query observes: listed as in any check
        parts.append(compile_contract(dataclasses.replace(contract, rules=unattached), dialect,
                                      parameters=parameters))
    return _merge(parts, blocked, findings, contract)


def _on(rule: Rule, table: str) -> Rule:
    return dataclasses.replace(rule, target=dataclasses.replace(rule.target, physical_object=table))


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

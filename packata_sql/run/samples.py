"""`--samples N` (issue 24.2): a failed rule's offending values, each with how many rows hold it
and one such row's key (the object's primary key), typed as the column is (`42`, `'bitcoin'`,
`NULL`). A value of a property classified as personal or secret (`classification: pii`,
`restricted`, …, or such a tag) is withheld: only whether it is NULL is read. The lines go to `on_samples`
(the terminal), never into a result or a report."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from packata_sql.contracts.model import Contract, SchemaObject, SchemaProperty
from packata_sql.dialects import Dialect, Family
from packata_sql.plans.compiler import Plan
from packata_sql.plans.planner import WITHHELD, SampleColumns
from packata_sql.run.names import find_column

#: Words of a `classification` or tag (case-insensitive) whose data `--samples` never prints.
WITHHELD_CLASSIFICATIONS = frozenset({"pii", "restricted", "confidential", "sensitive",
                                      "secret", "private", "personal"})
_WORDS = re.compile(r"[^0-9a-z]+")
#: The characters of one sampled cell shown; a longer one is cut, its length said.
SHOWN_CHARACTERS = 200


def withheld_classification(classification: str | None) -> bool:
    """`pii`, ` PII `, `Highly-Confidential`, `pii:email`, `3-restricted`: one of the words
    (runs of letters and digits) is one of WITHHELD_CLASSIFICATIONS; when in doubt, withheld."""
    words = _WORDS.split((classification or "").lower())
    return any(word in WITHHELD_CLASSIFICATIONS for word in words)


def withheld_because(prop: SchemaProperty) -> str | None:
    """Why a property's values are withheld (`classification pii`, `tag pii`), or None: its
    `classification`, else one of its `tags`, is one of WITHHELD_CLASSIFICATIONS."""
    if withheld_classification(prop.classification):
        return f"classification {str(prop.classification).strip().lower()}"
    tag = next((t for t in prop.tags if withheld_classification(t)), None)
    return None if tag is None else f"tag {tag.strip().lower()}"


@dataclass(frozen=True)
class ObjectKeys:
    """What an object's declaration says about its rows' keys and classified values."""

    #: The primary key's physical columns, in key order.
    keys: tuple[str, ...] = ()
    #: Withheld top-level columns (physical name → why) and nested properties (logical
    #: path → why).
    columns: Mapping[str, str] = field(default_factory=dict)
    paths: Mapping[tuple[str, ...], str] = field(default_factory=dict)
    #: Why every column is withheld (the object itself is tagged `pii`, …), or None.
    every: str | None = None


def object_keys(contract: Contract) -> dict[str, ObjectKeys]:
    """Each declared object's keys and withheld properties, by object name."""
    return {schema.name: _keys_of(schema) for schema in contract.objects}


def _keys_of(schema: SchemaObject) -> ObjectKeys:
    top = [p for p in schema.properties if not p.fields]
    keyed = sorted((p for p in top if p.primary_key),
                   key=lambda p: (p.primary_key_position is None, p.primary_key_position or 0))
    columns = {p.physical: why for p in top if (why := withheld_because(p))}
    paths = {p.names or (p.name,): why for p in (*schema.properties, *schema.nested)
             if (why := withheld_because(p))}
    tag = next((t for t in schema.tags if withheld_classification(t)), None)
    every = None if tag is None else f"object tag {tag.strip().lower()}"
    return ObjectKeys(tuple(p.physical for p in keyed), columns, paths, every)


@dataclass(frozen=True)
class Sampling:
    """An object's keys and withheld columns as its catalog names them."""

    keys: tuple[str, ...]
    families: tuple[Family | None, ...]
    withheld: Mapping[str, str]
    paths: Mapping[tuple[str, ...], str]


def resolve(declared: ObjectKeys | None, dialect: Dialect,
            columns: Mapping[str, Family]) -> Sampling:
    """The declared key and classified columns found among the object's `columns`; a key
    column the object lacks leaves the rows keyless (the rule's own values still show)."""
    declared = declared or ObjectKeys()
    found = [find_column(dialect, columns, name, exact=False) for name in declared.keys]
    keys = tuple(name for name in found if name is not None) if all(found) else ()
    withheld = dict.fromkeys(columns, declared.every) if declared.every else {}
    for name, classification in declared.columns.items():
        actual = find_column(dialect, columns, name, exact=False)
        withheld[actual or name] = classification
    return Sampling(keys, tuple(columns.get(k) for k in keys), withheld, declared.paths)


def withheld_values(plan: Plan, sampling: Sampling) -> dict[int, str]:
    """The positions among the rule's columns whose values are withheld, with the reason."""
    withheld = {}
    path = plan.rule.target.property_path
    # A nested field is withheld when it, or any object enclosing it, is classified.
    enclosing = next((sampling.paths[path[:depth]] for depth in range(len(path), 0, -1)
                      if path[:depth] in sampling.paths), None)
    for index, column in enumerate(plan.columns):
        classification = sampling.withheld.get(column)
        if index == 0 and enclosing is not None:
            classification = enclosing
        if classification is not None:
            withheld[index] = classification
    return withheld


def typed(text: object, family: Family | None) -> str:
    """A cell as its column's type writes it: a number or a date bare, a boolean `true`/
    `false`, text quoted (`'it''s'`), NULL as NULL; on an engine where any cell holds any type
    (SQLite) the engine wrote the cell as its literal (Dialect.sample_text)."""
    if text is None:
        return "NULL"
    value = str(text)
    if len(value) > SHOWN_CHARACTERS:  # a huge cell: its start and its length
        return f"{_typed(value[:SHOWN_CHARACTERS], family)}… ({len(value)} characters)"
    return _typed(value, family)


def _typed(value: str, family: Family | None) -> str:
    if family in (Family.NUMBER, Family.TEMPORAL, Family.DYNAMIC):  # DYNAMIC: a literal
        return value
    if family is Family.BOOLEAN:
        lowered = value.strip().lower()
        return {"t": "true", "1": "true", "f": "false", "0": "false"}.get(lowered, lowered)
    return "'" + value.replace("'", "''") + "'"


def sample_lines(row: Sequence[Any], layout: SampleColumns, plan: Plan, families: Sequence[
        Family | None], sampling: Sampling, withheld: Mapping[int, str],
        grouped: bool) -> list[str]:
    """The sample's head line (`19 offending rows, 2 values`) and one line per value shown
    (`status 'bitcoin' × 12 (order_id 5)`)."""
    total, nulls, distinct = (int(cell or 0) for cell in row[:3])
    head = (f"{distinct} repeated {'value' if distinct == 1 else 'values'} in {total} rows"
            if grouped else f"{total or 'no'} offending {'row' if total == 1 else 'rows'}")
    if layout.values == 1 and 0 < nulls < total:
        head += f", {nulls} of them NULL"
    names = [".".join(plan.rule.target.property_path) if plan.fields and i == 0 else column
             for i, column in enumerate(plan.columns)]  # a nested field by its path
    if withheld:
        head += "; " + ", ".join(f"{names[i]} withheld ({c})"
                                 for i, c in sorted(withheld.items()))
    withheld_keys = [k for k in sampling.keys if k in sampling.withheld]
    if withheld_keys:
        head += "; key " + ", ".join(f"{k} withheld ({sampling.withheld[k]})"
                                     for k in withheld_keys)
    lines = [head]
    shown = 0
    for position in range(layout.limit):
        start = 3 + position * layout.width
        count = row[start]
        if count is None:
            break
        shown += 1
        cells = row[start + 1:start + 1 + layout.values]
        keys = row[start + 1 + layout.values:start + layout.width]
        said = [f"{names[i]} " + ("withheld" if i in withheld and cell == WITHHELD
                                          else typed(cell, families[i]))
                for i, cell in enumerate(cells)]
        line = " ".join(said) + (f" × {int(count)}" if said else "")
        keyed = [f"{name} " + ("withheld" if name in sampling.withheld
                               else typed(cell, family))
                 for name, cell, family in zip(sampling.keys, keys, sampling.families,
                                               strict=True)]
        if keyed:
            line += f" ({', '.join(keyed)})" if said else ", ".join(keyed)
        lines.append(line)
    if distinct > shown:
        lines.append(f"… {distinct - shown} more {'value' if distinct - shown == 1 else 'values'}")
    return lines

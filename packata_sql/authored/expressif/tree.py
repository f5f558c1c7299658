"""The parsed Expressif program: frozen nodes, no SQL (the catalog floor renders them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal as Choice

Kind = Choice["predicate", "expression"]
Scope = Choice["value", "row", "dataset", "observation"]


@dataclass(frozen=True)
class Literal:
    """An argument written in the program: untyped text until the operation types it."""

    text: str
    quoted: bool = False


@dataclass(frozen=True)
class Variable:
    """`@name`: bound through the driver by the caller, never written into SQL text."""

    name: str


@dataclass(frozen=True)
class Field:
    """`[name]` (or `field(name)`, `.name`): a column of the current row (row scope)."""

    name: str


@dataclass(frozen=True)
class Interval:
    """`[0;20[`: bounds as written (None is infinite), each closed or open."""

    lower: str | None
    lower_closed: bool
    upper: str | None
    upper_closed: bool


@dataclass(frozen=True)
class Call:
    """One operation: `name` is the catalogue's canonical name, `written` what the author
    typed (a long alias such as `numeric-is-positive`)."""

    name: str
    written: str
    kind: Choice["function", "predicate", "accumulator"]
    arguments: tuple[Argument, ...] = ()
    column: int = 1


@dataclass(frozen=True)
class Pipeline:
    """`root | f | g`: functions left to right on the root (None: the item in scope)."""

    root: Argument | None
    members: tuple[Call, ...]


@dataclass(frozen=True)
class Single:
    call: Call


@dataclass(frozen=True)
class Negation:
    """`!p`: as the language reads it, `!` negates the whole predication after it."""

    member: Predication


@dataclass(frozen=True)
class Combination:
    operator: Choice["and", "or", "xor"]
    left: Predication
    right: Predication


@dataclass(frozen=True)
class Rooted:
    """`root |? predication` (row scope: `[amount] |? positive`)."""

    root: Argument
    predication: Predication


Predication = Single | Negation | Combination
Argument = Literal | Variable | Field | Interval | Pipeline | Predication
Body = Pipeline | Predication | Rooted


@dataclass(frozen=True)
class Program:
    """One payload parsed: what it computes and the names it reads."""

    version: str
    kind: Kind
    scope: Scope
    source: str
    body: Body
    #: The `@names` the program reads, in order of first use.
    variables: tuple[str, ...]
    #: The `[field]` names it reads (row scope), in order of first use.
    fields: tuple[str, ...]
    #: Canonical names of every operation it calls, in order of first use.
    operations: tuple[str, ...]

    @property
    def accumulator(self) -> Call | None:
        """The closing accumulator of a dataset program (`sum`, `any`, …)."""
        if isinstance(self.body, Pipeline) and self.body.members:
            last = self.body.members[-1]
            if last.kind == "accumulator":
                return last
        return None

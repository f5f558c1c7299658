"""The SLA latency measurement (docs/semantics.md 1.1): the newest value of one date or
timestamp column, as integer microseconds since the epoch, one `MAX` in the object's fused
scan. The age is computed in Python against the run's observation time (run/freshness.py)."""

from __future__ import annotations

import sqlglot.expressions as exp

from packata_sql.catalog.base import MeasureContext, TypeMismatch
from packata_sql.catalog.constraints import ConstraintHandler
from packata_sql.contracts.model import Constraint, Rule
from packata_sql.dialects import Family

#: The kind a latency's plan carries (its rule's definition is the `Latency`).
KIND = "latency"


class Newest(ConstraintHandler):
    kind = KIND

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        """Raises TypeMismatch for a column that holds no date or timestamp."""
        name = columns[0]
        if context.family(name) not in (Family.TEMPORAL, Family.DYNAMIC):
            raise TypeMismatch
        newest = exp.Max(this=context.column(name))
        epoch = context.dialect.epoch_micros(
            newest, context.native_types.get(name) or rule.target.logical_type)
        if epoch is None:
            raise TypeMismatch
        return epoch

    def offending(self, rule: Rule, constraint: Constraint, context: MeasureContext,
                  columns: tuple[str, ...]) -> exp.Expr | None:
        return None  # an age blames no row


NEWEST = Newest()

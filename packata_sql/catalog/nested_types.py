"""A nested field's presence and logicalType in a JSON document, which has no catalog of its
keys: row checks counting the documents whose enclosing object lacks the key, or holds a
value of a JSON type the logicalType does not allow (docs/semantics.md, "Nested fields").

A JSON `null` is a value of no type: it is `required`'s business, never a type violation. A
struct field's presence and type are answered from the catalog instead (run/catalog_checks.py);
on a struct the count is a constant zero the run never reads.
"""

from __future__ import annotations

import sqlglot.expressions as exp

from packata_sql.catalog.base import MeasureContext
from packata_sql.catalog.constraints import ConstraintHandler
from packata_sql.contracts.model import Constraint, Rule
from packata_sql.dialects import Layout, case

#: logicalTypes a JSON document holds as strings: only that they are strings is checked, so a
#: check that finds none otherwise is `inconclusive`, never passed (`inexact`).
JSON_STRINGS = frozenset({"date", "timestamp", "time"})
#: The JSON kind each logicalType allows; `integer` is a number without a fraction.
JSON_KINDS = {"string": "string", "number": "number", "integer": "number",
              "boolean": "boolean", "object": "object", "array": "array",
              **dict.fromkeys(JSON_STRINGS, "string")}


def _names(context: MeasureContext, *kinds: str) -> list[exp.Expr]:
    return [exp.Literal.string(name) for kind in kinds
            for name in context.dialect.json_type_names.get(kind, ())]


class NestedType(ConstraintHandler):
    """`present` (the key exists) or `logicalType` (it exists and holds an allowed JSON type)
    on a field of a JSON document."""

    def inexact(self, constraint: Constraint) -> bool:
        """Whether no violation found still says nothing exact: a date or timestamp in a JSON
        document is a string, whose text is not read as one."""
        return self.kind == "logicalType" and \
            str(constraint.argument("logicalType") or "").lower() in JSON_STRINGS

    def count(self, rule: Rule, constraint: Constraint, context: MeasureContext,
              columns: tuple[str, ...]) -> exp.Expr:
        if context.layout(columns[0]) is Layout.STRUCT:
            return exp.Literal.number(0)  # the struct's catalog type answers
        return exp.Count(this=case((self._wrong(constraint, context, columns[0]),
                                    exp.Literal.number(1))))

    def _wrong(self, constraint: Constraint, context: MeasureContext, name: str) -> exp.Expr:
        """The document's enclosing object exists and its value at the field is absent (or,
        for a logicalType, of a type the logicalType does not allow)."""
        path = context.fields[name]
        kind = context.dialect.json_type(context.dialect.column(name), path,
                                         context.layout(name))
        wrong: exp.Expr = exp.Is(this=kind, expression=exp.Null())
        declared = str(constraint.argument("logicalType") or "").lower()
        allowed = JSON_KINDS.get(declared) if self.kind == "logicalType" else None
        if allowed is not None:
            mistyped: exp.Expr = exp.Not(this=exp.In(this=kind.copy(), expressions=_names(
                context, allowed, "null")))
            if declared == "integer":
                value = context.column(name)  # the leaf read as a number where it is one
                fraction = exp.NEQ(this=exp.Round(this=value), expression=value.copy())
                mistyped = exp.or_(mistyped, fraction)
            wrong = exp.or_(wrong, mistyped)
        enclosing = context.enclosing(name)
        assert enclosing is not None
        return exp.and_(exp.Not(this=exp.paren(exp.Is(this=enclosing, expression=exp.Null()),
                                               copy=False)), exp.paren(wrong, copy=False))


NESTED_TYPE_HANDLERS = {kind: NestedType(kind) for kind in ("present", "logicalType")}

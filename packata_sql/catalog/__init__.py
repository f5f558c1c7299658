"""The metric catalog `odcs` 3.2.0: definitions are data, one handler per metric.

No code outside this package dispatches on a metric name.
"""

from __future__ import annotations

from packata_sql.catalog.base import EngineRefused, MeasureContext, MetricHandler, TypeMismatch
from packata_sql.catalog.metrics import HANDLERS
from packata_sql.contracts.identity import CATALOG, CATALOG_VERSION, PROGRAM


def handler_for(metric: str) -> MetricHandler | None:
    return HANDLERS.get(metric)


__all__ = [
    "CATALOG", "CATALOG_VERSION", "HANDLERS", "PROGRAM",
    "EngineRefused", "MeasureContext", "MetricHandler", "TypeMismatch", "handler_for",
]

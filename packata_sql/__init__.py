"""packata-sql: data-quality declarations compiled to SQL and checked read-only.

The Python API (`packata_sql.api`, re-exported here)::

    import packata_sql

    contract = packata_sql.load("orders.odcs.yaml")
    report = packata_sql.check(contract, "duckdb:///warehouse.duckdb")
    print(report.outcome, [r.status for r in report.rules])

Names load on first use, so `import packata_sql` (and the CLI's `--help`) stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from packata_sql.api import CheckRequest, Plans, check, compile, load
    from packata_sql.contracts.model import Contract
    from packata_sql.errors import DeclarationError, PackataError, UsageError
    from packata_sql.report import Outcome, Report, RuleResult, Status

_EXPORTS = {
    "CheckRequest": "api", "Plans": "api", "check": "api", "compile": "api", "load": "api",
    "Contract": "contracts.model", "DeclarationError": "errors", "PackataError": "errors",
    "UsageError": "errors", "Outcome": "report", "Report": "report", "RuleResult": "report",
    "Status": "report",
}
__all__ = [  # noqa: RUF022 (the API first, then what it returns and raises)
    "CheckRequest", "Plans", "check", "compile", "load", "Contract", "Report", "RuleResult",
    "Outcome", "Status", "PackataError", "UsageError", "DeclarationError", "__version__",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'packata_sql' has no attribute '{name}'")
    from importlib import import_module

    return getattr(import_module(f"packata_sql.{module}"), name)

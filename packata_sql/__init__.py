"""packata-sql: data-quality declarations compiled to SQL and checked read-only."""

__version__ = "0.1.0"

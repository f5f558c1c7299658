"""Which metric catalog this build implements; reports name it (docs/semantics.md 3)."""

CATALOG = "odcs"
CATALOG_VERSION = "3.2.0"
PROGRAM = "packata-odcs/1"

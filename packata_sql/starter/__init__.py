"""Starter contracts from what exists: an ODCS v3 document written from a warehouse's catalog
(`init`), from SQL DDL (`import sql`) or from a dbt manifest (`import dbt`). Each declares only
what its source states, so it lints clean and checks on that source; what has no ODCS
equivalent is listed as not imported, never dropped silently."""

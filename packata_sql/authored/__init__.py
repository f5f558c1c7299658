"""Authored SQL: the lexer-aware binder, the deny-list, placeholders and --param values."""

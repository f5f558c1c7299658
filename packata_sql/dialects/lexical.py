"""Lexical rules an authored-SQL scanner needs, as data: one `LexicalRules` per dialect."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class LexicalRules:
    #: String quote characters → whether a backslash escapes the next character inside.
    strings: dict[str, bool] = field(default_factory=lambda: {"'": False})
    #: Identifier quote characters → their closing character; a doubled closer is an escape
    #: unless the opener is listed in `undoubled_identifiers`.
    identifiers: dict[str, str] = field(default_factory=lambda: {'"': '"'})
    undoubled_identifiers: frozenset[str] = frozenset()
    #: Prefix letters (E'…') that turn on backslash escapes for a standard string.
    escape_string_prefixes: frozenset[str] = frozenset()
    #: Prefix letters of raw strings (Spark `r'…'`, `R"…"`): no escapes and no doubled quote,
    #: the string ends at the first quote like its opener.
    raw_string_prefixes: frozenset[str] = frozenset()
    hash_comments: bool = False
    #: MySQL: `--` starts a comment only when followed by white space or the end of the text.
    dash_comment_needs_space: bool = False
    #: A bare carriage return also ends a `--` comment (PostgreSQL and DuckDB).
    cr_ends_line_comment: bool = False
    nested_block_comments: bool = False
    dollar_quotes: bool = False
    #: PostgreSQL `U&"…"` identifiers spell characters as escapes (`U&"pg\\005fsleep"`).
    unicode_escape_identifiers: bool = False
    #: MySQL executes the text of `/*! … */` comments.
    executable_comments: bool = False


#: PostgreSQL's rules, which DuckDB follows: E'' escapes, nested block comments, dollar quotes,
#: and a bare carriage return ends a `--` comment.
POSTGRES_FAMILY = LexicalRules(
    escape_string_prefixes=frozenset("Ee"),
    cr_ends_line_comment=True,
    nested_block_comments=True,
    dollar_quotes=True,
    unicode_escape_identifiers=True,
)


@dataclass(frozen=True)
class DenyList:
    """Calls and statements with effects beyond the rule's own read (other sessions, locks,
    settings, sequences, files, the network, time): authored SQL naming one is refused before
    it runs, a second wall behind the read-only session. Names are matched case-insensitively;
    a function entry ending in `*` is a prefix."""

    functions: frozenset[str] = frozenset()
    #: Words that start a denied statement when they open the query (`LOAD`, `ATTACH`, …).
    statements: frozenset[str] = frozenset()
    #: Unquoted word sequences denied anywhere in code (reserved words such as MySQL `KILL`).
    phrases: tuple[tuple[str, ...], ...] = ()
    #: A string where a table goes names a file the engine reads (DuckDB replacement scans).
    string_tables: bool = False

    def denied_function(self, name: str) -> str | None:
        """The entry that denies a call of `name`, or None."""
        folded = name.lower()
        if folded in self.functions:
            return folded
        return next((entry for entry in sorted(self.functions)
                     if entry.endswith("*") and folded.startswith(entry[:-1])), None)

"""Why a store could not be used: the one exception the history raises for a store."""

from __future__ import annotations

from packata_sql.errors import PackataError


class StoreUnavailable(PackataError):
    """The store could not be reached, was locked past the timeout, refused the write or was
    written by a newer packata-sql; the message names the store (never a password, never the
    engine's text). `check --history` spools the run; `history` exits 3 with it."""

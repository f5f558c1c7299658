"""The exceptions that cross layers, and the exit codes the CLI maps them to.

The ground of the package: every layer may import it, it imports nothing of the package.
A caller of the Python API catches `PackataError` (or a subclass); a finding about a rule is
never an exception (it is a result), only input that cannot be used at all is.
"""

from __future__ import annotations

EXIT_USAGE = 3
EXIT_CLOSED_PIPE = 141  # as a shell reports a command stopped by SIGPIPE
EXIT_INTERNAL = 4  # a bug in packata-sql, distinct from 2 (a run that is not complete)


class PackataError(Exception):
    """Anything packata-sql refuses to start with; the message is safe to show (no secret)."""


class UsageError(PackataError):
    """Bad arguments or options, an endpoint that cannot be used: exit 3, one clear line."""


class DeclarationError(UsageError):
    """A contract, policy or pipeline file that cannot be read or parsed at all (exit 3)."""


class Unreachable(PackataError):
    """No session could be opened (`init`): the message names the endpoint, never a secret;
    the CLI exits 2, as for a run that could not measure."""

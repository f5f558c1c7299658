"""The one exception an Expressif program raises while it is read or compiled."""

from __future__ import annotations


class ExpressifError(Exception):
    """A compilation finding, never a traceback: `code` is stable (`expressif-payload`,
    `expressif-version`, `expressif-syntax`, `expressif-unknown`, `expressif-forbidden`,
    `expressif-unsupported`, `expressif-scope`, `expressif-type`, `expressif-argument`,
    `expressif-unsupported-on-engine`, `expressif-too-deep`), `operation` the operation named, if one is, and
    `message` what is wrong and what to do."""

    def __init__(self, code: str, message: str, operation: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.operation = operation

    def __str__(self) -> str:
        return self.message

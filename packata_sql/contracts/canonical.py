"""The SHA-256 of a JSON document over its RFC 8785 (JCS) canonical form, so that whitespace,
key order and number spelling (`1.0`, `1e0`) do not change it while any value does.

The `rfc8785` package does the canonicalisation; this module parses strictly first (duplicate
keys and NaN are refused, as I-JSON requires)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import rfc8785


class CanonicalError(ValueError):
    """The text is not I-JSON, so it has no canonical form."""


def canonical_bytes(text: str) -> bytes:
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise CanonicalError(f"not JSON (line {error.lineno})") from None
    try:
        return rfc8785.dumps(value)
    except rfc8785.CanonicalizationError:
        raise CanonicalError("a number is outside the range RFC 8785 can represent exactly "
                             "(integers beyond ±2^53, or overflowing floats)") from None


def sha256_hex(text: str) -> str:
    return hashlib.sha256(canonical_bytes(text)).hexdigest()


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise CanonicalError(f"duplicate key '{key}'")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise CanonicalError(f"{name} is not JSON")

"""Fixtures shared by tests/ and integration/."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")


def wait_until(probe: Callable[[], T], what: str, timeout_s: float = 60.0) -> T:
    """Polls a real state (a server's process list, a process's open files) until `probe`
    returns something true, and returns it; fails the test past `timeout_s`. A readiness
    signal to wait for, never a guess at how long something takes."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() >= deadline:
            pytest.fail(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(0.02)  # the pause between two looks, not the synchronisation


@pytest.fixture(name="wait_until")
def wait_until_fixture() -> Callable[..., object]:
    return wait_until

"""Ctrl-C while a driver is imported (`drivers.import_driver`): the import finishes, then the
interrupt arrives. DuckDB's extension, interrupted inside its initialisation, aborted the whole
process ("Critical nanobind error"); a module that receives SIGINT halfway through its own
top-level code stands in for it here."""

from __future__ import annotations

import signal
import sys
import textwrap
from pathlib import Path

import pytest

from packata_sql.sessions.drivers import import_driver


def test_an_interrupt_during_a_driver_import_waits_for_the_import(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "halfway_driver.py").write_text(textwrap.dedent("""
        import signal
        before = True
        signal.raise_signal(signal.SIGINT)  # Ctrl-C lands here, inside the import
        after = True
    """), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(KeyboardInterrupt):
        import_driver("halfway_driver")
    module = sys.modules.pop("halfway_driver")
    assert module.before and module.after  # the whole module ran before the interrupt
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_import_without_an_interrupt_returns_the_module():
    assert import_driver("json").dumps([1]) == "[1]"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

"""`plain` returns printable text as it is (but the workflow-command guard): exact only if no
pattern it would apply can match printable text. Held here over every code point and over
random text."""

from __future__ import annotations

import sys

from hypothesis import given
from hypothesis import strategies as st

from packata_sql.render import neutral

PATTERNS = (neutral._SEQUENCES, neutral._SURROGATES, neutral._CONTROLS, neutral._LINE_BREAKS)


def test_no_pattern_plain_applies_starts_at_a_printable_character():
    printable = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isprintable()]
    assert len(printable) > 100_000
    for pattern in PATTERNS:
        assert not any(pattern.match(c + "[0m]8;;x") for c in printable), pattern.pattern


@given(st.text())
def test_the_fast_path_equals_the_whole_cleaning(text):
    slow = neutral._SURROGATES.sub(neutral.REPLACEMENT, neutral._SEQUENCES.sub("", text))
    slow = neutral._guard(neutral._CONTROLS.sub("", neutral._LINE_BREAKS.sub(" ", slow)))
    assert neutral.plain(text) == slow
    if text.isprintable():
        assert neutral.plain(text, lines=True) == neutral._guard(text)


def test_not_xml_is_what_xml_1_0_cannot_hold():
    """XML 1.0's Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF];
    `_NOT_XML` names its complement by the few code points it leaves out."""
    def allowed(c: int) -> bool:
        return c in (0x9, 0xA, 0xD) or 0x20 <= c <= 0xD7FF or 0xE000 <= c <= 0xFFFD \
            or 0x10000 <= c <= 0x10FFFF

    assert all(bool(neutral._NOT_XML.match(chr(c))) != allowed(c)
               for c in range(sys.maxunicode + 1))

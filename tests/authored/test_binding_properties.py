"""Property test: random literals, comments and quoted identifiers around placeholders. Every
byte outside code survives, and every placeholder in code is replaced."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from packata_sql.authored.template import bind
from packata_sql.dialects import BINDER_DIALECTS, get_dialect

OBJECT = ["sch", 'o"b`j]']
PROPERTY = "c ol'"
# Text that is dangerous inside a region: placeholders, other regions' openers, unicode.
NOISE = st.lists(st.sampled_from([
    "{object}", "{property}", "${column}", "{param:p}", "--", "/*", "*", "'", '"', "`", "[", "]",
    "$", "$$", ";", "#", "\\", "é", "☃", " ", "x", "{", "}", "\n", "%",
]), max_size=12).map("".join)
PLACEHOLDERS = {"{object}": "object", "${object}": "object", "{table}": "object",
                "{model}": "object", "${model}": "object",
                "{property}": "property", "{column}": "property", "${column}": "property",
                "{field}": "property", "${field}": "property"}
# " FROM x ": a string right after FROM is a file DuckDB reads, a finding (tested in the vectors).
CODE = st.sampled_from(["SELECT ", " + ", " FROM x ", "(", ")", " , ", " x ", "{1}", " = ", *PLACEHOLDERS])


def string_literal(dialect: str, text: str) -> str:
    if dialect in ("mysql", "spark"):  # backslash escapes in string literals
        text = text.replace("\\", "\\\\")
    return "'" + text.replace("'", "''") + "'"


def identifier(dialect: str, text: str) -> str:
    opener, closer = {"mysql": ("`", "`"), "spark": ("`", "`"),
                      "sqlserver": ("[", "]")}.get(dialect, ('"', '"'))
    return opener + text.replace(closer, closer * 2) + closer


def line_comment(dialect: str, text: str) -> str:
    return "-- " + text.replace("\n", " ").replace("\r", " ") + "\n"


def block_comment(dialect: str, text: str) -> str:
    body = text.replace("*", "+").replace("/", "|")
    return "/* " + body + " */"


@st.composite
def authored(draw: st.DrawFn, dialect: str) -> tuple[str, str]:
    """(authored text, expected bound text), built piece by piece."""
    d = get_dialect(dialect)
    replacements = {"object": d.quote_path(OBJECT), "property": d.quote_identifier(PROPERTY)}
    text, expected = [], []
    for _ in range(draw(st.integers(1, 8))):
        token = draw(CODE)
        text.append(token)
        expected.append(replacements[PLACEHOLDERS[token]] if token in PLACEHOLDERS else token)
        kind = draw(st.sampled_from(["string", "identifier", "line", "block", "none"]))
        if kind == "none":
            continue
        noise = draw(NOISE)
        if kind == "identifier" and dialect == "sqlite":
            noise = noise.replace('"', "")
        piece = {"string": string_literal, "identifier": identifier, "line": line_comment,
                 "block": block_comment}[kind](dialect, noise)
        text += [" ", piece, " "]
        expected += [" ", piece, " "]
    result = "".join(expected)
    if d.percent_escapes and d.always_parameters:  # psycopg always reads `%` as a marker
        result = result.replace("%", "%%")
    return "".join(text), result


@settings(max_examples=150, deadline=None)
@given(data=st.data(), dialect=st.sampled_from(BINDER_DIALECTS))
def test_regions_survive_and_code_placeholders_are_replaced(data, dialect):
    text, expected = data.draw(authored(dialect))
    bound, problems = bind(text, get_dialect(dialect), OBJECT, PROPERTY)
    assert problems == []
    assert bound is not None and bound.sql == expected
    assert bound.parameters == ()

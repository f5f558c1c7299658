"""The one place that makes text a contract, a policy or a database controls (names, ids,
descriptions, server fields, members, values, paths, messages) inert in each output format,
so no declaration can write a workflow command, a terminal escape, Markdown/HTML markup, rich
markup or a character that breaks an XML parser into a report. Renderers pass every such
string through the function for their format; our own fixed words need nothing."""

from __future__ import annotations

import re
from json.encoder import encode_basestring, encode_basestring_ascii

# Whole escape sequences first (so `ESC ] 8 ; ; url BEL` leaves no `]8;;url` behind): CSI,
# OSC (to BEL or ST), DCS/SOS/PM/APC strings (to ST), other two-byte ESC sequences, and their
# 8-bit C1 forms.
_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|\x9d[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|[\x90\x98\x9e\x9f][^\x1b\x9c]*(?:\x1b\\|\x9c)?"
)
# What is left: C0 but tab/newline/CR, DEL, C1, bidirectional overrides and isolates (which
# reorder what a terminal or browser shows), and lone surrogates (no encoding can write them).
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SURROGATES = re.compile("[\ud800-\udfff]")
_LINE_BREAKS = re.compile("\r\n|[\t\n\r\x0b\x0c\x85\u2028\u2029]")
#: Characters XML 1.0 cannot hold at all, even escaped: all but tab, LF, CR, U+0020–U+D7FF,
#: U+E000–U+FFFD and U+10000–U+10FFFF, written as the few it excludes (the negated class with
#: the astral range costs ≈ 5 ms to compile at every start).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: ASCII punctuation Markdown or the HTML GitHub renders in it could read as markup (a
#: backslash before any ASCII punctuation is a literal in CommonMark).
_MARKDOWN = re.compile(r"([\\`*_\[\]<>!|~&$])")
REPLACEMENT = "\ufffd"
_COMMAND = re.compile(r"(?:^|(?<=\s))(::|##\[)")


def plain(text: object, *, lines: bool = False) -> str:
    """`text` without escape sequences, control characters, bidirectional controls or lone
    surrogates (shown as U+FFFD); line breaks and tabs become spaces unless `lines` keeps
    newlines (SQL text). A line that would read as a CI workflow command (`::error …`,
    `##[error]`) when this text starts a line of a log gets a backslash before it."""
    value = str(text)
    if value.isprintable():  # every pattern below starts at a character that is not
        return _guard(value)
    value = _SURROGATES.sub(REPLACEMENT, _SEQUENCES.sub("", value))
    if not lines:
        return _guard(_CONTROLS.sub("", _LINE_BREAKS.sub(" ", value)))
    value = value.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    value = _CONTROLS.sub("", value.replace("\x85", "\n"))
    value = value.replace("\u2028", "\n").replace("\u2029", "\n")
    return "\n".join(_guard(line) for line in value.split("\n"))


def _guard(line: str) -> str:
    """GitHub's runner reads a log line starting (after spaces) with `::` or `##[` as a
    command: such text from a declaration, at the start or after a space (where a terminal
    table may wrap), is shown after a backslash."""
    return _COMMAND.sub(r"\\\1", line)


def terminal(text: object, *, lines: bool = False) -> str:
    """For the terminal table, progress and stderr lines: `plain`. Rich receives it inside
    `Text` objects (never parsed as markup); where a renderable insists on markup, use
    `markup`."""
    return plain(text, lines=lines)


def markup(text: object) -> str:
    """For a rich string that is parsed as markup (`[/red]` stays text)."""
    from rich.markup import escape

    return escape(plain(text))


def github_data(text: object) -> str:
    """A workflow command's message: newlines kept as %0A, so no text can start a command."""
    value = plain(text, lines=True)
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: object) -> str:
    """A workflow command's property value (`file=`, `title=`): also `:` and `,` escaped."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


def markdown(text: object) -> str:
    """Markdown text (cells, headings, list items): one line, with every character Markdown or
    raw HTML would read (`<!--`, `<img>`, `[x](url)`, `|`, entities) escaped by a backslash."""
    return _MARKDOWN.sub(r"\\\1", plain(text))


def markdown_code(text: object, *, in_table: bool = False) -> str:
    """An inline code span whose content cannot close it (a fence longer than any backtick run
    inside); in a table cell `|` is escaped as GFM requires."""
    value = plain(text)
    longest = max((len(run) for run in re.findall("`+", value)), default=0)
    fence = "`" * (longest + 1)
    if value.startswith(("`", " ")) or value.endswith(("`", " ")):
        value = f" {value} "
    if in_table:
        value = value.replace("|", "\\|")
    return f"{fence}{value}{fence}"


def html(text: object) -> str:
    """HTML text or attribute value: escaped, quotes included."""
    from html import escape  # only the HTML report needs it (its import compiles a pattern)

    return escape(plain(text, lines=True), quote=True)


def xml(text: object) -> str:
    """XML 1.0 text or attribute value (ElementTree escapes `<`, `&` and quotes): escape
    sequences and controls dropped, characters XML cannot hold (U+FFFE, U+FFFF) replaced."""
    return _NOT_XML.sub(REPLACEMENT, plain(text, lines=True))


def json_string(text: str) -> str:
    """A JSON string literal, UTF-8 where it can be; a lone surrogate (from a policy's `\\ud800`)
    is written as its `\\u` escape, so the report can always be encoded."""
    if _SURROGATES.search(text):
        return encode_basestring_ascii(text)
    return encode_basestring(text)  # json.dumps's own escaping, without building an encoder

"""The Expressif functions and accumulators in SQL (docs/expressif.md)."""

from __future__ import annotations

import sqlglot.expressions as exp

from packata_sql.authored.expressif import ExpressifError
from packata_sql.catalog.expressif_operations import (
    WHITESPACE,
    Operation,
    Render,
    Rendering,
    as_boolean,
    blank,
    is_null,
    paren,
    remove_all,
    trimmed,
)
from packata_sql.catalog.expressif_predicates import no_temporal
from packata_sql.dialects import Dialect, data_type


def _unary(node: type[exp.Func]) -> Render:
    return lambda r, v: node(this=v)


def _times(r: Rendering) -> exp.Expr:
    if len(r.arguments) < 2:
        return r.value(0)
    return exp.Mul(this=paren(r.value(0)), expression=paren(r.value(1)))


_EMPTY = exp.Literal.string("")
_NO_UTF16 = ("no function can count the UTF-16 code units .NET counts (a character beyond "
             "U+FFFF is two)")
_SPACE = exp.Literal.string(" ")
#: .NET's `Math.Round(decimal, digits)` takes 0 to 28 digits.
ROUND_DIGITS = 28
#: The widest `pad-*`: the padded text is built on every row, so a width of 10⁹ would ask the
#: engine for gigabytes per row (.NET's own bound is its memory).
MAX_PAD_WIDTH = 10_000


def _half_even(value: exp.Expr, digits: int) -> exp.Expr:
    """.NET `Math.Round(decimal, digits)`: half-way values go to the even neighbour. Engines
    round half away from zero, so an exact half is halved, rounded and doubled instead."""
    scale = exp.Literal.number(10 ** digits)
    scaled = exp.Mul(this=paren(value), expression=scale)
    fraction = exp.Sub(this=exp.Abs(this=scaled.copy()),
                       expression=exp.Floor(this=exp.Abs(this=scaled.copy())))
    is_half = exp.EQ(this=fraction, expression=exp.Literal.number("0.5"))
    even = exp.Div(this=exp.Mul(this=exp.Round(this=exp.Div(
        this=scaled.copy(), expression=exp.Literal.number(2))), expression=exp.Literal.number(2)),
        expression=scale.copy())
    plain = exp.Round(this=value.copy(), decimals=exp.Literal.number(digits))
    return exp.Case(ifs=[exp.If(this=is_half, true=even)], default=plain)


def _or_empty(value: exp.Expr) -> exp.Expr:
    return exp.Coalesce(this=value, expressions=[_EMPTY.copy()])


def _concat(left: exp.Expr, right: exp.Expr) -> exp.Expr:
    return exp.DPipe(this=left, expression=right, safe=False)


def _last_chars(r: Rendering, value: exp.Expr) -> exp.Expr:
    length = r.dialect.char_length(value)
    start = exp.Add(this=exp.Sub(this=length, expression=paren(r.value(0))),
                    expression=exp.Literal.number(1))
    return exp.Case(ifs=[exp.If(this=exp.GTE(this=r.value(0), expression=length.copy()),
                                true=value)],
                    default=exp.Substring(this=value.copy(), start=start))


def _skip_last_chars(r: Rendering, value: exp.Expr) -> exp.Expr:
    length = r.dialect.char_length(value)
    keep = exp.Sub(this=length, expression=paren(r.value(0)))
    return exp.Case(ifs=[exp.If(this=exp.GTE(this=r.value(0), expression=length.copy()),
                                true=exp.Case(ifs=[exp.If(this=exp.Is(this=value, expression=exp.Null()),
                                                          true=exp.Null())], default=_EMPTY.copy()))],
                    default=exp.Substring(this=value.copy(), start=exp.Literal.number(1),
                                          length=keep))


def _count_substring(r: Rendering, value: exp.Expr) -> exp.Expr:
    """Non-overlapping occurrences, left to right (what removing them all counts)."""
    part = r.value(0)
    removed = exp.func("REPLACE", value, part, _EMPTY.copy())
    length = r.dialect.char_length
    count = exp.Div(this=paren(exp.Sub(this=length(value.copy()), expression=length(removed))),
                    expression=length(part.copy()))
    nothing = exp.Or(this=exp.Is(this=part.copy(), expression=exp.Null()),
                     expression=exp.EQ(this=length(part.copy()), expression=exp.Literal.number(0)))
    return exp.Coalesce(this=exp.Case(ifs=[exp.If(this=nothing, true=exp.Literal.number(0))],
                                      default=count), expressions=[exp.Literal.number(0)])


def _pad(side: str) -> Render:
    """.NET `PadLeft`/`PadRight` (and Expressif's centring, the odd character on the right)
    to a width counted in UTF-16 code units: NULL and empty become the width in pad
    characters, a white-space-only text (Expressif's `(blank)`) and a text already as wide
    are kept."""
    def render(r: Rendering, value: exp.Expr) -> exp.Expr:
        width = r.digits(0, MAX_PAD_WIDTH)
        character = exp.Literal.string(r.character(1))
        length = r.dialect.utf16_length(value)
        assert length is not None  # refused beforehand (problem=_utf16_problem)
        missing = exp.Sub(this=exp.Literal.number(width), expression=paren(length))

        def repeat(count: exp.Expr) -> exp.Expr:
            return exp.Repeat(this=character.copy(), times=count)

        if side == "left":
            padded = _concat(repeat(missing), value.copy())
        elif side == "right":
            padded = _concat(value.copy(), repeat(missing))
        else:
            half = exp.Floor(this=exp.Div(this=paren(missing.copy()),
                                          expression=exp.Literal.number(2)))
            left = exp.cast(half, data_type("INT"))
            right = exp.Sub(this=paren(missing.copy()), expression=paren(left.copy()))
            padded = _concat(_concat(repeat(left), value.copy()), repeat(right))
        nothing = exp.Or(this=is_null(value.copy()), expression=exp.EQ(
            this=r.dialect.char_length(value.copy()), expression=exp.Literal.number(0)))
        return exp.Case(ifs=[
            exp.If(this=nothing, true=repeat(exp.Literal.number(width))),
            exp.If(this=blank(r, value.copy()), true=value.copy()),
            exp.If(this=exp.GTE(this=length.copy(), expression=exp.Literal.number(width)),
                   true=value.copy()),
        ], default=padded)
    return render


_STAR = "*"


def _mask_char(value: exp.Expr, position: int) -> exp.Expr:
    return exp.Substring(this=value.copy(), start=exp.Literal.number(position),
                         length=exp.Literal.number(1))


#: The longest mask: each character is one more piece of the SQL concatenation.
MAX_MASK_LENGTH = 64


def _mask(r: Rendering) -> str:
    mask = r.text(0)
    if len(mask) > MAX_MASK_LENGTH:
        raise ExpressifError("expressif-argument", f"'{r.written}' takes a mask of at most "
                             f"{MAX_MASK_LENGTH} characters, not {len(mask)}")
    return mask


def _text_to_mask(r: Rendering, value: exp.Expr) -> exp.Expr:
    """Each `*` of the mask (written in the program) is the value's next character, or stays
    `*` once the value is used up; NULL stays NULL, empty and blank give the mask."""
    mask = _mask(r)
    pieces: list[exp.Expr] = []
    taken = 0
    for char in mask:
        if char != _STAR:
            pieces.append(exp.Literal.string(char))
            continue
        taken += 1
        pieces.append(exp.Case(ifs=[exp.If(this=exp.GTE(
            this=r.dialect.char_length(value.copy()), expression=exp.Literal.number(taken)),
            true=_mask_char(value, taken))], default=exp.Literal.string(_STAR)))
    masked: exp.Expr = pieces[0] if pieces else _EMPTY.copy()
    for piece in pieces[1:]:
        masked = _concat(masked, piece)
    return exp.Case(ifs=[exp.If(this=is_null(value.copy()), true=exp.Null()),
                         exp.If(this=blank(r, value.copy()), true=exp.Literal.string(mask))],
                    default=masked)


def _mask_to_text(r: Rendering, value: exp.Expr) -> exp.Expr:
    """What `text-to-mask` read: the characters at the mask's `*` (a `*` there is dropped),
    NULL when the length or a fixed character of the mask differs (compared binary)."""
    mask = _mask(r)
    only_stars = mask.replace(_STAR, "") == ""
    fixed = [r.dialect.text_equals(_mask_char(value, i), char)
             for i, char in enumerate(mask, start=1) if char != _STAR]
    kept = [exp.func("REPLACE", _mask_char(value, i), exp.Literal.string(_STAR), _EMPTY.copy())
            for i, char in enumerate(mask, start=1) if char == _STAR]
    text: exp.Expr = kept[0] if kept else _EMPTY.copy()
    for piece in kept[1:]:
        text = _concat(text, piece)
    length = exp.EQ(this=r.dialect.char_length(value.copy()),
                    expression=exp.Literal.number(len(mask)))
    matching = exp.and_(length, *fixed) if fixed else length
    return exp.Case(ifs=[
        exp.If(this=is_null(value.copy()), true=exp.Null()),
        exp.If(this=blank(r, value.copy()), true=value.copy() if only_stars else exp.Null()),
        exp.If(this=exp.paren(matching, copy=False), true=text),
    ], default=exp.Null())


_ESCAPE = "~"


def _invariant_case(upper: bool) -> Render:
    """.NET's `ToUpperInvariant`/`ToLowerInvariant`: Unicode's simple mapping, each
    character alone, except the characters the dialect says its function maps otherwise
    (`case_kept`), which go around it: the text is escaped (`~` becomes `~!`, the i-th kept
    character `~i`), mapped, and unescaped (`~i` becomes what .NET makes of that character,
    `~!` becomes `~`). Every `~` of the escaped text starts a two-character token whose second
    character is no `~`, so the replacements cannot overlap, and the case functions leave
    `~`, `!` and digits alone."""
    def render(r: Rendering, value: exp.Expr) -> exp.Expr:
        kept = r.dialect.case_kept(upper)
        assert len(kept) <= 10  # one digit per kept character

        def replace(text: exp.Expr, old: str, new: str) -> exp.Expr:
            return exp.func("REPLACE", text, exp.Literal.string(old), exp.Literal.string(new))

        text = replace(r.dialect.case_mapped(value), _ESCAPE, _ESCAPE + "!")
        for index, char in enumerate(kept):
            text = replace(text, char, f"{_ESCAPE}{index}")
        mapped: exp.Expr = exp.Upper(this=text) if upper else exp.Lower(this=text)
        for index, target in enumerate(kept.values()):
            mapped = replace(mapped, f"{_ESCAPE}{index}", target)
        return replace(mapped, _ESCAPE + "!", _ESCAPE)
    return render


def _white_space_only(r: Rendering, value: exp.Expr) -> exp.Expr:
    """.NET's blank: white space only, and not empty (an empty text is read first)."""
    return exp.and_(exp.GT(this=r.dialect.char_length(value.copy()),
                           expression=exp.Literal.number(0)), blank(r, value.copy()))


def _on_blank(render: Render, blank_result: Render | None = None, *,
              empty_differs: bool = False) -> Render:
    """Expressif's text functions read a text of white space only as the value *blank*,
    whatever its characters (`string.IsNullOrWhiteSpace`), and answer it without reading
    it: `blank_result`, by default the blank text itself (the language's `(blank)`), so a
    function after this one reads a blank too. The test takes the empty text in as well,
    unless `empty_differs` (the function answers empty otherwise than blank): one reference
    to the value fewer for every function piped after."""
    def wrapped(r: Rendering, value: exp.Expr) -> exp.Expr:
        result = blank_result(r, value.copy()) if blank_result else value.copy()
        test = _white_space_only(r, value) if empty_differs else blank(r, value.copy())
        return exp.Case(ifs=[exp.If(this=test, true=result)], default=render(r, value.copy()))
    return wrapped


def _argument_or_empty(r: Rendering, value: exp.Expr) -> exp.Expr:
    return _or_empty(r.value(0))


def _no_count(r: Rendering, value: exp.Expr) -> exp.Expr:
    """`count-substring` of a blank: 0 when the substring holds anything but white space,
    else NULL (not 0: the language's CountSubstring.EvaluateBlank)."""
    part = r.value(0)
    nothing = exp.or_(is_null(part.copy()), blank(r, part.copy()))
    return exp.Case(ifs=[exp.If(this=nothing, true=exp.Null())], default=exp.Literal.number(0))


def _removed_blank(r: Rendering, value: exp.Expr) -> exp.Expr:
    """`remove-chars` of a blank: empty when the removed character is white space, else the
    blank kept (RemoveChars.EvaluateBlank)."""
    return exp.Case(ifs=[exp.If(this=_white_space_only(r, r.value(0)), true=_EMPTY.copy())],
                    default=value)


def _utf16_problem(dialect: Dialect) -> str | None:
    return None if dialect.utf16_length(exp.Null()) is not None else _NO_UTF16


_NUMERIC_FUNCTIONS: dict[str, Operation] = {
    "absolute": Operation("number", "number", _unary(exp.Abs)),
    "ceiling": Operation("number", "number", _unary(exp.Ceil)),
    "floor": Operation("number", "number", _unary(exp.Floor)),
    "sign": Operation("number", "number", _unary(exp.Sign)),
    "increment": Operation("number", "number",
                           lambda r, v: exp.Add(this=paren(v), expression=exp.Literal.number(1))),
    "decrement": Operation("number", "number",
                           lambda r, v: exp.Sub(this=paren(v), expression=exp.Literal.number(1))),
    "oppose": Operation("number", "number", lambda r, v: exp.Neg(this=paren(v))),
    "add": Operation("number", "number",
                     lambda r, v: exp.Add(this=paren(v), expression=paren(_times(r))),
                     ("number", "number?")),
    "subtract": Operation("number", "number",
                          lambda r, v: exp.Sub(this=paren(v), expression=paren(_times(r))),
                          ("number", "number?")),
    "multiply": Operation("number", "number",
                          lambda r, v: exp.Mul(this=paren(v), expression=paren(r.value(0))), ("number",)),
    "square-power": Operation("number", "number",
                              lambda r, v: exp.Mul(this=paren(v), expression=paren(v))),
    "cube-power": Operation("number", "number", lambda r, v: exp.Mul(
        this=exp.Mul(this=paren(v), expression=paren(v)), expression=paren(v))),
    "null-to-zero": Operation("number", "number", lambda r, v: exp.Coalesce(
        this=v, expressions=[exp.Literal.number(0)])),
    "clip": Operation("number", "number", lambda r, v: exp.Case(ifs=[
        exp.If(this=exp.LT(this=v, expression=r.value(0)), true=r.value(0)),
        exp.If(this=exp.GT(this=v, expression=r.value(1)), true=r.value(1)),
    ], default=v), ("number", "number")),
    "round": Operation("number", "number",
                       lambda r, v: _half_even(v, r.digits(0, ROUND_DIGITS)), ("integer",),
                       per_dialect=True, problem=lambda d: d.decimal_rounding_problem()),
    "integer": Operation("number", "number", lambda r, v: _half_even(v, 0),
                         per_dialect=True, problem=lambda d: d.decimal_rounding_problem()),
}

_TEXT_FUNCTIONS: dict[str, Operation] = {
    "length": Operation("text", "number", _on_blank(lambda r, v: exp.Coalesce(
        this=r.dialect.utf16_length(v), expressions=[exp.Literal.number(0)]),
        lambda r, v: exp.Null(), empty_differs=True), per_dialect=True, problem=_utf16_problem),
    "null-to-empty": Operation("text", "text", lambda r, v: exp.Coalesce(
        this=v, expressions=[_EMPTY.copy()])),
    "empty-to-null": Operation("text", "text", lambda r, v: exp.Case(ifs=[exp.If(
        this=exp.EQ(this=r.dialect.char_length(v), expression=exp.Literal.number(0)),
        true=exp.Null())], default=v)),
    "lower": Operation("text", "text", _invariant_case(upper=False), per_dialect=True,
                       problem=lambda d: d.case_mapping_problem(upper=False)),
    "upper": Operation("text", "text", _invariant_case(upper=True), per_dialect=True,
                       problem=lambda d: d.case_mapping_problem(upper=True)),
    "trim": Operation("text", "text", lambda r, v: trimmed(r.dialect, v), per_dialect=True,
        problem=lambda d: d.trim_set_problem()),
    "without-whitespaces": Operation("text", "text", lambda r, v: remove_all(
        r.dialect, v, WHITESPACE)),
    "whitespaces-to-empty": Operation("text", "text", lambda r, v: exp.Case(ifs=[exp.If(
        this=blank(r, v), true=_EMPTY.copy())], default=v)),
    "whitespaces-to-null": Operation("text", "text", lambda r, v: exp.Case(ifs=[exp.If(
        this=blank(r, v), true=exp.Null())], default=v)),
    # A blank (white space only) is read as nothing before the appended text.
    "append": Operation("text", "text", _on_blank(lambda r, v: _concat(
        _or_empty(v), _or_empty(r.value(0))), _argument_or_empty), ("text",)),
    "prepend": Operation("text", "text", _on_blank(lambda r, v: _concat(
        _or_empty(r.value(0)), _or_empty(v)), _argument_or_empty), ("text",)),
    "suffix": Operation("text", "text", _on_blank(lambda r, v: _concat(
        v, _or_empty(r.value(0))), _argument_or_empty), ("text",)),
    "prefix": Operation("text", "text", _on_blank(lambda r, v: _concat(
        _or_empty(r.value(0)), v), _argument_or_empty), ("text",)),
    "append-space": Operation("text", "text", _on_blank(lambda r, v: _concat(
        _or_empty(v), _SPACE.copy()), lambda r, v: _SPACE.copy())),
    "prepend-space": Operation("text", "text", _on_blank(lambda r, v: _concat(
        _SPACE.copy(), _or_empty(v)), lambda r, v: _SPACE.copy())),
    "suffix-space": Operation("text", "text", _on_blank(lambda r, v: _concat(
        v, _SPACE.copy()), lambda r, v: _SPACE.copy())),
    "prefix-space": Operation("text", "text", _on_blank(lambda r, v: _concat(
        _SPACE.copy(), v), lambda r, v: _SPACE.copy())),
    # A blank stays blank, however many characters are taken, skipped or replaced.
    "first-chars": Operation("text", "text", _on_blank(lambda r, v: exp.Substring(
        this=v, start=exp.Literal.number(1), length=r.value(0))), ("integer",)),
    "last-chars": Operation("text", "text", _on_blank(_last_chars), ("integer",)),
    "skip-first-chars": Operation("text", "text", _on_blank(lambda r, v: exp.Substring(
        this=v, start=exp.Add(this=paren(r.value(0)), expression=exp.Literal.number(1)))),
        ("integer",)),
    "skip-last-chars": Operation("text", "text", _on_blank(_skip_last_chars), ("integer",)),
    "remove-chars": Operation("text", "text", _on_blank(lambda r, v: exp.func(
        "REPLACE", v, r.value(0), _EMPTY.copy()), _removed_blank), ("text",)),
    "replace-chars": Operation("text", "text", _on_blank(lambda r, v: exp.func(
        "REPLACE", v, r.value(0), r.value(1))), ("text", "text")),
    "count-substring": Operation("text", "number", _on_blank(
        _count_substring, _no_count, empty_differs=True), ("text",)),
    "pad-left": Operation("text", "text", _pad("left"), ("integer", "text"), per_dialect=True,
                          problem=_utf16_problem),
    "pad-right": Operation("text", "text", _pad("right"), ("integer", "text"), per_dialect=True,
                           problem=_utf16_problem),
    "pad-center": Operation("text", "text", _pad("center"), ("integer", "text"),
                            per_dialect=True, problem=_utf16_problem),
    "text-to-mask": Operation("text", "text", _text_to_mask, ("text",)),
    "mask-to-text": Operation("text", "text", _mask_to_text, ("text",), per_dialect=True),
}

_TEMPORAL_FUNCTIONS: dict[str, Operation] = {
    "year": Operation("temporal", "number", _unary(exp.Year), problem=no_temporal),
    "month-of-year": Operation("temporal", "number", _unary(exp.Month), problem=no_temporal),
    "day-of-month": Operation("temporal", "number", _unary(exp.Day), problem=no_temporal),
    "datetime-to-date": Operation("temporal", "temporal", lambda r, v: exp.cast(
        v, data_type("DATE")), problem=no_temporal),
}

_SPECIAL_FUNCTIONS: dict[str, Operation] = {
    "neutral": Operation("any", "same", lambda r, v: v),
    # The first argument that is not NULL, the arguments read against the row (`[field]`)
    # and not the piped value; at least two, all of one family.
    "coalesce": Operation("nothing", "arguments", lambda r, v: exp.Coalesce(
        this=r.value(0), expressions=[r.value(i) for i in range(1, len(r.arguments))]),
        ("value", "value", "value*")),
}

FUNCTIONS: dict[str, Operation] = {**_NUMERIC_FUNCTIONS, **_TEXT_FUNCTIONS,
                                   **_TEMPORAL_FUNCTIONS, **_SPECIAL_FUNCTIONS}


def _count(r: Rendering, v: exp.Expr) -> exp.Expr:
    return exp.Count(this=exp.Star())


ACCUMULATORS: dict[str, Operation] = {
    "count": Operation("any", "number", _count),
    "sum": Operation("number", "number", lambda r, v: exp.Sum(this=v)),
    "min": Operation("any", "same", lambda r, v: exp.Min(this=v)),
    "max": Operation("any", "same", lambda r, v: exp.Max(this=v)),
    "any": Operation("boolean", "boolean", lambda r, v: exp.GT(
        this=exp.Count(this=exp.Case(ifs=[exp.If(this=as_boolean(v), true=exp.Literal.number(1))])),
        expression=exp.Literal.number(0))),
    "every": Operation("boolean", "boolean", lambda r, v: exp.EQ(
        this=exp.Count(this=exp.Case(ifs=[exp.If(this=exp.Not(this=as_boolean(v)),
                                                 true=exp.Literal.number(1))])),
        expression=exp.Literal.number(0))),
}

"""Exact scalars: every number the engine compares is a Fraction, never a float.

Drivers return ints, Decimals and floats depending on the engine and the aggregate; contract
operands arrive as ints, Decimals or numeric strings. Both go through here, in one place.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

_NUMERIC_TEXT = re.compile(r"^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$")
DISPLAY_PLACES = 6
#: Numbers with more significant digits, or a decimal exponent beyond ±this, are refused: no
#: engine stores them, and exact arithmetic on `1e999999999` (a billion digits) never ends.
MAX_DIGITS = 1000
_MAX_BITS = 3322  # 2**3322 ≈ 10**1000


#: What a measurement needs: DECIMAL(38)'s digits and a double's exponents (denormals
#: included). A driver value beyond them is not a measurement but could carry rows out (an
#: authored rule can pack a table's text into one huge number), so it is refused unread.
MEASURE_DIGITS = 38
MEASURE_EXPONENT = 324
_MEASURE_BITS = 1080  # 2**1080 > 10**325: an int this long is refused before it is read


class NotExact(ValueError):
    """The value is not a finite number (or boolean, where allowed)."""


class OutOfRange(NotExact):
    """A finite number with more digits or a larger exponent than any measurement has."""


def beyond_limits(number: int | Decimal) -> bool:
    """More than MAX_DIGITS significant digits or an exponent beyond ±MAX_DIGITS."""
    if isinstance(number, int):
        return number.bit_length() > _MAX_BITS
    if not number.is_finite() or not number:
        return False
    return len(number.as_tuple().digits) > MAX_DIGITS or abs(number.adjusted()) > MAX_DIGITS


def exact_number(value: object, *, allow_text: bool) -> Fraction:
    """A finite number as a Fraction; booleans, NaN, infinities, numbers beyond MAX_DIGITS and
    other text are refused."""
    if isinstance(value, bool):
        raise NotExact("boolean")
    if isinstance(value, int | Decimal) and beyond_limits(value):
        raise NotExact(f"more than {MAX_DIGITS} digits")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise NotExact("not finite")
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotExact("not finite")
        return Fraction(Decimal(repr(value)))
    if isinstance(value, str) and allow_text and _NUMERIC_TEXT.match(value):
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            raise NotExact("not a number") from None
        return exact_number(number, allow_text=False)
    raise NotExact("not a number")


def measured_value(value: object) -> Fraction | bool:
    """A driver's cell as an exact measurement. Floats keep their shortest decimal reading.
    Raises OutOfRange beyond MEASURE_DIGITS significant digits or a decimal exponent beyond
    ±MEASURE_EXPONENT, so that no report or evidence can hold such a number."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value.bit_length() > _MEASURE_BITS:
        raise OutOfRange("too many digits")
    if isinstance(value, int | float | Decimal) and _beyond_measure(value):
        raise OutOfRange("too many digits")
    return exact_number(value, allow_text=False)


def not_exact_code(refused: NotExact) -> str:
    """The diagnostic of a driver value that is no measurement."""
    return "value-out-of-range" if isinstance(refused, OutOfRange) else "not-a-number"


def _beyond_measure(number: int | float | Decimal) -> bool:
    """More significant digits (trailing zeros aside) or a larger exponent than measures have."""
    if isinstance(number, float):
        if not math.isfinite(number) or not number:
            return False
        number = Decimal(repr(number))
    elif isinstance(number, int):
        number = Decimal(number)
    if not number.is_finite() or not number:
        return False
    significant = len("".join(map(str, number.as_tuple().digits)).rstrip("0"))
    return significant > MEASURE_DIGITS or abs(number.adjusted()) > MEASURE_EXPONENT


def truth_value(value: Fraction | bool, *, boolean_valued: bool,
                wants_boolean: bool) -> Fraction | bool:
    """An integer 0/1 read as the boolean it stands for, only when the engine reported the
    column as a boolean expression (it has no boolean result type) and the rule expects a
    boolean; any other integer, e.g. a COUNT(*) of 1, stays a number."""
    if boolean_valued and wants_boolean and not isinstance(value, bool) and value in (0, 1):
        return value == 1
    return value


def to_decimal(value: Fraction) -> Decimal:
    """Exact when the fraction terminates in base ten, else rounded (for display only)."""
    if value.denominator == 1:
        return Decimal(value.numerator)
    twos = fives = 0
    rest = value.denominator
    while rest % 2 == 0:
        rest, twos = rest // 2, twos + 1
    while rest % 5 == 0:
        rest, fives = rest // 5, fives + 1
    if rest == 1:
        places = max(twos, fives)
        return _scaled(value.numerator * (10**places // value.denominator), places)
    return _scaled(round(value * 10**DISPLAY_PLACES), DISPLAY_PLACES)


def _scaled(integer: int, places: int) -> Decimal:
    """`integer * 10**-places` built from its digits: `Decimal.scaleb` would round it to the
    default context's 28 significant digits (99999999999999999999.999999999999999999 became
    100000000000000000000.0000000)."""
    digits = tuple(int(d) for d in str(abs(integer)))
    return Decimal((1 if integer < 0 else 0, digits, -places))


def format_value(value: Fraction | bool) -> str:
    """The text users see and JSON carries: plain notation, no exponent, no float noise."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return format(to_decimal(value), "f")

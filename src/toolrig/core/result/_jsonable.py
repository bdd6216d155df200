"""Any Python value as JSON data, totally: the conversion never raises and its result always
serialises.

Tool outputs are arbitrary objects, and every rendering of a result (``to_dict``, ``to_json``,
``to_text``, the log) goes through :func:`to_jsonable`. Its result holds only ``dict`` (with
``str`` keys), ``list``, ``str``, ``int``, finite ``float``, ``bool`` and ``None``, so
``json.dumps(..., allow_nan=False)`` accepts it and its text encodes as UTF-8. What JSON cannot
carry is shown, not dropped:

* ``NaN``, ``Infinity``, ``-Infinity`` become the strings ``"NaN"``, ``"Infinity"``,
  ``"-Infinity"``;
* integers longer than Python's int-to-text limit (4,300 digits, which ``json`` and ``repr``
  obey) become a string of their digits, or past :data:`MAX_EXACT_DIGITS` digits
  ``"<integer of about N digits, ending ...>"`` (exact text of such numbers costs seconds);
* text with lone surrogates (``"\\ud800"``, not encodable as UTF-8) has them replaced by U+FFFD;
* ``bytes`` become their text when they are valid UTF-8, else ``"<N bytes>"``;
* a container met again inside itself becomes ``"<cycle>"``, data nested deeper than
  :data:`MAX_DEPTH` levels ``"<nested too deeply>"``;
* other objects are converted as pydantic converts them (models, dataclasses, dates, enums,
  decimals, paths...), else shown by their ``repr`` (``"<Name object>"`` when ``repr`` fails),
  cut to :data:`MAX_REPR` characters.
"""

from __future__ import annotations

import decimal
import math
import re
from collections.abc import Mapping
from typing import Any, Final

from pydantic_core import to_jsonable_python

__all__ = [
    "MAX_DEPTH",
    "MAX_EXACT_DIGITS",
    "MAX_REPR",
    "clean_text",
    "int_text",
    "safe_repr",
    "to_jsonable",
]

MAX_DEPTH: Final = 100
"""Levels of nesting kept; ``json`` itself gives up near 1,000, and no tool output needs more."""
MAX_EXACT_DIGITS: Final = 10_000
"""Integers up to this many digits are written out exactly (about 2 ms for the longest)."""
MAX_REPR: Final = 2_000
"""Characters kept of an object shown by its ``repr``."""

_SAFE_INT_BITS: Final = 14_000  # under 4,300 decimal digits: str() always works
_EXACT_BITS: Final = 33_000  # about MAX_EXACT_DIGITS decimal digits
_SURROGATE = re.compile("[\ud800-\udfff]")
_CYCLE: Final = "<cycle>"
_TOO_DEEP: Final = "<nested too deeply>"


def to_jsonable(value: Any) -> Any:
    """``value`` as JSON-native data (see the module's rules); never raises."""
    try:
        return _convert(value, 0, set())
    except RecursionError:  # called with the stack already nearly full
        return _TOO_DEEP


def clean_text(text: str) -> str:
    """``text`` as a plain ``str`` that encodes as UTF-8 (lone surrogates -> U+FFFD)."""
    text = str.__str__(text)
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub("\ufffd", text)


def int_text(number: int, *, exact: bool = True) -> str:
    """Decimal text of ``number``, also past Python's 4,300-digit limit (exactly up to
    :data:`MAX_EXACT_DIGITS` digits when ``exact``, else an approximate description)."""
    number = int.__int__(number)
    bits = number.bit_length()
    if bits <= _SAFE_INT_BITS:
        return str(number)
    if exact and bits <= _EXACT_BITS:
        return str(decimal.Decimal(number))
    digits = int(bits * math.log10(2)) + 1
    tail = str(abs(number) % 10**10).rjust(10, "0")
    sign = "negative " if number < 0 else ""
    return f"<{sign}integer of about {digits} digits, ending ...{tail}>"


def safe_repr(value: Any) -> str:
    """``repr(value)``, cut to :data:`MAX_REPR` characters; ``<Name object>`` if it fails."""
    try:
        text = repr(value)
        if not isinstance(text, str):
            raise TypeError("__repr__ returned a non-string")
    except Exception:
        return f"<{_type_name(value)} object>"
    if len(text) > MAX_REPR:
        text = text[:MAX_REPR] + f"... [{len(text) - MAX_REPR} characters cut]"
    return clean_text(text)


def _type_name(value: Any) -> str:
    name = getattr(type(value), "__name__", "")
    return clean_text(name) if isinstance(name, str) and name else "unknown"


def _convert(value: Any, depth: int, active: set[int]) -> Any:
    kind = type(value)
    if value is None or kind is bool:
        return value
    if kind is str:
        return clean_text(value)
    if kind is int:
        return value if value.bit_length() <= _SAFE_INT_BITS else int_text(value)
    if kind is float:
        return value if math.isfinite(value) else _non_finite(value)
    if depth >= MAX_DEPTH:
        return _TOO_DEEP
    if isinstance(value, dict | Mapping):
        return _container(value, depth, active, _mapping)
    if isinstance(value, list | tuple | set | frozenset):
        return _container(value, depth, active, _sequence)
    return _other(value, depth, active)


def _container(value: Any, depth: int, active: set[int], convert: Any) -> Any:
    key = id(value)
    if key in active:
        return _CYCLE
    active.add(key)
    try:
        return convert(value, depth, active)
    except Exception:  # a mapping whose iteration or item access fails
        return safe_repr(value)
    finally:
        active.discard(key)


def _mapping(value: Mapping[Any, Any], depth: int, active: set[int]) -> dict[str, Any]:
    return {_key(k): _convert(v, depth + 1, active) for k, v in value.items()}


def _sequence(value: Any, depth: int, active: set[int]) -> list[Any]:
    return [_convert(v, depth + 1, active) for v in value]


def _key(key: Any) -> str:
    """A mapping key as JSON object keys are: text (``json`` writes ``1`` as ``"1"``)."""
    if isinstance(key, str):
        return clean_text(key)
    if key is None or isinstance(key, bool):
        return "null" if key is None else ("true" if key else "false")
    if isinstance(key, int):
        return int_text(key)
    if isinstance(key, float):
        return repr(float(key)) if math.isfinite(key) else _non_finite(key)
    return safe_repr(key)


def _non_finite(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def _other(value: Any, depth: int, active: set[int]) -> Any:
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):  # int subclasses, IntEnum members among them
        return _convert(int.__int__(value), depth, active)
    if isinstance(value, float):
        return _convert(float.__float__(value), depth, active)
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return _bytes(value)
    key = id(value)
    if key in active:
        return _CYCLE
    active.add(key)
    try:
        converted = to_jsonable_python(value, fallback=safe_repr, serialize_unknown=False)
    except Exception:  # cycles, depth, bytes that are not UTF-8, a failing serialiser
        return safe_repr(value)
    finally:
        active.discard(key)
    # pydantic's result is JSON-native, but may still hold NaN, huge ints or surrogates
    return _convert(converted, depth, active) if converted is not value else safe_repr(value)


def _bytes(value: bytes | bytearray | memoryview) -> str:
    try:
        return clean_text(bytes(value).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, TypeError):
        return f"<{len(value)} bytes>"

"""Is a value JSON data a validator may read, and if not, where and why not.

Arguments come from JSON text, but also straight from Python callers, so they may hold what JSON
has no word for: ``NaN``, sets, dates, ``bytes``, text with lone surrogates, keys that are not
strings, or nesting so deep that a recursive validator would exhaust its stack (jsonschema-rs
crashes the process on a list nested 100,000 deep under a recursive schema; it reads ``NaN`` as
``null``). jsonschema-rs also misreads two values of JSON's own: text with a lone surrogate
(measured against ``maxLength`` as if repaired) and integers longer than Python's int-to-text
limit (4,300 digits by default: it reads numbers through ``str()``, which raises, and the number
then passes ``minimum`` and ``maximum``). `plain` is the check every validation pays (a
loop over the values, only descending into containers); `data_problems` explains a
failure, within a budget.
"""

from __future__ import annotations

import functools
import json
import math
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Final

from toolrig.core.result._preview import json_type_of, preview

__all__ = [
    "ABSENT",
    "MAX_DATA_DEPTH",
    "DataProblem",
    "data_problems",
    "loads_json",
    "plain",
    "readable_int",
    "value_at",
]

MAX_DATA_DEPTH: Final = 256
"""Levels of nesting accepted in arguments (JSON from models rarely goes past 10)."""
_SCAN_BUDGET: Final = 100_000
"""Values a walk of the arguments looks at; more is refused as too large, never let through."""
_LOW: Final = -(2**63)
_HIGH: Final = 2**63

DataProblem = tuple[tuple[str | int, ...], str, str]
"""``(location, problem code, text)``."""


def plain(value: Any) -> bool:
    """True when ``value`` holds no ``NaN``/``Infinity``, no text with a lone surrogate, no
    integer past Python's int-to-text limit, nothing but JSON types (tuples count as arrays),
    and is nested at most `MAX_DATA_DEPTH` deep."""
    if type(value) is dict:  # arguments: most often flat, so look at the values here first
        for key, item in value.items():
            if type(key) is not str or not (key.isascii() or not _broken(key)):
                return False
            kind = type(item)
            if kind is str:
                if item.isascii() or not _broken(item):
                    continue
                return False
            if kind is int:
                if _LOW <= item < _HIGH or readable_int(item):
                    continue
                return False
            if kind is float:
                if item - item == 0.0:  # finite: inf - inf and nan - nan are nan
                    continue
                return False
            if kind is not bool and item is not None:
                break
        else:
            return True
    if isinstance(value, dict | list | tuple):
        try:
            return _plain(value, 1)
        except RecursionError:
            return False
    return _plain_scalar(value)


def _plain(value: Any, depth: int) -> bool:
    # The check every valid call pays: exact type tests first, in the order arguments hold them.
    if depth > MAX_DATA_DEPTH:
        return False
    if isinstance(value, dict):
        for key in value:
            if type(key) is not str or not (key.isascii() or not _broken(key)):
                return False
        value = value.values()
    for item in value:
        kind = type(item)
        if kind is str:
            if item.isascii() or not _broken(item):
                continue
            return False
        if kind is int:
            if _LOW <= item < _HIGH or readable_int(item):
                continue
            return False
        if kind is float:
            if item - item == 0.0:  # finite: inf - inf and nan - nan are nan
                continue
            return False
        if kind is bool or item is None:
            continue
        if kind is dict or kind is list or kind is tuple or isinstance(item, dict | list | tuple):
            if not _plain(item, depth + 1):
                return False
        elif not _plain_scalar(item):
            return False
    return True


def _plain_scalar(item: Any) -> bool:
    if isinstance(item, str):
        return item.isascii() or not _broken(item)
    if item is None or isinstance(item, bool):
        return True
    if isinstance(item, int):
        return _LOW <= item < _HIGH or readable_int(item)
    if isinstance(item, float):
        return math.isfinite(item)
    return False  # an object JSON has no word for (a schema like `{}` would let it pass)


def readable_int(number: int) -> bool:
    """Whether ``number`` is within Python's int-to-text limit (``sys.get_int_max_str_digits``,
    4,300 digits by default), past which ``str()`` raises and a JSON text cannot be decoded."""
    limit = sys.get_int_max_str_digits()
    return limit == 0 or -_power_of_ten(limit) < number < _power_of_ten(limit)


@functools.lru_cache(maxsize=4)
def _power_of_ten(digits: int) -> int:
    return int(10**digits)


def data_problems(value: Any, limit: int = 20, *, long_ints: bool = False) -> list[DataProblem]:
    """What in ``value`` is not JSON data, up to ``limit`` problems (a bounded walk).
    ``long_ints``: integers past Python's int-to-text limit are fine (pydantic-core reads them
    exactly; jsonschema-rs does not, so its callers leave this false)."""
    problems: list[DataProblem] = []
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    seen = 0
    while stack and len(problems) < limit and seen < _SCAN_BUDGET:
        item, loc = stack.pop()
        seen += 1
        if len(loc) > MAX_DATA_DEPTH:
            problems.append(
                (loc, "too_deep", f"nested deeper than {MAX_DATA_DEPTH} levels; send flatter data")
            )
            continue
        problem = _scalar_problem(item, long_ints)
        if problem is not None:
            problems.append((loc, *problem))
        elif isinstance(item, Mapping):
            children = []
            try:
                pairs = list(item.items())
            except Exception:
                problems.append((loc, "unreadable", "an object that could not be read"))
                continue
            for key, child in pairs:
                if not isinstance(key, str):
                    problems.append(
                        (loc, "key_type", f"object keys must be strings, got {preview(key, 40)}")
                    )
                    continue
                if _broken(key):
                    problems.append((loc, "unicode", "a key is not valid Unicode text"))
                    continue
                children.append((child, (*loc, key)))
            stack.extend(reversed(children))
        elif isinstance(item, list | tuple):
            stack.extend((child, (*loc, i)) for i, child in reversed(list(enumerate(item))))
    if stack and not problems and seen >= _SCAN_BUDGET:  # a limit refuses; it never stops looking
        problems.append(
            (
                (),
                "too_large",
                f"more than {_SCAN_BUDGET:,} values in one call; send less data per call",
            )
        )
    return problems


def _scalar_problem(item: Any, long_ints: bool) -> tuple[str, str] | None:
    if item is None or isinstance(item, bool):
        return None
    if isinstance(item, int):
        if long_ints or readable_int(item):
            return None
        digits = int(item.bit_length() * 0.30103) + 1
        return (
            "too_long",
            f"an integer of about {digits:,} digits is past the {sys.get_int_max_str_digits():,}"
            " digits a number may have here; send a smaller number",
        )
    if isinstance(item, float):
        if math.isfinite(item):
            return None
        return "not_finite", f"{item!r} is not a JSON number; send a finite number"
    if isinstance(item, str):
        if _broken(item):
            return "unicode", "text with an unpaired surrogate is not valid Unicode"
        return None
    if isinstance(item, Mapping | list | tuple):
        return None
    kind = json_type_of(item)
    advice = "an array" if isinstance(item, set | frozenset) else "JSON data"
    return "not_json", f"a {kind} value is not JSON data; send {advice}"


def _broken(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (the one reason UTF-8 encoding fails)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


ABSENT: Final = object()
"""What `value_at` returns where nothing is."""


def value_at(value: Any, loc: Sequence[str | int]) -> Any:
    """The part of ``value`` at ``loc`` (keys of objects, indexes of arrays), or
    `ABSENT`."""
    for part in loc:
        if isinstance(value, Mapping):
            if not isinstance(part, str) or part not in value:
                return ABSENT
        elif isinstance(value, list | tuple):
            if not isinstance(part, int) or not 0 <= part < len(value):
                return ABSENT
        else:
            return ABSENT
        value = value[part]
    return value


def loads_json(text: str) -> Any:
    """``json.loads`` that refuses ``NaN``/``Infinity`` and turns a nesting too deep for the
    decoder into `ValueError` (so one ``except ValueError`` covers every bad text)."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ValueError("JSON text nested too deeply") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")

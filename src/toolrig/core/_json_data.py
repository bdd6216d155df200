"""Is a value JSON data a validator may read, and if not, where and why not.

Arguments come from JSON text, but also straight from Python callers, so they may hold what JSON
has no word for: ``NaN``, sets, dates, ``bytes``, text with lone surrogates, keys that are not
strings, or nesting so deep that a recursive validator would exhaust its stack (jsonschema-rs
crashes the process on a list nested 100,000 deep under a recursive schema; it reads ``NaN`` as
``null``). :func:`plain` is the check every validation pays (a loop over the values, only
descending into containers); :func:`data_problems` explains a failure, within a budget.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from toolrig.core._jsonable import clean_text
from toolrig.core._preview import json_type_of, preview

__all__ = [
    "ABSENT",
    "MAX_DATA_DEPTH",
    "DataProblem",
    "data_problems",
    "loads_json",
    "plain",
    "value_at",
]

MAX_DATA_DEPTH: Final = 256
"""Levels of nesting accepted in arguments (JSON from models rarely goes past 10)."""
_SCAN_BUDGET: Final = 100_000
_SCALARS: Final = (str, int, bool, type(None))

DataProblem = tuple[tuple[str | int, ...], str, str]
"""``(location, problem code, text)``."""


def plain(value: Any) -> bool:
    """True when ``value`` holds no ``NaN``/``Infinity`` and is nested at most
    :data:`MAX_DATA_DEPTH` deep. Types the validator cannot read make it raise instead."""
    if type(value) is dict:  # arguments: most often flat, so look at the values here first
        for item in value.values():
            if type(item) not in _SCALARS:
                break
        else:
            return True
    if isinstance(value, dict | list | tuple):
        try:
            return _plain(value, 1)
        except RecursionError:
            return False
    return not isinstance(value, float) or math.isfinite(value)


def _plain(value: Any, depth: int) -> bool:
    if depth > MAX_DATA_DEPTH:
        return False
    for item in value.values() if isinstance(value, dict) else value:
        kind = type(item)
        if kind in _SCALARS:
            continue
        if kind is dict or kind is list or kind is tuple:
            if not _plain(item, depth + 1):
                return False
        elif isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif isinstance(item, dict | list | tuple) and not _plain(item, depth + 1):
            return False
    return True


def data_problems(value: Any, limit: int = 20) -> list[DataProblem]:
    """What in ``value`` is not JSON data, up to ``limit`` problems (a bounded walk)."""
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
        problem = _scalar_problem(item)
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
    return problems


def _scalar_problem(item: Any) -> tuple[str, str] | None:
    if item is None or isinstance(item, bool | int):
        return None
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
    return not text.isascii() and clean_text(text) != text


ABSENT: Final = object()
"""What :func:`value_at` returns where nothing is."""


def value_at(value: Any, loc: Sequence[str | int]) -> Any:
    """The part of ``value`` at ``loc`` (keys of objects, indexes of arrays), or
    :data:`ABSENT`."""
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
    decoder into :class:`ValueError` (so one ``except ValueError`` covers every bad text)."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ValueError("JSON text nested too deeply") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")

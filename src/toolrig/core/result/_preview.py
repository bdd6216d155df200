"""A short, safe rendering of a value a model sent, for error messages.

Error messages quote what was received (``"huge" (string)``). The value is whatever the caller
passed: a list nested thousands deep, a 5,000-digit integer, text with lone surrogates, an object
whose ``repr`` raises. :func:`preview` stops writing once it has :data:`PREVIEW_CHARS`
characters, so its cost is bounded whatever the value's size, and it never raises.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any, Final

from toolrig.core.result._jsonable import clean_text, int_text, safe_repr

__all__ = ["PREVIEW_CHARS", "json_type_of", "preview", "shown"]

PREVIEW_CHARS: Final = 80
_MAX_LEVELS: Final = 16


def json_type_of(value: Any) -> str:
    """The JSON Schema type name of a Python value (its class name when it has none)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    try:
        return clean_text(type(value).__name__)
    except Exception:
        return "object"


def preview(value: Any, limit: int = PREVIEW_CHARS) -> str:
    """Compact JSON-like text of ``value``, at most ``limit`` characters (``...`` when cut)."""
    out: list[str] = []
    size = 0
    try:
        for piece in _pieces(value, 0, limit):
            out.append(piece)
            size += len(piece)
            if size > limit:
                break
    except Exception:  # a container that fails while iterated: show what was written
        out.append("...")
    text = "".join(out)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def shown(value: Any) -> str:
    """:func:`preview` followed by the value's JSON type: ``"abc" (string)``."""
    return f"{preview(value)} ({json_type_of(value)})"


def _pieces(value: Any, level: int, limit: int) -> Iterator[str]:
    if value is None or isinstance(value, bool):
        yield json.dumps(value)
    elif isinstance(value, int):
        yield _int(value)
    elif isinstance(value, float):
        yield repr(float(value)) if math.isfinite(value) else repr(value)
    elif isinstance(value, str):
        yield json.dumps(clean_text(value[: limit + 1]), ensure_ascii=False)
    elif level >= _MAX_LEVELS:
        yield "..."
    elif isinstance(value, Mapping):
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield (", " if i else "") + (
                json.dumps(clean_text(key[:limit]), ensure_ascii=False)
                if isinstance(key, str)
                else safe_repr(key)[:limit]
            )
            yield ": "
            yield from _pieces(item, level + 1, limit)
        yield "}"
    elif isinstance(value, list | tuple | set | frozenset):
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ", "
            yield from _pieces(item, level + 1, limit)
        yield "]"
    else:
        yield safe_repr(value)[: limit + 1]


def _int(value: int) -> str:
    value = int.__int__(value)
    if value.bit_length() <= 256:
        return str(value)
    return int_text(value, exact=False) if value.bit_length() > 14_000 else _long(value)


def _long(value: int) -> str:
    text = str(value)
    return f"{text[:20]}...({len(text)} digits)"

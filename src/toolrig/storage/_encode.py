"""Values as the execution log stores them: total encodings that never raise.

Inputs and outputs become JSON text through the core's
`to_jsonable` (NaN, huge integers, lone surrogates, bytes,
cycles and deep nesting are shown, not refused, as it documents), cut past
`MAX_STORED_CHARS` with a visible marker. Text columns are made storable everywhere: lone
surrogates (not encodable as UTF-8) and NUL characters (which PostgreSQL text refuses) become
U+FFFD. Numbers that no column can hold become ``None``."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from toolrig.core.result._jsonable import safe_repr, to_jsonable

__all__ = ["MAX_STORED_CHARS", "dump_json", "load_json", "storable_number", "storable_text"]

MAX_STORED_CHARS = 1_000_000
"""Inputs and outputs longer than this (as JSON text) are stored cut, with a marker."""

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def dump_json(value: Any) -> str | None:
    """JSON text for storage (``None`` stays ``None``); very long values are cut with a marker."""
    if value is None:
        return None
    text = json.dumps(
        to_jsonable(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    if len(text) > MAX_STORED_CHARS:
        cut = len(text) - MAX_STORED_CHARS
        return json.dumps(
            {"__truncated__": True, "chars_cut": cut, "head": text[:MAX_STORED_CHARS]},
            ensure_ascii=False,
        )
    return text


def load_json(text: Any) -> Any:
    """Inverse of `dump_json` (backends may hand back decoded JSON already)."""
    if text is None or not isinstance(text, str | bytes):
        return text
    return json.loads(text)


def as_written(text: str) -> str:
    """``text`` as every backend stores it: NUL and lone surrogates as U+FFFD (also how a key
    is sent to be looked up, so it finds what was written under it)."""
    if text.isascii() and "\x00" not in text:
        return text
    return _UNSTORABLE.sub("\ufffd", text)


def storable_text(value: Any) -> str | None:
    """``value`` as text every backend stores (``None`` stays ``None``)."""
    if value is None:
        return None
    return as_written(str.__str__(value) if isinstance(value, str) else safe_repr(value))


def storable_number(value: Any) -> float | None:
    """``value`` as a finite float, or ``None`` when it is none or cannot be one."""
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None

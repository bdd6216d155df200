"""Splitting a request that asks for several things into its parts.

"What's the weather in Oslo tomorrow, and can you find news about the election?" needs two
tools; ranked as a whole, the part with the stronger words pushes the other tool down the list.
Search also ranks each part on its own and lets a tool count its best part (see
`ToolIndex`). Parts are cut at sentence ends and at joining words ("and",
"also", "additionally", "then", ...); a fragment under three words joins the next part, and a
request that does not split keeps one part (itself).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["request_parts"]

_MAX_PARTS: Final = 8
"""Parts ranked on their own, at most; on BFCL's many-part questions (dev slice) 8 found
3 points more of the tools asked for than 4."""
_MIN_WORDS: Final = 3
_MAX_CHARS: Final = 2_000

_JOINERS: Final = r"and then|and also|and|also|additionally|as well as|plus|then|while|besides"
_STARTERS: Final = (
    r"can|could|would|will|please|what|how|where|which|who|tell|find|show|give|recommend|"
    r"suggest|get|check|i"
)
_SPLIT: Final = re.compile(
    rf"(?<=[.?!;])\s+(?:(?:{_JOINERS})\b,?\s*)?"
    rf"|,?\s+\b(?:{_JOINERS})\b\s*"
    rf"|,\s+(?=(?:{_STARTERS})\b)",
    re.IGNORECASE,
)
_TRIM: Final = " \t\r\n,.?!;:\"'"


def request_parts(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the parts of ``text``; ``[]`` when it is one part."""
    if len(text) > _MAX_CHARS:
        return []
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SPLIT.finditer(text):
        spans.append(_trimmed(text, start, match.start()))
        start = match.end()
    spans.append(_trimmed(text, start, len(text)))
    parts: list[tuple[int, int]] = []
    opened: int | None = None  # start of a fragment too short to stand alone
    for a, b in spans:
        if a == b:
            continue
        start = a if opened is None else opened
        if len(text[start:b].split()) < _MIN_WORDS:
            opened = start
            continue
        parts.append((start, b))
        opened = None
    if opened is not None and parts:
        parts[-1] = (parts[-1][0], len(text.rstrip(_TRIM)))
    if len(parts) < 2:
        return []
    return parts[:_MAX_PARTS]


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in _TRIM:
        start += 1
    while end > start and text[end - 1] in _TRIM:
        end -= 1
    return start, end

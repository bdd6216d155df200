"""Filling an OpenAPI path template with arguments, so an argument can never change the route.

Every path parameter is percent-encoded whole: ``/``, ``%``, ``?``, ``#`` and also ``.``
(``%2E``), which URL normalisation would otherwise read as a dot segment: with ``..`` for
both parameters, ``/repos/{repo}/branches/{branch}`` became ``DELETE /`` once the HTTP client
removed dot segments. Some servers decode ``%2E%2E`` back to ``..`` before routing, so a
segment that is still empty, ``.`` or ``..`` once decoded is refused instead of sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final
from urllib.parse import quote, unquote

from toolrig.core.model._errors import ErrorCode, ToolError

__all__ = ["encode_segment", "fill_path"]

_ROUTE_CHANGING: Final = frozenset({"", ".", ".."})


def encode_segment(text: str) -> str:
    """``text`` percent-encoded as (part of) one path segment: only letters, digits, ``-``,
    ``_`` and ``~`` stay as they are."""
    return quote(text, safe="").replace(".", "%2E")


def fill_path(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` of ``values`` replaced by its encoded text; a
    :class:`ToolError` (invalid arguments) when a filled segment would still read as an empty,
    ``.`` or ``..`` segment."""
    segments = template.split("/")
    for index, segment in enumerate(segments):
        if "{" not in segment:
            continue
        filled = segment
        used: list[str] = []
        for name, text in values.items():
            marker = f"{{{name}}}"
            if marker in filled:
                filled = filled.replace(marker, encode_segment(text))
                used.append(name)
        if used and unquote(filled) in _ROUTE_CHANGING:
            shown = ", ".join(f"`{n}` = {values[n]!r}" for n in used)
            raise ToolError(
                f"The path parameter {shown} would change which endpoint is called "
                f"(it makes the segment {segment!r} of {template} empty, `.` or `..`).",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="Give the name or id the parameter stands for, not a relative path.",
            )
        segments[index] = filled
    return "/".join(segments)

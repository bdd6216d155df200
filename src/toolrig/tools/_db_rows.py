"""Rows of a query read one at a time, within a row cap and a byte budget checked as they come.

The cap alone bounds nothing when rows are large: ten rows of 16 MB strings are 160 MB. Here
every row is measured as the JSON the caller will receive, and the reading stops, with a clear
error, the moment the sum passes the budget; at most ``cap + 1`` rows are ever asked of the
cursor (the last one only says that there were more).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._sql import jsonable

__all__ = ["bounded_rows"]


def bounded_rows(
    rows: Iterable[Sequence[Any]], *, cap: int, max_bytes: int
) -> tuple[list[list[Any]], bool]:
    """The first ``cap`` rows of ``rows`` made JSON-friendly, and whether there were more;
    a :class:`ToolError` as soon as they add up to more than ``max_bytes`` bytes of JSON."""
    kept: list[list[Any]] = []
    used = 0
    for row in rows:
        if len(kept) == cap:
            return kept, True
        values = [jsonable(v) for v in row]
        used += len(json.dumps(values, ensure_ascii=False, default=str).encode())
        if used > max_bytes:
            raise ToolError(
                f"The result is larger than {max_bytes:,} bytes (the limit) by row "
                f"{len(kept) + 1}; no rows are returned.",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="Select fewer or shorter columns (substr(), length()) or fewer rows "
                "(WHERE, LIMIT).",
            )
        kept.append(values)
    return kept, False

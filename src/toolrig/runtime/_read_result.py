"""``read_result``: the meta-tool that reads a cut result's whole output, part by part.

Read-only and approval-free: it reads only what a handle names (the current run's log, or
the store in memory, see `._kept`), and a handle is an unguessable capability. Its own
output is never cut (``max_result_chars=None``); instead ``length`` may not exceed the
budget in effect, so one part always fits.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import Field

from toolrig.core.define._function_tool import Tool
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.runtime._budget import DEFAULT_RESULT_CHARS, RESULT_BUDGET
from toolrig.runtime._kept import HANDLE_PREFIX, read_kept

__all__ = ["READ_RESULT_TOOL", "read_result"]

READ_RESULT_TOOL: Final = "read_result"


def _read_result(
    handle: Annotated[str, Field(min_length=1, max_length=200)],
    offset: Annotated[int, Field(ge=0)] = 0,
    length: Annotated[int, Field(ge=1)] | None = None,
) -> dict[str, Any]:
    """Read part of a tool result that was cut because it was too long.

    A cut result says its handle and where the cut starts. Read on from there, part by
    part, and only as much as the task needs.

    Args:
        handle: The handle the cut result gives (``res_`` and 24 hex digits).
        offset: The first character to read (0 is the start of the whole output).
        length: How many characters to read at most (left out: as many as one read
            returns, the result budget).
    """
    most = RESULT_BUDGET.get() or DEFAULT_RESULT_CHARS
    if length is None:
        length = most
    elif length > most:
        raise ToolError(
            f"length {length:,} is over the most one read returns ({most:,} characters).",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint=f"Read at most {most:,} characters at a time, from successive offsets.",
        )
    text = read_kept(handle) if handle.startswith(HANDLE_PREFIX) else None
    if text is None:
        raise ToolError(
            f"No result is kept under the handle {handle!r} here.",
            code=ErrorCode.NOT_FOUND,
            hint="Use the exact handle a cut result of this run gave; handles of other logs "
            "or of results not cut cannot be read.",
        )
    total = len(text)
    if offset > total:
        raise ToolError(
            f"offset {offset:,} is past the end of the result ({total:,} characters).",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint=f"Give an offset from 0 to {total:,}.",
        )
    end = min(offset + length, total)
    return {
        "text": text[offset:end],
        "offset": offset,
        "next_offset": end if end < total else None,
        "total_chars": total,
    }


read_result: Tool = Tool(
    name=READ_RESULT_TOOL,
    func=_read_result,
    output_description="The characters read, where they start, where to read on (null at the "
    "end) and the whole output's length.",
    when_to_use="A tool result was cut and the part left out is needed.",
    tags=("agent", "results"),
    max_result_chars=None,
    annotations=ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=False
    ),
)
"""The ready tool (an agent offers it once a result of its run was cut)."""

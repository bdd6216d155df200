"""The result budget: a step of the pipeline that keeps a call's output small for a model.

An output whose text (what the model would read: `ToolResult.to_text`) is longer than the
call's budget is kept whole (`._kept`: the execution log, or a bounded store in memory) and
handed on cut: a text as its head and its tail around a note giving the total size and the
handle ``read_result`` reads the rest by; structured data (dicts, lists) by a rule that keeps
valid JSON (`cut_json`). Failed calls, rich content (images, audio, resources) and outputs
that fit pass unchanged.

The budget of a call is the tool's own ``max_result_chars`` when it sets one (``None``:
never cut), else the budget of the scope the call is made in (`result_budget`: an agent run,
an MCP server, your code), else none: a plain Python call of a tool that sets nothing gets
its whole output, and a plan step's references see whole values.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from pydantic_core import to_json

from toolrig.core.result._content import content_blocks
from toolrig.core.result._jsonable import to_jsonable
from toolrig.runtime._kept import keep

if TYPE_CHECKING:
    from toolrig.core.define._base import BaseTool
    from toolrig.core.result._result import ToolResult

__all__ = [
    "DEFAULT_RESULT_CHARS",
    "RESULT_BUDGET",
    "apply_budget",
    "cut_json",
    "cut_text",
    "result_budget",
]

DEFAULT_RESULT_CHARS: Final = 32_000
"""The budget of an agent run and an MCP server unless told otherwise: about 8,000 tokens at
~4 characters a token, a few percent of today's context windows. Large enough that ordinary
results (a file of a few hundred lines, a page of search hits) pass whole; small enough that
ten calls in one turn stay well inside a 128k-token window."""

RESULT_BUDGET: ContextVar[int | None] = ContextVar("toolrig_result_budget", default=None)
"""The budget of the calls made here (``None``: no budget of the caller's)."""

_MIN_PART: Final = 8
_MAX_DEPTH: Final = 32


@contextmanager
def result_budget(max_chars: int | None) -> Iterator[None]:
    """Cut the outputs of the calls made inside to ``max_chars`` characters (``None``: none),
    unless a tool sets its own ``max_result_chars``."""
    if max_chars is not None and (isinstance(max_chars, bool) or max_chars < 1):
        raise ValueError("max_chars must be at least 1 (None: never cut)")
    token = RESULT_BUDGET.set(max_chars)
    try:
        yield
    finally:
        RESULT_BUDGET.reset(token)


def budget_of(owner: BaseTool | None) -> int | None:
    """The budget of a call of ``owner`` made here."""
    if owner is not None:
        own = owner.spec.max_result_chars
        if own != "inherit":
            return own
    return RESULT_BUDGET.get()


def apply_budget(result: ToolResult, owner: BaseTool | None) -> ToolResult:
    """``result``, or when its output's text is over budget, a copy cut to it whose metadata
    names the handle of the whole (kept before this returns)."""
    if not result.success:
        return result
    limit = budget_of(owner)
    if limit is None:
        return result
    output = result.output
    if output is None or isinstance(output, bool | int | float):
        return result
    if isinstance(output, str):
        if len(output) <= limit:  # the text is never longer than the string
            return result
    elif _fits(output, limit) or content_blocks(output) is not None:
        return result  # small data is measured without being rendered
    full = result.to_text()
    total = len(full)
    if total <= limit:
        return result
    meta = result.metadata
    handle = keep(full, meta.tool if meta else "?", meta.tool_call_id if meta else None)
    if isinstance(output, str):
        shown: Any = cut_text(full, limit, handle)
    else:
        shown = cut_json(to_jsonable(output), limit, handle, total)
    if meta is not None:
        meta = replace(meta, result_handle=handle, result_chars=total)
    return replace(result, output=shown, metadata=meta)


def _fits(value: Any, limit: int) -> bool:
    """Whether plain data surely renders within ``limit`` characters, told without rendering
    it: its compact JSON bytes (pydantic-core, about a microsecond for a small record) at
    least halve any rendering's characters (the rendering adds a space after a separator,
    and a character is at least a byte)."""
    if type(value) not in (dict, list, tuple):
        return False
    try:
        return 2 * len(to_json(value)) <= limit
    except Exception:  # not plain data: measured by rendering it
        return False


def _note(cut: int, total: int, handle: str | None, offset: int) -> str:
    if handle is None:
        return (
            f"\n[… {cut:,} of {total:,} characters cut here; the whole output could not be "
            "kept (larger than the in-memory store) …]\n"
        )
    return (
        f"\n[… {cut:,} of {total:,} characters cut here. The whole output is kept: "
        f'read_result(handle="{handle}", offset={offset}, length=...) reads on …]\n'
    )


def cut_text(text: str, limit: int, handle: str | None) -> str:
    """``text`` as its head (two thirds) and its tail around a note; at most ``limit``
    characters when the limit leaves room for the note (about 150)."""
    total = len(text)
    room = max(limit - len(_note(total, total, handle, total)), 2 * _MIN_PART)
    head = room * 2 // 3
    tail = room - head
    return text[:head] + _note(total - head - tail, total, handle, head) + text[total - tail :]


def cut_json(value: Any, limit: int, handle: str | None, total: int) -> Any:
    """A JSON-able value cut to about ``limit`` characters of JSON, always valid JSON.

    The rule: the result is an object ``{"cut": {...}, "value": ...}`` where ``cut`` says
    the total size and the handle, and ``value`` is the value with every string longer than
    L characters cut to its head and tail, and every array or object longer than K members
    cut to its first K - 1 members, a marker member and its last one; L and K are halved
    until the JSON fits. When even L = 8 and K = 1 does not fit (very deep data), ``value``
    is the head of the JSON text, as a string.
    """
    about: dict[str, Any] = {"total_chars": total, "handle": handle}
    about["read_with"] = (
        "read_result(handle, offset, length) reads the whole JSON text"
        if handle is not None
        else "the whole output could not be kept (larger than the in-memory store)"
    )
    envelope = len(_dumps({"cut": about, "value": None}))
    room = max(limit - envelope, 2 * _MIN_PART)
    strings, members = max(room // 2, _MIN_PART), max(room // 8, 1)
    while True:
        shrunk = _shrink(value, strings, members, 0)
        if len(_dumps(shrunk)) <= room:
            return {"cut": about, "value": shrunk}
        if strings <= _MIN_PART and members <= 1:
            return {"cut": about, "value": _dumps(value)[: max(room - 2, _MIN_PART)]}
        strings, members = max(strings // 2, _MIN_PART), max(members // 2, 1)


def _shrink(value: Any, strings: int, members: int, depth: int) -> Any:
    if isinstance(value, str):
        if len(value) <= strings:
            return value
        head = strings * 2 // 3
        tail = strings - head
        return (
            f"{value[:head]}…[{len(value) - head - tail:,} chars cut]…{value[len(value) - tail :]}"
        )
    if depth >= _MAX_DEPTH and isinstance(value, dict | list):
        return f"…[{type(value).__name__} nested too deep, cut]…"
    if isinstance(value, list):
        if len(value) <= members:
            return [_shrink(v, strings, members, depth + 1) for v in value]
        kept = [_shrink(v, strings, members, depth + 1) for v in value[: members - 1]]
        kept.append(f"…[{len(value) - members:,} items cut]…")
        kept.append(_shrink(value[-1], strings, members, depth + 1))
        return kept
    if isinstance(value, dict):
        items = list(value.items())
        out: dict[str, Any] = {}
        chosen = items if len(items) <= members else [*items[: members - 1], items[-1]]
        for key, member in chosen:
            out[key] = _shrink(member, strings, members, depth + 1)
        if len(items) > members:
            out["…"] = f"[{len(items) - members:,} members cut]"
        return out
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

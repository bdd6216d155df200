"""The client's side of input-required rounds (MCP 2026-07-28, SEP-2322).

A 2026-07-28 server that needs input answers a ``tools/call`` with ``input_required``: the
questions (``inputRequests``: elicitation, sampling, roots) and an opaque ``requestState``.
`call_answering` fulfils every question of a round through the session's own callbacks (the
same ones that answer a 2025-era server's requests: the elicitor and the sampler), all at
once, and sends the call again with the answers and the state, echoed byte for byte, until
the server gives the result (a task handle instead is awaited: see ``_task_client``). It is
bounded: ``max_rounds`` rounds and ``timeout`` seconds for
them all (counted from the first round: a call that asks nothing is bound only by its
own timeout), past which the call fails with a `ToolError` saying which bound was hit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

import mcp_types
from mcp import ClientSession
from mcp.shared.dispatcher import ProgressFnT

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.mcp._answers import answer_all
from toolrig.mcp._task_client import CreatedTask, await_task

__all__ = ["call_answering"]

T = TypeVar("T")


async def call_answering(
    session: ClientSession,
    name: str,
    arguments: dict[str, Any],
    *,
    progress: ProgressFnT | None,
    max_rounds: int,
    timeout: float | None,
    label: str,
) -> mcp_types.CallToolResult:
    """``tools/call`` of ``name``, answering the server's input-required rounds; raises
    `MCPError` as ``session.call_tool`` does, `ToolError` when a bound is hit."""
    deadline: float | None = None  # set when the first round begins
    responses: mcp_types.InputResponses | None = None
    state: str | None = None
    rounds = 0
    while True:
        result = await _bounded(
            session.call_tool(
                name,
                arguments,
                progress_callback=progress,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
                allow_claimed=True,
            ),
            deadline,
            name,
            label,
        )
        if isinstance(result, CreatedTask):  # the server runs it as a task: await its end
            return await await_task(session, result, name=name, label=label)
        if isinstance(result, mcp_types.CallToolResult):
            return result
        if not isinstance(result, mcp_types.InputRequiredResult):
            raise ToolError(
                f"the MCP server {label} answered `{name}` with a result of an unknown kind",
                code=ErrorCode.EXECUTION_ERROR,
            )
        if deadline is None and timeout is not None:
            deadline = time.monotonic() + timeout
        rounds += 1
        if rounds > max_rounds:
            raise ToolError(
                f"the MCP server {label} still asked for input after {max_rounds} rounds of "
                f"`{name}`; the call was given up",
                code=ErrorCode.EXECUTION_ERROR,
                hint="raise `max_input_rounds` for this server if the tool needs more answers",
            )
        requests = result.input_requests or {}
        answers = await _bounded(answer_all(session, requests), deadline, name, label)
        responses, state = answers or None, result.request_state
        if not requests:  # state only: the server is busy; ask again shortly
            await asyncio.sleep(0.05)


async def _bounded(coro: Awaitable[T], deadline: float | None, name: str, label: str) -> T:
    """``coro`` awaited until ``deadline``; a `ToolError` (timeout) past it."""
    if deadline is None:
        return await coro
    try:
        return await asyncio.wait_for(coro, max(0.0, deadline - time.monotonic()))
    except TimeoutError:
        raise ToolError(
            f"the input-required rounds of `{name}` on the MCP server {label} took longer "
            "than allowed; the call was given up",
            code=ErrorCode.TIMEOUT,
            hint="raise `input_timeout` for this server, or answer faster",
        ) from None

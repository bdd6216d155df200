"""The questions of a 2026-07-28 server (``inputRequests``: elicitation, sampling, roots)
answered through a client session's own callbacks, all at once: for input-required rounds
and for the questions a task waits on alike."""

from __future__ import annotations

import asyncio

import mcp_types
from mcp import ClientSession
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError

__all__ = ["answer_all"]


async def answer_all(
    session: ClientSession, requests: dict[str, mcp_types.InputRequest]
) -> mcp_types.InputResponses:
    """Every question of one round answered through the session's callbacks, concurrently."""

    async def one(key: str, request: mcp_types.InputRequest) -> mcp_types.InputResponse:
        meta = request.params.meta if request.params is not None else None
        context = ClientRequestContext(session=session, request_id=key, meta=meta)
        answer = await session.dispatch_input_request(context, request)
        if isinstance(answer, mcp_types.ErrorData):
            raise MCPError.from_error_data(answer)
        return answer

    keys = list(requests)
    answers = await asyncio.gather(*(one(key, requests[key]) for key in keys))
    return dict(zip(keys, answers, strict=True))

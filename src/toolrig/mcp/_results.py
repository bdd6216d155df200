"""Cut results over MCP: the ``resource_link`` a cut result carries is readable through
``resources/read`` (``toolrig://results/<handle>``), exactly the text that was cut.

The server keeps answering a mounted server's resources (``resources=``): a URI that is not a
result goes to it. Without one, ``resources/list`` lists nothing (cut results are reached by
their links, not listed) so that the server declares the resources capability.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mcp_types
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from toolrig.core.context._recording import Recording, recording
from toolrig.runtime._kept import RESULT_URI, read_kept

__all__ = ["serve_results"]

_RESOURCE_NOT_FOUND = -32002
"""The error code MCP gives an unknown resource."""


def serve_results(
    server: Server[Any],
    scope: Callable[[], Recording | None],
    finish: Callable[..., dict[str, Any]],
) -> None:
    """Make ``server`` read cut results (in the log ``scope()`` writes to, else memory);
    ``finish(result, ctx, cacheable=True)`` adds what the session's protocol requires."""
    mounted = server.get_request_handler("resources/read")
    fallback = None if mounted is None else mounted.handler

    async def read(
        ctx: ServerRequestContext[Any], params: mcp_types.ReadResourceRequestParams
    ) -> HandlerResult:
        uri = str(params.uri)
        if not uri.startswith(RESULT_URI):
            if fallback is not None:
                return await fallback(ctx, params)
            raise MCPError(_RESOURCE_NOT_FOUND, f"Resource not found: {uri}")
        with recording(scope()):
            text = read_kept(uri[len(RESULT_URI) :])
        if text is None:
            raise MCPError(
                _RESOURCE_NOT_FOUND, f"No result is kept under {uri} (unknown or expired handle)."
            )
        contents = [{"uri": uri, "mimeType": "text/plain", "text": text}]
        return finish({"contents": contents}, ctx, cacheable=True)

    server.add_request_handler("resources/read", mcp_types.ReadResourceRequestParams, read)
    if server.get_request_handler("resources/list") is None:

        async def listing(
            ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
        ) -> HandlerResult:
            return finish({"resources": []}, ctx, cacheable=True)

        server.add_request_handler("resources/list", mcp_types.PaginatedRequestParams, listing)

"""A plain MCP server made with the ``mcp`` SDK alone (no toolrig), run over stdio by the
client tests: it lists its tools two to a page (``nextCursor``), and answers a call of a tool
it does not have in its own words, ``Unknown tool: <name>`` (toolrig says "not found").

``python paged_server.py N``: tools ``t0`` .. ``t{N-1}``, each echoing its name. A call of
``t0`` with ``{"drop": true}`` removes the last tool, as a server's tool set can change.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

PAGE = 2


def main(count: int) -> None:
    names = [f"t{i}" for i in range(count)]
    schema = {"type": "object", "properties": {"drop": {"type": "boolean"}}}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        start = int(params.cursor) if params is not None and params.cursor else 0
        page = names[start : start + PAGE]
        more = start + PAGE < len(names)
        return types.ListToolsResult(
            tools=[types.Tool(name=n, description=f"Tool {n}.", input_schema=schema) for n in page],
            next_cursor=str(start + PAGE) if more else None,
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in names:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        if (params.arguments or {}).get("drop"):
            names.pop()
        return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])

    server: Server[Any] = Server("paged", on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


if __name__ == "__main__":
    main(int(sys.argv[1]))

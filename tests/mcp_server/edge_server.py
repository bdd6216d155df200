"""A plain MCP server made with the ``mcp`` SDK's low-level ``Server`` alone (no toolrig), run
over stdio by `test_mcp_client_import_boundaries`: it does what another server may do at the
edges of the protocol.

``python edge_server.py SCENARIO STATE_DIR``. The scenario shapes ``tools/list``:

- ``listed``: the tools named in ``STATE_DIR/tools.json`` (read at every list, so a test can
  take one away), one page; while ``STATE_DIR/fail`` exists the list is an error;
- ``loop``: one tool and ``nextCursor: "again"``, every time (a list that never ends);
- ``empty-page``: a first page with no tools but a cursor, then a page with ``late``.

Every call is appended to ``STATE_DIR/calls`` as ``name arguments-json``. The tools answer:
``multi`` two text blocks, ``mixed`` a text and an image, ``empty`` no content, ``bare_error``
``isError`` without content, ``structured`` ``structuredContent``, ``lookup`` the JSON-RPC
error -32602 with the message its argument ``say`` gives (such as "Issue 42 not found", about an
argument, not about the tool), ``slow`` sleeps
(``STATE_DIR/started``, then ``STATE_DIR/cancelled`` when the client cancels it), ``die`` exits
the process mid-call; a tool not listed is answered as the SDK's ``MCPServer`` does, in the
result: ``isError`` with ``Unknown tool: <name>``. Any other listed tool echoes its name.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


def main(scenario: str, state: Path) -> None:
    def listed() -> list[types.Tool]:
        tools = json.loads((state / "tools.json").read_text(encoding="utf-8"))
        return [types.Tool(name=name, input_schema=schema) for name, schema in tools.items()]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        cursor = params.cursor if params is not None else None
        if scenario == "loop":
            tool = types.Tool(name="a", input_schema=OBJECT)
            return types.ListToolsResult(tools=[tool], next_cursor="again")
        if scenario == "empty-page":
            if cursor is None:
                return types.ListToolsResult(tools=[], next_cursor="1")
            return types.ListToolsResult(tools=[types.Tool(name="late", input_schema=OBJECT)])
        if (state / "fail").exists():
            raise MCPError(code=types.INTERNAL_ERROR, message="the list is unavailable")
        return types.ListToolsResult(tools=listed())

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name, arguments = params.name, params.arguments or {}
        with (state / "calls").open("a", encoding="utf-8") as calls:
            calls.write(f"{name} {json.dumps(arguments, sort_keys=True)}\n")
        text = types.TextContent
        if scenario == "listed" and name not in {tool.name for tool in listed()}:
            return types.CallToolResult(
                content=[text(type="text", text=f"Unknown tool: {name}")], is_error=True
            )
        if name == "multi":
            return types.CallToolResult(
                content=[text(type="text", text="one"), text(type="text", text="two")]
            )
        if name == "mixed":
            image = types.ImageContent(type="image", data="iVBORw0K", mime_type="image/png")
            return types.CallToolResult(content=[text(type="text", text="caption"), image])
        if name == "empty":
            return types.CallToolResult(content=[])
        if name == "bare_error":
            return types.CallToolResult(content=[], is_error=True)
        if name == "structured":
            return types.CallToolResult(
                content=[text(type="text", text='{"n": 1}')], structured_content={"n": 1}
            )
        if name == "lookup":
            raise MCPError(code=types.INVALID_PARAMS, message=str(arguments.get("say")))
        if name == "slow":
            (state / "started").write_text("1", encoding="utf-8")
            try:
                await anyio.sleep(60)
            except BaseException:
                (state / "cancelled").write_text("1", encoding="utf-8")
                raise
        if name == "die":
            os._exit(3)
        return types.CallToolResult(content=[text(type="text", text=name)])

    server: Server[Any] = Server("edges", on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))

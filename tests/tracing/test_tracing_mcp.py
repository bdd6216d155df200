"""MCP server calls, traced end to end with the real ``mcp`` client: the client's span, the
SDK's ``tools/call {tool}`` server span (the trace context travels in ``params._meta``), and
toolrig's ``execute_tool {tool}`` span under it.

The MCP SDK traces through OpenTelemetry's *global* provider, which a process can set only
once; the run therefore happens in a child process that prints its spans as JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

SCRIPT = textwrap.dedent(
    """
    import asyncio, json
    from mcp import Client
    from mcp.shared.exceptions import MCPError
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from toolrig import tool
    from toolrig.mcp import ToolServer
    from toolrig.registry import Catalog
    from toolrig.runtime import enable_tracing

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    enable_tracing()  # the global provider

    @tool
    def add(a: int, b: int) -> int:
        "Add two integers."
        return a + b

    @tool
    def boom(reason: str) -> str:
        "Always fails."
        raise RuntimeError(reason)

    async def main():
        server = ToolServer(Catalog([add, boom]))
        app = trace.get_tracer("app")
        # "legacy": the initialize handshake and JSON-RPC messages, as over stdio or HTTP
        async with Client(server.server, mode="legacy") as client:
            with app.start_as_current_span("agent step"):
                ok = await client.call_tool("add", {"a": 2, "b": 3})
                bad = await client.call_tool("boom", {"reason": "no"})
                try:
                    await client.call_tool("nope", {})
                except MCPError as exc:
                    missing = exc.error.code
        server.close()
        return [ok.is_error, bad.is_error, missing]

    errors = asyncio.run(main())
    spans = [
        {
            "name": s.name,
            "kind": s.kind.name,
            "id": s.context.span_id,
            "trace": s.context.trace_id,
            "parent": s.parent.span_id if s.parent else None,
            "attributes": dict(s.attributes or {}),
        }
        for s in exporter.get_finished_spans()
    ]
    print(json.dumps({"errors": errors, "spans": spans}))
    """
)


def _run() -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=90, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    data: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return data


def test_an_mcp_tool_call_is_one_trace_from_client_to_tool() -> None:
    data = _run()
    assert data["errors"] == [False, True, -32602]
    spans = data["spans"]
    by_name: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        by_name.setdefault(span["name"], []).append(span)

    (step,) = by_name["agent step"]
    (server_add,) = by_name["tools/call add"]
    (tool_add,) = by_name["execute_tool add"]
    assert server_add["kind"] == "SERVER"
    assert server_add["attributes"]["gen_ai.tool.name"] == "add"
    assert tool_add["parent"] == server_add["id"]
    # the server span descends from the client's span through the client's request span
    client_spans = {s["id"]: s for s in spans if s["kind"] == "CLIENT"}
    assert server_add["parent"] in client_spans
    assert client_spans[server_add["parent"]]["parent"] == step["id"]
    assert {s["trace"] for s in (step, server_add, tool_add)} == {step["trace"]}

    (server_boom,) = by_name["tools/call boom"]
    (tool_boom,) = by_name["execute_tool boom"]
    assert tool_boom["parent"] == server_boom["id"]
    assert tool_boom["attributes"]["error.type"] == "execution_error"
    assert server_boom["attributes"]["error.type"] == "tool_error"

    (server_missing,) = by_name["tools/call nope"]
    assert server_missing["attributes"]["error.type"] == "-32602"  # the protocol's answer
    assert "execute_tool nope" not in by_name  # refused before any call began

"""An imported MCP tool is a step of the one pipeline like any other: its calls pass the
importing executor's guardrails (a rejected call is never sent; a withheld output never
reaches the caller)."""

from __future__ import annotations

import asyncio

from mcp_support import serving

from toolrig import Catalog, ToolExecutor, tool
from toolrig.mcp import ToolServer, add_mcp_server_async
from toolrig.runtime import Call, InputGuardrail, Verdict, secret_scanner

KEY = "AKIA" + "ABCDEFGHIJKLMNOP"
RAN: list[str] = []


@tool
def echo(text: str) -> str:
    """Echo the text."""
    RAN.append(text)
    return text


def no_drop(call: Call) -> Verdict:
    if "drop" in str(call.arguments.get("text", "")):
        return Verdict.reject("dropping is not allowed here")
    return Verdict.allow()


async def test_an_imported_mcp_tool_is_guarded() -> None:
    async with serving(ToolServer(Catalog([echo]))) as url:
        ex = ToolExecutor()
        source = await add_mcp_server_async(ex.catalog, prefix="far", url=url)
        try:
            ex.add_guardrail(InputGuardrail(no_drop))
            ex.add_guardrail(secret_scanner())
            name = ex.catalog.names()[0]
            refused = await ex.execute(name, {"text": "drop"})
            assert refused.code == "guardrail" and RAN == []  # never sent to the server
            withheld = await ex.execute(name, {"text": KEY})
            assert withheld.code == "guardrail" and KEY not in withheld.to_json()
            assert RAN == [KEY]  # the server ran it
            assert (await ex.execute(name, {"text": "ok"})).output == "ok"
        finally:
            await asyncio.to_thread(source.close)

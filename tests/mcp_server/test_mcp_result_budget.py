"""Cut results over MCP: a toolrig server answers a long result with its head and tail and a
``resource_link`` whose URI ``resources/read`` reads back exactly; an imported MCP tool's long
output is cut like any other; a tool's own resource links reach the client."""

from __future__ import annotations

import mcp_types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_support import serving

from toolrig import ToolExecutor, tool
from toolrig.core import ResourceLink, TextContent
from toolrig.mcp import ToolServer
from toolrig.registry import Catalog
from toolrig.storage import SQLiteExecutionLog

WHOLE = "".join(f"{i:06d} \u00e9\x00\n" for i in range(20_000))  # NUL and non-ASCII survive


@tool
def noisy() -> str:
    """A long output."""
    return WHOLE


@tool
def small() -> str:
    """A short output."""
    return "fine"


@tool
def linked() -> list[TextContent | ResourceLink]:
    """Rich content with a resource link of the tool's own."""
    return [
        TextContent(text="see the report"),
        ResourceLink(uri="file:///tmp/report.txt", name="report", mime_type="text/plain"),
    ]


def _server(**kw: object) -> ToolServer:
    return ToolServer(Catalog([noisy, small, linked]), **kw)  # type: ignore[arg-type]


def _link(result: mcp_types.CallToolResult) -> mcp_types.ResourceLink:
    links = [b for b in result.content if isinstance(b, mcp_types.ResourceLink)]
    assert len(links) == 1
    return links[0]


@pytest.mark.parametrize("with_log", [False, True])
async def test_a_cut_result_links_to_its_whole_text(with_log: bool, tmp_path: object) -> None:
    server = _server(max_result_chars=3_000)
    log = SQLiteExecutionLog(f"{tmp_path}/log.db") if with_log else None
    if log is not None:
        server.recording = log.start_run("serve-test", "serve")
    async with serving(server) as url, Client(url) as client:
        result = await client.call_tool("noisy", {})
        text = result.content[0]
        assert isinstance(text, mcp_types.TextContent)
        assert len(text.text) <= 3_000
        assert text.text.startswith("000000") and text.text.endswith("019999 \u00e9\x00\n")
        link = _link(result)
        assert str(link.uri).startswith("toolrig://results/res_")
        assert link.size == len(WHOLE)
        read = await client.read_resource(str(link.uri))
        body = read.contents[0]
        assert isinstance(body, mcp_types.TextResourceContents)
        assert body.text == WHOLE
        if log is not None:
            handle = str(link.uri).rsplit("/", 1)[1]
            assert log.read_result(handle) == WHOLE


async def test_under_budget_no_link_and_unknown_uris_are_errors() -> None:
    async with serving(_server(max_result_chars=3_000)) as url, Client(url) as client:
        result = await client.call_tool("small", {})
        assert [b.type for b in result.content] == ["text"]
        for uri in ("toolrig://results/res_000000000000000000000000", "toolrig://results/x"):
            with pytest.raises(MCPError, match="No result is kept"):
                await client.read_resource(uri)
        with pytest.raises(MCPError, match="not found"):
            await client.read_resource("file:///etc/passwd")


async def test_no_budget_sends_the_whole() -> None:
    async with serving(_server(max_result_chars=None)) as url, Client(url) as client:
        result = await client.call_tool("noisy", {})
        assert [b.type for b in result.content] == ["text"]
        assert result.content[0].text == WHOLE  # type: ignore[union-attr]


async def test_a_tools_own_resource_link_reaches_the_client() -> None:
    async with serving(_server()) as url, Client(url) as client:
        result = await client.call_tool("linked", {})
        link = _link(result)
        assert (str(link.uri), link.name, link.mime_type) == (
            "file:///tmp/report.txt",
            "report",
            "text/plain",
        )


async def test_an_imported_mcp_tool_is_cut_like_any_other() -> None:
    from toolrig.mcp import add_mcp_server_async
    from toolrig.runtime._budget import result_budget
    from toolrig.runtime._read_result import read_result

    remote = _server(max_result_chars=None)  # the remote sends everything
    local = Catalog()
    async with serving(remote) as url:
        source = await add_mcp_server_async(local, url=url, prefix="remote")
        try:
            with result_budget(3_000):
                executor = ToolExecutor(local)
                result = await executor.execute("remote__noisy", {})
                meta = result.metadata
                assert meta is not None and meta.result_handle
                assert len(result.output) <= 3_000
                part = await executor.run_tool(
                    read_result, "read_result", {"handle": meta.result_handle, "length": 3_000}
                )
                assert part.output["text"] == WHOLE[:3_000]
                small_result = await executor.execute("remote__small", {})
                assert small_result.output == "fine" and small_result.metadata.result_handle is None
        finally:
            source.close()


ROWS = [{"id": i, "name": "n" * 50} for i in range(300)]


@tool
def rows() -> list[dict[str, object]]:
    """Structured rows (an output schema the client checks)."""
    return ROWS


async def test_a_cut_structured_result_sends_its_text_cut_and_its_data_whole() -> None:
    import json

    server = ToolServer(Catalog([rows]), max_result_chars=2_000)
    async with serving(server) as url, Client(url) as client:
        result = await client.call_tool("rows", {})  # the SDK checks the output schema
        text = result.content[0]
        assert isinstance(text, mcp_types.TextContent) and len(text.text) <= 2_200
        shown = json.loads(text.text)
        assert shown["cut"]["total_chars"] > 2_000 and "items cut" in json.dumps(shown["value"])
        assert result.structured_content == {"result": ROWS}
        read = await client.read_resource(str(_link(result).uri))
        assert json.loads(read.contents[0].text) == ROWS  # type: ignore[union-attr]

"""`ToolServer` without a transport: the listing follows the catalogue; results keep errors."""

from __future__ import annotations

from typing import Any, cast

import mcp_types
import pytest
from mcp.shared.exceptions import MCPError

from toolrig import Catalog, ToolExecutor, tool
from toolrig.mcp import ERROR_META_KEY, ToolServer
from toolrig.mcp._server import call_result
from toolrig.providers import NameMap


@tool
def double(x: int) -> int:
    """Double a number."""
    return 2 * x


def test_listing_follows_the_executor() -> None:
    executor = ToolExecutor()
    server = ToolServer(executor)
    assert server.catalog is executor.catalog and server.executor is executor
    assert server.list_tools() == []
    executor.catalog.add(double)
    (listed,) = server.list_tools()
    assert listed.name == "double"
    assert listed.output_schema == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
        "x-fastmcp-wrap-result": True,  # so clients give back the plain value
    }
    executor.catalog.remove("double")
    assert server.list_tools() == []
    server.close()
    executor.close()


def test_a_catalogue_is_served_through_an_executor_of_its_own_or_the_one_given() -> None:
    catalog = Catalog()
    server = ToolServer(catalog)
    assert server.executor.catalog is catalog
    catalog.add(double)
    assert [t.name for t in server.list_tools()] == ["double"]
    server.close()
    server.close()  # closing twice is harmless

    with ToolExecutor(catalog, default_timeout=5) as executor:
        given = ToolServer(catalog, executor)
        assert given.executor is executor
        given.close()
        assert executor.execute_sync("double", {"x": 2}).output == 4  # still open
    with pytest.raises(TypeError):
        ToolServer(ToolExecutor(), ToolExecutor())


def test_changes_to_the_catalogue_notify_clients() -> None:
    catalog = Catalog()
    server = ToolServer(catalog)
    told: list[int] = []
    server.notify_tools_changed = lambda: told.append(1)  # type: ignore[method-assign]
    catalog.add(double)
    catalog.remove("double")
    assert len(told) == 2
    server.close()
    catalog.add(double)
    assert len(told) == 2  # no longer followed


async def test_an_unknown_tool_is_invalid_params_with_the_not_found_message() -> None:
    catalog = Catalog([double])
    server = ToolServer(catalog)
    params = mcp_types.CallToolRequestParams(name="dubble", arguments={"x": 1})
    with pytest.raises(MCPError) as info:
        await server._call_tool(cast(Any, None), params)
    assert info.value.code == mcp_types.INVALID_PARAMS
    assert info.value.message.startswith("Tool 'dubble' not found.")
    assert "Did you mean 'double'?" in info.value.message
    server.close()


async def test_an_unknown_tool_is_named_as_the_client_sent_it() -> None:
    """MCP clients see `notes__add`, not the catalogue's `notes.add`: the error speaks their
    names, the one sent included."""
    from toolrig.cli._demo_tools import Notes

    server = ToolServer(Catalog([Notes()]))
    params = mcp_types.CallToolRequestParams(name="notes__ad", arguments={})
    with pytest.raises(MCPError) as info:
        await server._call_tool(cast(Any, None), params)
    message = info.value.message
    assert message.startswith("Tool 'notes__ad' not found. Did you mean 'notes__add'")
    assert "notes.add" not in message and "notes__delete" in message
    server.close()


async def test_only_the_listed_name_is_called() -> None:
    """`tools/list` shows `notes__add`; the catalogue's own `notes.add` is not listed, so it is
    the protocol's error, naming the listed name to call instead (the stateless path too)."""
    from toolrig.cli._demo_tools import Notes

    server = ToolServer(Catalog([Notes()]))
    assert "notes__add" in [t.name for t in server.list_tools()]
    done = await server.call_without_channel("notes__add", {"text": "milk"})
    assert done["isError"] is False
    for call in (
        lambda: server._call_tool(
            cast(Any, None), mcp_types.CallToolRequestParams(name="notes.add", arguments={})
        ),
        lambda: server.call_without_channel("notes.add", {"text": "milk"}),
    ):
        with pytest.raises(MCPError) as info:
            await call()
        assert info.value.code == mcp_types.INVALID_PARAMS
        assert info.value.message == (
            "Tool 'notes.add' is not listed: MCP clients call it by its listed name 'notes__add'."
        )
    server.close()


def test_a_failure_carries_the_structured_error() -> None:
    executor = ToolExecutor([double])
    failed = executor.execute_sync("double", {"x": "many"})
    data = call_result(failed, NameMap.from_tools(executor))
    assert data["isError"] is True
    assert "structuredContent" not in data
    assert data["_meta"][ERROR_META_KEY]["code"] == "invalid_arguments"
    ok = call_result(executor.execute_sync("double", {"x": 2}), NameMap.from_tools(executor))
    assert ok["structuredContent"] == {"result": 4}
    assert "_meta" not in ok
    executor.close()

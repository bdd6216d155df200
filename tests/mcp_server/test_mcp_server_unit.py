"""`ToolServer` without a transport: the listing follows the executor; results keep errors."""

from __future__ import annotations

from toolrig import ToolExecutor, tool
from toolrig.mcp import ERROR_META_KEY, ToolServer
from toolrig.mcp.server import call_result
from toolrig.providers.names import NameMap


@tool
def double(x: int) -> int:
    """Double a number."""
    return 2 * x


def test_listing_follows_the_executor() -> None:
    executor = ToolExecutor()
    server = ToolServer(executor)
    assert server.list_tools() == []
    executor.register(double)
    (listed,) = server.list_tools()
    assert listed.name == "double"
    assert listed.output_schema == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
    executor.unregister("double")
    assert server.list_tools() == []


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

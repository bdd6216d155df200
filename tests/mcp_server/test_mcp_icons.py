"""A tool's ``icons``: declared once, validated, served in ``tools/list``, kept on import."""

from __future__ import annotations

import contextlib

import mcp_types
import pytest
from mcp_support import serving, session

from toolrig import ToolDefinitionError, tool
from toolrig.mcp import ToolServer
from toolrig.mcp._remote import build_remote_tool
from toolrig.registry import Catalog, Registry

PNG = {"src": "https://example.com/chart.png", "mimeType": "image/png", "sizes": ["48x48"]}
DARK = {"src": "data:image/svg+xml;base64,PHN2Zy8+", "theme": "dark"}


@tool(icons=[PNG, DARK])
def chart(values: list[int]) -> int:
    """Chart the values."""
    return len(values)


@tool
def plain() -> str:
    """No icon."""
    return "plain"


async def test_icons_are_served_and_kept_on_import() -> None:
    from toolrig.mcp import add_mcp_server_async

    async with serving(ToolServer(Catalog([chart, plain]))) as url:
        async with session("http", url) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
        icons = tools["chart"].icons
        assert icons is not None
        served = [i.model_dump(by_alias=True, exclude_none=True) for i in icons]
        assert served == [PNG, DARK]
        assert tools["plain"].icons is None
        registry = Registry()
        try:
            await add_mcp_server_async(registry, prefix="far", url=url)
            imported = registry.get("far__chart").spec.icons
            assert [i.src for i in imported] == [PNG["src"], DARK["src"]]
            assert imported[1].theme == "dark"
        finally:
            with contextlib.suppress(Exception):
                registry.close()


@pytest.mark.parametrize(
    ("icon", "said"),
    [
        ({"src": "http://example.com/a.png"}, "https"),
        ({"src": "javascript:alert(1)"}, "https"),
        ({"src": "data:text/html,<script>"}, "https"),
        ({"src": "https://example.com/a.png", "sizes": ["big"]}, "WxH"),
        ({"src": "https://example.com/a.png", "theme": "blue"}, "theme"),
        ({"src": "https://example.com/a.png", "onclick": "x"}, "onclick"),
    ],
)
def test_an_unsafe_or_malformed_icon_is_refused(icon: dict[str, object], said: str) -> None:
    with pytest.raises(ToolDefinitionError, match=said):

        @tool(icons=[icon])
        def bad() -> None:
            """Bad icon."""


async def _noop(name: str, arguments: object, ctx: object) -> object:
    raise AssertionError("not called")


def test_an_imported_tools_unsafe_icons_are_dropped() -> None:
    remote = mcp_types.Tool(
        name="far",
        input_schema={"type": "object"},
        icons=[
            mcp_types.Icon(src="http://tracker.example/pixel.png"),
            mcp_types.Icon(src="https://cdn.example/ok.png", sizes=["any"]),
        ],
    )
    built = build_remote_tool(remote, name="x__far", call=_noop, source="test")
    assert [i.src for i in built.spec.icons] == ["https://cdn.example/ok.png"]

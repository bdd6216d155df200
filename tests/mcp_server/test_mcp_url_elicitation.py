"""URL-mode elicitation on the client: an imported server asking the user to visit a page.

The server is the SDK's own ``MCPServer`` (its ``ctx.elicit_url``), served on 127.0.0.1; the
user's consent is the ``url_consent`` hook given with the server. Without one the request is
declined, as is any URL that is not https (loopback http aside), without asking anyone."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

import pytest
from mcp.server import MCPServer
from mcp.server.mcpserver import Context

from asgi_server import serve_asgi
from toolrig import ToolExecutor
from toolrig.mcp import add_mcp_server_async
from toolrig.mcp._client_callbacks import url_is_safe
from toolrig.registry import Registry


def remote_app() -> MCPServer:
    server = MCPServer("payments")

    @server.tool()
    async def pay(url: str, ctx: Context) -> str:
        """Ask the user to pay on a page."""
        answer = await ctx.elicit_url("Pay the invoice", url, "pay-1")
        return answer.action

    return server


@contextlib.contextmanager
def remote() -> Iterator[str]:
    with serve_asgi(remote_app().streamable_http_app()) as base:
        yield f"{base}/mcp"


@contextlib.asynccontextmanager
async def imported(url: str, **keywords: object) -> AsyncIterator[ToolExecutor]:
    registry = Registry()
    try:
        await add_mcp_server_async(registry, prefix="far", url=url, **keywords)  # type: ignore[arg-type]
        with ToolExecutor(registry) as executor:
            yield executor
    finally:
        await asyncio.to_thread(registry.close)


async def test_url_elicitation_is_declined_without_a_consent_hook() -> None:
    with remote() as url:
        async with imported(url) as executor:
            done = await asyncio.wait_for(
                executor.execute("far__pay", {"url": "https://pay.example/i/1"}), 20
            )
            assert done.output == {"result": "decline"}, done.to_text()


async def test_the_consent_hook_sees_the_message_and_the_whole_url() -> None:
    asked: list[tuple[str, str]] = []
    agree = True

    async def consent(message: str, url: str) -> bool:
        asked.append((message, url))
        return agree

    with remote() as url:
        async with imported(url, url_consent=consent) as executor:
            page = "https://pay.example/i/1?ref=abc#x"
            assert (await executor.execute("far__pay", {"url": page})).output == {
                "result": "accept"
            }
            assert asked == [("Pay the invoice", page)]
            agree = False
            assert (await executor.execute("far__pay", {"url": page})).output == {
                "result": "decline"
            }
            for unsafe in [
                "http://pay.example/i/1",
                "javascript:alert(1)",
                "file:///etc/passwd",
                "https://user:pw@pay.example/",
            ]:
                agree = True
                done = await executor.execute("far__pay", {"url": unsafe})
                assert done.output == {"result": "decline"}, unsafe
            assert len(asked) == 2  # unsafe URLs never reach the user


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://a.example/x", True),
        ("http://127.0.0.1:8080/cb", True),
        ("http://localhost/cb", True),
        ("http://[::1]/cb", True),
        ("http://a.example/x", False),
        ("https://", False),
        ("data:text/html,hi", False),
        ("https://u@a.example/", False),
        ("https://[bad/", False),
    ],
)
def test_which_urls_may_be_shown(url: str, safe: bool) -> None:
    assert url_is_safe(url) is safe

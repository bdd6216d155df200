"""Imported MCP tools reach the same hooks as local ones: a remote tool's elicitation goes to
the caller's input hook (schema defaults filled in), its sampling to the caller's sampler, its
images come back typed; where nothing answers, the remote tool fails at once."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import mcp_types
import pytest
from mcp.shared.auth import OAuthToken
from mcp_support import serving

from toolrig import ToolContext, ToolExecutor, tool
from toolrig.core import Elicitation, Image, tool_interaction
from toolrig.mcp import (
    InMemoryEventStore,
    MemoryTokenStorage,
    ServerParams,
    ToolServer,
    add_mcp_server_async,
)
from toolrig.registry import Catalog, Registry

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer", "default": 30},
        "tier": {"type": "string", "enum": ["free", "pro"], "default": "free"},
    },
}


@tool
async def signup(ctx: ToolContext) -> str:
    """Ask for a name, an age and a tier."""
    answer = await ctx.elicit("Sign up?", SCHEMA)
    return f"{answer.action} {json.dumps(answer.content, sort_keys=True)}"


@tool
async def summarize(text: str, ctx: ToolContext) -> str:
    """Summarize with the caller's model."""
    return "summary: " + await ctx.sample(f"Summarize: {text}")


@tool
def red_dot() -> Image:
    """A picture."""
    return Image.from_bytes(b"\x89PNG-dot")


@contextlib.asynccontextmanager
async def closing(registry: Registry) -> AsyncIterator[Registry]:
    """The registry, closed off this loop: closing disconnects its sources, which waits for
    the server, and the server runs on this loop."""
    try:
        yield registry
    finally:
        await asyncio.to_thread(registry.close)


@contextlib.asynccontextmanager
async def remote() -> AsyncIterator[str]:
    server = ToolServer(Catalog([signup, summarize, red_dot]))
    async with serving(server) as url:
        yield url


async def test_remote_elicitation_and_sampling_use_the_callers_hooks() -> None:
    asked: list[str] = []

    async def person(message: str, schema: Mapping[str, Any]) -> Elicitation:
        asked.append(message)
        return Elicitation(action="accept", content={"name": "Ada"})  # leaves age, tier out

    async def model(messages: Sequence[Mapping[str, Any]], system: str | None, n: int) -> str:
        return f"<{messages[-1]['content']}>"

    async with remote() as url, closing(Registry()) as registry:
        await add_mcp_server_async(registry, prefix="far", url=url, elicitor=person)
        with ToolExecutor(registry) as executor:
            signed = await executor.execute("far__signup", {})
            assert signed.output == 'accept {"age": 30, "name": "Ada", "tier": "free"}'
            assert asked == ["Sign up?"]
            # no sampler anywhere: the remote tool is refused at once, not left waiting
            refused = await asyncio.wait_for(executor.execute("far__summarize", {"text": "x"}), 10)
            assert not refused.success and "no language model" in refused.to_text()
            with tool_interaction(sampler=model):  # the caller's sampler answers
                sampled = await executor.execute("far__summarize", {"text": "long"})
            assert sampled.output == "summary: <Summarize: long>"
            picture = await executor.execute("far__red_dot", {})
            (image,) = picture.output  # content blocks, typed again
            assert isinstance(image, Image) and image.raw == b"\x89PNG-dot"


async def test_without_an_elicitor_the_remote_question_is_declined() -> None:
    async with remote() as url, closing(Registry()) as registry:
        with ToolExecutor(registry) as executor:
            await add_mcp_server_async(registry, prefix="far", url=url)
            answer = await asyncio.wait_for(executor.execute("far__signup", {}), 10)
            assert answer.output == "decline null"


def test_auth_needs_http_and_secrets_stay_out_of_reprs() -> None:
    with pytest.raises(ValueError, match="streamable HTTP"):
        ServerParams(command="server", auth=object())
    storage = MemoryTokenStorage()
    asyncio.run(storage.set_tokens(OAuthToken(access_token="s3cret-token", token_type="Bearer")))
    params = ServerParams(url="http://127.0.0.1:1/mcp", auth=storage, token="s3cret-token")
    assert "s3cret" not in repr(storage) and "s3cret" not in repr(params)
    assert storage.has_tokens


async def test_the_event_store_replays_one_stream_and_stays_bounded() -> None:
    def note(text: str = "x") -> mcp_types.JSONRPCNotification:
        return mcp_types.JSONRPCNotification(jsonrpc="2.0", method="note", params={"t": text})

    store = InMemoryEventStore(max_events=3)
    first = await store.store_event("a", None)
    await store.store_event("b", note())
    kept = await store.store_event("a", mcp_types.JSONRPCResponse(jsonrpc="2.0", id=1, result={}))
    sent: list[Any] = []

    async def send(event: Any) -> None:
        sent.append(event)

    assert await store.replay_events_after(first, send) == "a"
    assert [e.event_id for e in sent] == [kept]  # not stream b's event
    for _ in range(3):
        await store.store_event("c", None)
    assert store.size == 3
    assert await store.replay_events_after(first, send) is None  # dropped: too old
    # bounded by size too: a few large results push the oldest out
    small = InMemoryEventStore(max_bytes=3000)
    for _ in range(5):
        await small.store_event("s", note("x" * 1000))
    assert small.size == 2 and small.bytes_held <= 3000
    with pytest.raises(ValueError, match="at least 1"):
        InMemoryEventStore(max_events=0)

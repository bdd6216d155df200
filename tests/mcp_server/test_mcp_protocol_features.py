"""What a tool's context and results become over MCP, with the SDK's own client.

Rich results as content blocks; logs filtered at the level the client set; elicitation and
sampling sent to the client (and refused at once by one that declared no such capability);
completion of tool arguments; SSE streams a client can resume with ``Last-Event-ID``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal

import httpx2
import mcp_types
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.server import MCPServer
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_support import WAIT, serving

from toolrig import ToolContext, tool
from toolrig.core import Audio, EmbeddedResource, Image, TextContent
from toolrig.mcp import ERROR_META_KEY, ToolServer
from toolrig.registry import Catalog

PNG = b"\x89PNG\r\n\x1a\nfake"


@tool
async def chatty(ctx: ToolContext) -> str:
    """Log at four levels."""
    for level in ("debug", "info", "warning", "error"):
        ctx.log(level, f"{level} message")
    return "ok"


@tool
def picture() -> Image:
    """An image."""
    return Image.from_bytes(PNG)


@tool
def everything() -> list[TextContent | Image | Audio | EmbeddedResource]:
    """Every kind of block."""
    return [
        TextContent(text="look:"),
        Image.from_bytes(PNG),
        Audio.from_bytes(b"RIFF", "audio/wav"),
        EmbeddedResource(uri="test://r", blob=base64.b64encode(b"\x00\x01").decode()),
    ]


@tool
async def ask(ctx: ToolContext) -> str:
    """Ask the user for a name."""
    schema = {"type": "object", "properties": {"name": {"type": "string", "default": "Bo"}}}
    answer = await ctx.elicit("Your name?", schema)
    return f"{answer.action}:{json.dumps(answer.content)}"


@tool
async def ask_nested(ctx: ToolContext) -> str:
    """Ask for an address as one nested object (not a form MCP can show)."""
    schema = {"type": "object", "properties": {"address": {"type": "object", "properties": {}}}}
    return (await ctx.elicit("Where?", schema)).action


@tool
async def think(ctx: ToolContext) -> str:
    """Ask the client's model."""
    return await ctx.sample([{"role": "user", "content": "2+2?"}], system="Be brief.")


@tool
async def slow(ctx: ToolContext) -> str:
    """Log, wait, answer."""
    ctx.log("warning", "started")
    await asyncio.sleep(0.4)
    return "finished"


@tool
def pick(color: Literal["red", "green", "blue"], size: str) -> str:
    """Pick a color and a size."""
    return f"{color} {size}"


def mounted() -> MCPServer:
    extras: MCPServer = MCPServer("extras")

    @extras.prompt(description="Greets")
    def greet(who: str) -> str:
        return f"Hello {who}"

    @extras.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> mcp_types.Completion:
        return mcp_types.Completion(values=[f"{argument.value}-done"])

    return extras


@contextlib.asynccontextmanager
async def running() -> AsyncIterator[str]:
    catalog = Catalog([chatty, picture, everything, ask, ask_nested, think, slow, pick])
    server = ToolServer(
        catalog,
        resources=mounted(),
        completers={"pick": {"size": lambda value, others: ["small", "large"]}},
    )
    async with serving(server) as url:
        yield url


@contextlib.asynccontextmanager
async def client(url: str, **callbacks: Any) -> AsyncIterator[ClientSession]:
    async with (
        streamable_http_client(url, http_client=create_mcp_http_client()) as (read, write),
        ClientSession(read, write, **callbacks) as session,
    ):
        await session.initialize()
        yield session


def error_code(result: mcp_types.CallToolResult) -> str | None:
    return None if result.meta is None else result.meta[ERROR_META_KEY]["code"]


async def test_rich_results_are_content_blocks() -> None:
    async with running() as url, client(url) as session:
        listed = {t.name: t for t in (await session.list_tools()).tools}
        assert listed["picture"].output_schema is None  # content, not structured data
        image = await session.call_tool("picture", {})
        assert image.structured_content is None and not image.is_error
        (block,) = image.content
        assert isinstance(block, mcp_types.ImageContent) and block.mime_type == "image/png"
        assert base64.b64decode(block.data) == PNG
        mixed = await session.call_tool("everything", {})
        assert [b.type for b in mixed.content] == ["text", "image", "audio", "resource"]
        resource = mixed.content[3]
        assert isinstance(resource, mcp_types.EmbeddedResource)
        assert isinstance(resource.resource, mcp_types.BlobResourceContents)


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_logs_follow_the_level_the_client_chose() -> None:
    seen: list[str] = []

    async def on_log(params: mcp_types.LoggingMessageNotificationParams) -> None:
        seen.append(params.level)

    async with running() as url, client(url, logging_callback=on_log) as session:
        assert session.server_capabilities is not None
        assert session.server_capabilities.logging is not None
        await session.call_tool("chatty", {})
        assert seen == ["info", "warning", "error"]  # the default level: info
        for level, expected in (
            ("error", ["error"]),
            ("debug", ["debug", "info", "warning", "error"]),
        ):
            seen.clear()
            await session.set_logging_level(level)  # type: ignore[arg-type]
            await session.call_tool("chatty", {})
            assert seen == expected, level


async def test_elicitation_and_sampling_go_to_the_client() -> None:
    prompts: list[Any] = []

    async def on_elicit(context: Any, params: mcp_types.ElicitRequestParams) -> Any:
        assert isinstance(params, mcp_types.ElicitRequestFormParams)
        assert params.requested_schema["properties"]["name"]["default"] == "Bo"
        return mcp_types.ElicitResult(action="accept", content={"name": "Ada"})

    async def on_sample(context: Any, params: mcp_types.CreateMessageRequestParams) -> Any:
        prompts.append((params.system_prompt, params.messages[0].content))
        return mcp_types.CreateMessageResult(
            role="assistant", content=mcp_types.TextContent(type="text", text="4"), model="m"
        )

    async with running() as url:
        async with client(url, elicitation_callback=on_elicit, sampling_callback=on_sample) as s:
            answered = await s.call_tool("ask", {})
            assert answered.content[0].text == 'accept:{"name": "Ada"}'  # type: ignore[union-attr]
            nested = await s.call_tool("ask_nested", {})
            assert nested.is_error and "`address`" in nested.content[0].text  # type: ignore[union-attr]
            sampled = await s.call_tool("think", {})
            assert sampled.content[0].text == "4"  # type: ignore[union-attr]
            assert prompts[0][0] == "Be brief."
        async with client(url) as plain:  # no elicitation, no sampling: refused at once
            refused = await asyncio.wait_for(plain.call_tool("ask", {}), 5)
            assert refused.is_error and error_code(refused) == "permission_denied"
            unsupported = await asyncio.wait_for(plain.call_tool("think", {}), 5)
            assert unsupported.is_error and error_code(unsupported) == "not_supported"


async def _complete(session: ClientSession, tool_name: str, name: str, value: str) -> Any:
    ref = mcp_types.PromptReference(type="ref/prompt", name=tool_name)  # the protocol's only way
    return (await session.complete(ref, {"name": name, "value": value})).completion.values


async def test_completion_of_tool_arguments_and_mounted_prompts() -> None:
    async with running() as url, client(url) as session:
        assert session.server_capabilities is not None
        assert session.server_capabilities.completions is not None
        assert await _complete(session, "pick", "color", "g") == ["green"]
        assert await _complete(session, "pick", "color", "") == ["red", "green", "blue"]
        assert await _complete(session, "pick", "size", "l") == ["large"]  # the completer
        assert await _complete(session, "pick", "nope", "") == []
        # a prompt of the mounted server: its own completion answers
        assert await _complete(session, "greet", "who", "Al") == ["Al-done"]
        assert (await session.get_prompt("greet", {"who": "Al"})).messages


def _events(text: str) -> list[dict[str, str]]:
    events = []
    for chunk in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in chunk.splitlines():
            key, _, value = line.partition(":")
            fields[key] = value.strip()
        if fields:
            events.append(fields)
    return events


async def test_a_broken_stream_resumes_with_last_event_id() -> None:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    async with running() as url, httpx2.AsyncClient(timeout=WAIT) as http:
        first = await http.post(url, json=init, headers=headers)
        session_headers = {
            **headers,
            "mcp-session-id": first.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        await http.post(
            url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=session_headers,
        )
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "slow"}}
        received = ""
        async with http.stream("POST", url, json=call, headers=session_headers) as response:
            async for chunk in response.aiter_text():  # drop the stream after the log message
                received += chunk
                if "started" in received:
                    break
        events = _events(received)
        priming = events[0]
        assert priming["id"] and priming["data"] == "" and int(priming["retry"]) > 0
        last_id = [e["id"] for e in events if "id" in e][-1]
        replay = ""
        resume_headers = {**session_headers, "Last-Event-ID": last_id}
        async with http.stream("GET", url, headers=resume_headers) as resumed:
            async for chunk in resumed.aiter_text():  # the rest of the call, then the stream idles
                replay += chunk
                if '"id":2' in replay:
                    break
        replayed = [json.loads(e["data"]) for e in _events(replay) if e.get("data")]
        assert replayed[-1]["id"] == 2
        assert replayed[-1]["result"]["content"][0]["text"] == "finished"


@pytest.mark.parametrize("level", ["verbose", "INFO"])
def test_an_unknown_log_level_is_refused(level: str) -> None:
    from toolrig.core.context._context import ToolContext as Context

    ctx = Context(tool="t", action=None, tool_call_id="c")
    with pytest.raises(ValueError, match="unknown log level"):
        ctx.log(level, "x")  # type: ignore[arg-type]


def test_completions_are_bounded() -> None:
    from toolrig.mcp._features import MAX_COMPLETIONS, complete_tool_argument
    from toolrig.providers import NameMap

    names = NameMap.from_tools([pick])
    many: Mapping[str, Any] = {"pick": {"size": lambda v, o: [str(i) for i in range(500)]}}
    assert len(complete_tool_argument(names, "pick", "size", "", {}, many)) == MAX_COMPLETIONS


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_a_2026_07_28_client_gets_the_fields_that_version_requires() -> None:
    from mcp import Client

    async with running() as url, Client(url, mode="2026-07-28") as modern:
        assert modern.protocol_version == "2026-07-28"
        assert {t.name for t in (await modern.list_tools()).tools} >= {"picture", "pick"}
        image = await modern.call_tool("picture", {})
        assert image.content[0].type == "image"
        prompt = mcp_types.PromptReference(type="ref/prompt", name="pick")
        done = await modern.complete(prompt, {"name": "color", "value": "b"})
        assert done.completion.values == ["blue"]


def test_serve_loads_tools_from_a_python_file(tmp_path: Any) -> None:
    from toolrig.cli._output import CliError
    from toolrig.cli._python_tools import python_server_options
    from toolrig.cli._serve import build_registry
    from toolrig.cli.main import build_parser

    def build_registry_of(*argv: str) -> Any:
        return build_registry(build_parser().parse_args(["serve", *argv]))

    good = tmp_path / "good_tools.py"
    good.write_text(
        "from toolrig import tool\n"
        "@tool\n"
        "def hello() -> str:\n"
        '    """Say hello."""\n'
        '    return "hi"\n'
        "tools = [hello]\n"
        "completers = {'hello': {}}\n"
    )
    for argv in ([str(good)], ["--catalog", str(good)]):
        registry = build_registry_of(*argv)
        assert registry.names() == ["hello"]
        registry.close()
    assert python_server_options([str(good)]) == {"completers": {"hello": {}}}
    empty = tmp_path / "no_tools.py"
    empty.write_text("x = 1\n")
    with pytest.raises(CliError, match="defines no `tools`"):
        build_registry_of(str(empty))
    broken = tmp_path / "broken_tools.py"
    broken.write_text("raise RuntimeError('nope')\n")
    with pytest.raises(CliError, match="importing it failed: RuntimeError: nope"):
        build_registry_of("--catalog", str(broken))

"""Importing a remote MCP server's tools and calling them, at the edges of what another server
(or a caller) may do (docs/mcp.md, "Importing"), against real servers on this machine: a plain
one made with the ``mcp`` SDK's low-level ``Server`` over stdio (`edge_server`), and toolrig's
own ``ToolServer`` over streamable HTTP on 127.0.0.1.

The promises: the list is read to its end, and a list that never ends is an error, not a hang;
remote names become provider-safe ``prefix__name``s, a name two remote tools would share
imports the first and lists the other in ``source.skipped``, and calls send the remote's own
name; a schema toolrig cannot enforce skips its tool with the reason, the others are checked
locally first; every result shape comes back as an output, every failure as a structured
`ToolResult` (never an exception): a tool the server no longer has is ``not_found`` (in either
wording, as a JSON-RPC error or in the result) and makes the list be read again, a server
that dies or forgets the session is ``execution_error`` (retryable) and the next call
reconnects, a timed-out call is cancelled on the server too; ``token`` is the credential sent,
whatever the spelling of an ``Authorization`` in ``headers``; a refresh that fails keeps the
last good list.

| promise | boundary | test |
|---|---|---|
| every page | a first page with no tools but a cursor: the next one read | `..._is_refused` |
| no endless list | the same cursor twice: `ToolError` naming it, nothing added | `..._is_refused` |
| names | `a.b`, `a_b` (one name once safe): first in, second `skipped` | `..._remote_s_own` |
| names | `x y`; two 70-char names: safe, distinct, at most 64 | `..._remote_s_own` |
| names | each call sends the remote's own name | `..._remote_s_own` |
| schemas | `$ref` into `$defs`: wrong type or bound refused here, not sent | `..._the_rest` |
| schemas | dangling `$ref`, one to a document, misspelt type: skipped, why | `..._the_rest` |
| results | 2 text blocks; text + image; no content; `structuredContent` | `..._an_output` |
| results | `isError` without content: `execution_error` with a message | `..._structured_error` |
| no such tool | -32602 "Unknown tool: x", "Tool 'x' not found.": gone | `..._invalid_params` |
| not that | -32602 "Issue 42 not found" (an argument's): refused, not gone | `..._invalid_params` |
| no such tool | `isError` "Unknown tool: x" (`MCPServer`): gone, re-listed | `..._is_not_found` |
| refresh | a tool gone: removed, the others stay | `..._good_list` |
| refresh | the list fails: raises, the last good list stays and runs | `..._good_list` |
| dies mid-call | the process exits: retryable; the next call reconnects | `..._closed_source` |
| nothing escapes | after `close(remove_tools=False)`: a structured error | `..._closed_source` |
| timeout | stdio: `timeout`; the server's handler cancelled; still serves | `..._over_stdio` |
| timeout | HTTP: `timeout`; the toolrig tool sees `CancelledError` | `..._over_http` |
| credentials | right `token`, wrong `authorization` (any case): in | `..._credential_sent` |
| credentials | wrong `token`, right header: refused at once, none added | `..._credential_sent` |
| session gone | restarted (404): retryable, next call reconnects | `..._session_reconnects` |
| session gone | `max_retries=1`: the caller never sees it | `..._session_reconnects` |

Breaks tried (each made the named test fail, then was undone): the repeated-cursor check
removed (``..._is_refused``: the import still listing at its bound); the token added without
removing a differently spelled ``authorization`` (``..._credential_sent``); the 404 hook doing
nothing (``..._session_reconnects``); ``_names_no_tool`` matching any "not found" again
(``..._invalid_params``); ``_answers_no_tool`` never true (``..._is_not_found``); one tool's
``ToolDefinitionError`` raised from ``_refresh`` (``..._the_rest``); `local_name` without
`provider_safe_name` (``..._remote_s_own``); ``_refresh`` applying an empty list when the list
fails (``..._good_list``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_support import WAIT, _read_url, serve_argv, server_env, serving, stop

from toolrig import ToolContext, ToolError, ToolExecutor, tool
from toolrig.core import Image, TextContent
from toolrig.mcp import MCPToolSource, ToolServer, add_mcp_server, add_mcp_server_async
from toolrig.registry import Catalog, Registry

SERVER = Path(__file__).resolve().parent / "edge_server.py"
OBJECT: dict[str, Any] = {"type": "object", "properties": {}}
SAY = {"type": "object", "properties": {"say": {"type": "string"}}, "required": ["say"]}
SHAPES = ["multi", "mixed", "empty", "bare_error", "structured", "slow", "die"]


def wait_until(predicate: Callable[[], bool]) -> bool:
    """Whether ``predicate`` became true within `WAIT` seconds (polled)."""
    deadline = time.monotonic() + WAIT
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def calls(state: Path) -> list[str]:
    """The calls the edge server received, as ``name arguments-json``."""
    path = state / "calls"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def write_tools(state: Path, tools: dict[str, Any]) -> None:
    (state / "tools.json").write_text(json.dumps(tools), encoding="utf-8")


@contextlib.contextmanager
def imported(
    state: Path, tools: dict[str, Any] | None = None, scenario: str = "listed", **keywords: Any
) -> Iterator[tuple[Registry, MCPToolSource]]:
    """The edge server's tools imported as ``e__...`` into a fresh registry."""
    state.mkdir(parents=True, exist_ok=True)
    write_tools(state, tools if tools is not None else dict.fromkeys(SHAPES, OBJECT))
    registry = Registry()
    argv = [sys.executable, str(SERVER), scenario, str(state)]
    source = add_mcp_server(registry, command=argv, prefix="e", **keywords)
    try:
        yield registry, source
    finally:
        source.close()
        registry.close()


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolExecutor]:
    tools = {**dict.fromkeys(SHAPES, OBJECT), "lookup": SAY}
    with (
        imported(tmp_path_factory.mktemp("shapes"), tools) as (registry, _),
        ToolExecutor(registry) as executor,
    ):
        yield executor


# -- the list ---------------------------------------------------------------------------------


def test_the_list_is_read_across_pages_and_a_list_that_never_ends_is_refused(
    tmp_path: Path,
) -> None:
    with imported(tmp_path / "empty", scenario="empty-page") as (registry, source):
        assert source.tools == {"e__late": "late"}  # past a first page holding nothing

    registry = Registry()
    raised: list[BaseException] = []

    def start() -> None:
        argv = [sys.executable, str(SERVER), "loop", str(tmp_path)]
        try:
            add_mcp_server(registry, command=argv, prefix="loop").close()
        except BaseException as exc:
            raised.append(exc)

    starting = threading.Thread(target=start, daemon=True)
    starting.start()
    starting.join(WAIT)
    assert not starting.is_alive(), "the import kept reading a list that never ends"
    assert len(raised) == 1 and isinstance(raised[0], ToolError), raised
    assert "'again'" in str(raised[0]) and "never ends" in str(raised[0])
    assert registry.names() == []
    assert wait_until(lambda: not any(t.name == "toolrig-mcp-loop" for t in threading.enumerate()))
    registry.close()


def test_names_are_made_provider_safe_and_calls_send_the_remote_s_own(tmp_path: Path) -> None:
    long_a, long_b = "x" * 69 + "a", "x" * 69 + "b"
    tools = dict.fromkeys(["a.b", "a_b", "x y", long_a, long_b], OBJECT)
    with imported(tmp_path, tools) as (registry, source), ToolExecutor(registry) as executor:
        assert source.tools["e__a_b"] == "a.b"  # listed first, so imported
        assert "collides" in source.skipped["a_b"] and "a_b" not in source.tools.values()
        assert source.tools["e__x_y"] == "x y"
        long_names = [name for name, remote in source.tools.items() if remote in (long_a, long_b)]
        assert len(set(long_names)) == 2 and all(len(name) <= 64 for name in long_names)
        assert sorted(registry.names()) == sorted(source.tools)
        for name, remote in source.tools.items():
            result = executor.execute_sync(name, {})
            assert result.output == remote, result  # the server echoes the name it was called by
        sent = sorted(line.rsplit(" ", 1)[0] for line in calls(tmp_path))
        assert sent == sorted(["a.b", "x y", long_a, long_b])


def test_odd_schemas_import_what_can_be_enforced_and_skip_the_rest(tmp_path: Path) -> None:
    tools = {
        "refs": {
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/N"}},
            "required": ["n"],
            "$defs": {"N": {"type": "integer", "minimum": 0}},
        },
        "dangling": {"type": "object", "properties": {"n": {"$ref": "#/$defs/Nowhere"}}},
        "elsewhere": {"type": "object", "properties": {"n": {"$ref": "https://example.com/n"}}},
        "misspelt": {"type": "object", "properties": {"n": {"type": "integr"}}},
        "plain": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    }
    with imported(tmp_path, tools) as (registry, source), ToolExecutor(registry) as executor:
        assert sorted(source.tools) == ["e__plain", "e__refs"]
        assert "Nowhere" in source.skipped["dangling"]
        assert "not fetched" in source.skipped["elsewhere"]
        assert "did you mean 'integer'" in source.skipped["misspelt"]
        for name in ("e__plain", "e__refs"):
            assert executor.execute_sync(name, {"n": "one"}).code == "invalid_arguments"
            assert executor.execute_sync(name, {}).code == "invalid_arguments"
        assert executor.execute_sync("e__refs", {"n": -1}).code == "invalid_arguments"
        assert calls(tmp_path) == []  # nothing wrong crossed the wire
        assert executor.execute_sync("e__refs", {"n": 2}).output == "refs"
        assert executor.execute_sync("e__plain", {"n": 2}).output == "plain"
        assert calls(tmp_path) == ['refs {"n": 2}', 'plain {"n": 2}']


# -- results and refusals ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("multi", "one\ntwo"),
        ("mixed", [TextContent(text="caption"), Image(data="iVBORw0K", mime_type="image/png")]),
        ("empty", ""),
        ("structured", {"n": 1}),
    ],
)
def test_every_result_shape_is_an_output(shapes: ToolExecutor, name: str, expected: Any) -> None:
    result = shapes.execute_sync(f"e__{name}", {})
    assert result.success, result
    assert result.output == expected


def test_an_error_result_without_content_is_a_structured_error(shapes: ToolExecutor) -> None:
    result = shapes.execute_sync("e__bare_error", {})
    assert result.code == "execution_error"
    assert result.error is not None and "failed without a message" in result.error.message


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("Unknown tool: lookup", "not_found"),  # the SDK's wording
        ("Tool 'lookup' not found.", "not_found"),  # toolrig's
        ("Issue 42 not found", "execution_error"),  # about an argument: the tool is there
    ],
)
def test_the_wording_of_invalid_params(shapes: ToolExecutor, message: str, code: str) -> None:
    result = shapes.execute_sync("e__lookup", {"say": message})
    assert result.code == code, result.error
    assert result.error is not None and message in result.error.message
    if code == "execution_error":
        assert "refused the call" in result.error.message


def test_a_tool_the_server_no_longer_has_in_the_result_is_not_found(tmp_path: Path) -> None:
    with imported(tmp_path, {"t0": OBJECT, "gone": OBJECT}) as (registry, _):
        write_tools(tmp_path, {"t0": OBJECT})  # the server drops a tool and says nothing
        with ToolExecutor(registry) as executor:
            gone = executor.execute_sync("e__gone", {})
            assert gone.code == "not_found", gone.error
            assert gone.error is not None and "Unknown tool: gone" in gone.error.message
            assert wait_until(lambda: "e__gone" not in registry)  # the list was read again
            assert executor.execute_sync("e__t0", {}).output == "t0"


def test_a_refresh_drops_what_is_gone_and_a_failed_one_keeps_the_last_good_list(
    tmp_path: Path,
) -> None:
    with imported(tmp_path, {"t0": OBJECT, "t1": OBJECT}) as (registry, source):
        write_tools(tmp_path, {"t0": OBJECT})
        source.refresh()
        assert sorted(registry.names()) == ["e__t0"] and source.tools == {"e__t0": "t0"}

        write_tools(tmp_path, {"t0": OBJECT, "t2": OBJECT})
        (tmp_path / "fail").write_text("1", encoding="utf-8")
        with pytest.raises(Exception, match="the list is unavailable"):
            source.refresh()
        assert sorted(registry.names()) == ["e__t0"] and source.tools == {"e__t0": "t0"}
        with ToolExecutor(registry) as executor:
            assert executor.execute_sync("e__t0", {}).output == "t0"

        (tmp_path / "fail").unlink()
        source.refresh()
        assert sorted(registry.names()) == ["e__t0", "e__t2"]


# -- connections that break -------------------------------------------------------------------


def test_a_server_that_dies_mid_call_then_a_closed_source(tmp_path: Path) -> None:
    with imported(tmp_path) as (registry, source), ToolExecutor(registry) as executor:
        died = executor.execute_sync("e__die", {})
        assert died.code == "execution_error" and died.error is not None
        assert died.error.retryable and "is unavailable" in died.error.message
        assert executor.execute_sync("e__multi", {}).output == "one\ntwo"  # reconnected
        source.close(remove_tools=False)
        closed = executor.execute_sync("e__multi", {})
        assert not closed.success and closed.code == "execution_error", closed
        assert closed.error is not None and "was closed" in closed.error.message, closed


def test_a_timeout_cancels_the_remote_call_over_stdio(tmp_path: Path) -> None:
    with imported(tmp_path) as (registry, _), ToolExecutor(registry) as executor:
        late = executor.execute_sync("e__slow", {}, timeout=1.0)
        assert late.code == "timeout" and late.error is not None, late
        assert (tmp_path / "started").exists()
        assert wait_until((tmp_path / "cancelled").exists)  # the server was told
        assert executor.execute_sync("e__multi", {}).output == "one\ntwo"


# -- over HTTP: toolrig's own server on 127.0.0.1 ---------------------------------------------


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def test_a_timeout_cancels_the_remote_call_over_http() -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

    @tool
    async def wait_forever(ctx: ToolContext) -> str:
        """Never finishes unless cancelled."""
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "unreachable"

    async with serving(ToolServer(Catalog([wait_forever, add]))) as url:
        registry = Registry()
        await add_mcp_server_async(registry, url=url, prefix="web")
        try:
            with ToolExecutor(registry) as executor:
                late = await executor.execute("web__wait_forever", {}, timeout=1.0)
                assert late.code == "timeout" and late.error is not None, late
                assert started.is_set()
                await asyncio.wait_for(cancelled.wait(), WAIT)  # the tool saw it
                assert (await executor.execute("web__add", {"a": 1, "b": 2})).output == 3
        finally:
            await asyncio.to_thread(registry.close)


@pytest.mark.parametrize(
    ("credential", "admitted"),
    [
        ({"token": "right"}, True),
        ({"headers": {"AUTHORIZATION": "Bearer right"}}, True),
        ({"headers": {"authorization": "Bearer wrong"}, "token": "right"}, True),
        ({"headers": {"Authorization": "Bearer wrong"}, "token": "right"}, True),
        ({"headers": {"Authorization": "Bearer right"}, "token": "wrong"}, False),
        ({"token": "wrong"}, False),
    ],
)
async def test_the_token_is_the_credential_sent(credential: dict[str, Any], admitted: bool) -> None:
    async with serving(ToolServer(Catalog([add])), token="right") as url:
        registry = Registry()
        try:
            start = add_mcp_server_async(
                registry, url=url, prefix="web", connect_timeout=WAIT, **credential
            )
            if admitted:
                await asyncio.wait_for(start, WAIT)
                with ToolExecutor(registry) as executor:
                    assert (await executor.execute("web__add", {"a": 1, "b": 2})).output == 3
            else:
                with pytest.raises(Exception, match="Unauthorized"):
                    await asyncio.wait_for(start, WAIT)  # at once: connect_timeout not waited
                assert registry.names() == []
        finally:
            await asyncio.to_thread(registry.close)


@contextlib.contextmanager
def served(port: int = 0) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``toolrig serve --transport http`` (the demo tools) in a process of its own on
    127.0.0.1, so that stopping it ends every connection as a restart does; yields its URL."""
    proc = subprocess.Popen(
        serve_argv("--transport", "http", "--host", "127.0.0.1", "--port", str(port)),
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        text=True,
        env=server_env(),
    )
    try:
        yield _read_url(proc), proc
    finally:
        stop(proc)


@pytest.mark.parametrize("max_retries", [0, 1])
def test_a_restarted_server_s_forgotten_session_reconnects(max_retries: int) -> None:
    registry = Registry()
    with served() as (url, _):
        add_mcp_server(registry, url=url, prefix="web", max_retries=max_retries)
        with ToolExecutor(registry) as executor:
            assert executor.execute_sync("web__add", {"a": 1, "b": 2}).output == 3
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    try:
        with served(port), ToolExecutor(registry) as executor:  # a new process: no session
            first = executor.execute_sync("web__add", {"a": 1, "b": 2})
            if max_retries:
                assert first.output == 3, first  # retried, on a new session
            else:
                assert first.code == "execution_error" and first.error is not None, first
                assert first.error.retryable and "is unavailable" in first.error.message
            again = executor.execute_sync("web__add", {"a": 2, "b": 3})
            assert again.output == 5, again
    finally:
        registry.close()

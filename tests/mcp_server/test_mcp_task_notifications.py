"""Task status notifications on the wire: ``notifications/tasks`` on a ``subscriptions/listen``
stream whose filter names the task (``taskIds``), over HTTP.

The listener hears each status change of its tasks (the result inlined once completed) and
nothing of a task it did not name; a listen without ``taskIds`` is the SDK's, unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from mcp_support import WAIT

from toolrig import ToolContext, tool
from toolrig.mcp import TaskPolicy, ToolServer, serve_http
from toolrig.registry import Catalog

EXTENSION = "io.modelcontextprotocol/tasks"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {
        "elicitation": {},
        "extensions": {EXTENSION: {}},
    },
}


@tool
async def ask_once(ctx: ToolContext) -> str:
    """Ask a word inside the task, and say it back."""
    form = {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}
    word = await ctx.elicit("Word?", form, key="word")
    return f"said {(word.content or {}).get('v')}"


def _headers(method: str, name: Any = None) -> dict[str, str]:
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
    }
    if name is not None:
        headers["mcp-name"] = str(name)
    return headers


async def rpc(client: httpx.AsyncClient, url: str, method: str, params: dict[str, Any]) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}
    name = params.get("taskId", params.get("name"))
    answer = await client.post(url, json=body, headers=_headers(method, name))
    return answer.json()["result"]


@asynccontextmanager
async def served(server: ToolServer | None = None) -> AsyncIterator[str]:
    server = server or ToolServer(
        Catalog([ask_once]), tasks=TaskPolicy(tools={"ask_once": "optional"})
    )
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    serving = asyncio.create_task(serve_http(server, port=0, on_ready=ready.set_result))
    try:
        yield await asyncio.wait_for(ready, WAIT)
    finally:
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(serving, WAIT)
        server.close()


@asynccontextmanager
async def listening(
    client: httpx.AsyncClient,
    url: str,
    notifications: dict[str, Any],
    rid: int,
    token: str | None = None,
) -> AsyncIterator[tuple[dict[str, Any], asyncio.Queue[dict[str, Any]]]]:
    """A listen stream: its acknowledgement, and a queue of the frames after it."""
    body = {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "subscriptions/listen",
        "params": {"notifications": notifications, "_meta": META},
    }
    frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    headers = _headers("subscriptions/listen")
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    async with client.stream("POST", url, json=body, headers=headers) as stream:
        lines = stream.aiter_lines()

        async def frame() -> dict[str, Any]:
            async for line in lines:
                if line.startswith("data:") and line[5:].strip():
                    found: dict[str, Any] = json.loads(line[5:])
                    return found
            raise AssertionError("the listen stream ended")

        ack = await asyncio.wait_for(frame(), WAIT)

        async def pump() -> None:
            while True:
                await frames.put(await frame())

        reader = asyncio.create_task(pump())
        try:
            yield ack, frames
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, AssertionError):
                await reader


async def test_a_listener_hears_its_tasks_status_changes_and_no_other() -> None:
    async with served() as url, httpx.AsyncClient(timeout=WAIT) as client:
        call = {"name": "ask_once", "arguments": {}}
        mine = (await rpc(client, url, "tools/call", call))["taskId"]
        other = (await rpc(client, url, "tools/call", call))["taskId"]
        async with (
            listening(client, url, {"taskIds": [mine]}, 7) as (ack, frames),
            listening(client, url, {"toolsListChanged": True}, 8) as (plain, unrelated),
        ):
            assert ack["method"] == "notifications/subscriptions/acknowledged"
            assert ack["params"]["notifications"] == {"taskIds": [mine]}
            assert ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 7
            assert plain["params"]["notifications"] == {"toolsListChanged": True}
            for _ in range(400):
                if (await rpc(client, url, "tasks/get", {"taskId": other}))[
                    "status"
                ] == "input_required" and (await rpc(client, url, "tasks/get", {"taskId": mine}))[
                    "status"
                ] == "input_required":
                    break
            for task_id in (other, mine):  # the other task ends first: nothing of it is heard
                answer = {"word": {"action": "accept", "content": {"v": task_id[:4]}}}
                await rpc(
                    client, url, "tasks/update", {"taskId": task_id, "inputResponses": answer}
                )
            heard = []
            while not heard or heard[-1]["params"]["status"] != "completed":
                heard.append(await asyncio.wait_for(frames.get(), WAIT))
            assert {n["method"] for n in heard} == {"notifications/tasks"}
            assert {n["params"]["taskId"] for n in heard} == {mine}
            assert [n["params"]["status"] for n in heard] == ["working", "completed"]
            last = heard[-1]["params"]
            assert last["result"]["content"][0]["text"] == f"said {mine[:4]}"
            assert last["_meta"]["io.modelcontextprotocol/subscriptionId"] == 7
            assert "resultType" not in last
            assert frames.empty() and unrelated.empty()


@tool
def later() -> str:
    """A tool added while a client listens."""
    return "later"


async def test_a_listen_naming_tasks_still_carries_the_list_changes_it_asked() -> None:
    catalog = Catalog([ask_once])
    server = ToolServer(catalog, tasks=TaskPolicy(tools={"ask_once": "optional"}))
    async with served(server) as url, httpx.AsyncClient(timeout=WAIT) as client:
        both = {"taskIds": ["t-1"], "toolsListChanged": True, "promptsListChanged": False}
        async with listening(client, url, both, 9) as (ack, frames):
            assert ack["params"]["notifications"] == {"taskIds": ["t-1"], "toolsListChanged": True}
            catalog.add(later)
            changed = await asyncio.wait_for(frames.get(), WAIT)
            assert changed["method"] == "notifications/tools/list_changed"
            assert changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 9

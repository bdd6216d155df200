"""Under ``auth=`` a task belongs to whoever started it.

Two callers of the local issuer (another subject, another client of the same subject) and the
owner after losing the tool's scope: each asks ``tasks/get``, ``tasks/update`` and
``tasks/cancel`` of the owner's task and gets exactly what an unknown task id gets; the task
is neither answered nor cancelled by them, and the owner then finishes it. The owner is kept
with the task in the execution log's row too.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from auth_issuer import Issuer
from mcp_support import WAIT
from test_mcp_auth import HEADERS, issuer, protected
from test_mcp_task_notifications import listening

from toolrig import ToolContext, tool
from toolrig.mcp import TaskPolicy, ToolServer
from toolrig.registry import Catalog
from toolrig.storage import SQLiteExecutionLog
from toolrig.storage._tasks import LogTasks

__all__ = ["issuer"]  # the fixture, imported

EXTENSION = "io.modelcontextprotocol/tasks"
SCOPE = "notes:tasks"


@tool(scopes=[SCOPE])
async def ask_once(ctx: ToolContext) -> str:
    """Ask a word inside the task, and say it back."""
    form = {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}
    word = await ctx.elicit("Word?", form, key="word")
    return f"said {(word.content or {}).get('v')}"


async def rpc(url: str, token: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One 2026-07-28 request with the extension declared; the JSON-RPC response."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": {EXTENSION: {}},
        },
    }
    headers = {
        **HEADERS,
        "authorization": f"Bearer {token}",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        "mcp-name": str(params.get("taskId", params.get("name"))),
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    async with httpx.AsyncClient(timeout=WAIT) as client:
        answer = await client.post(url, json=body, headers=headers)
    found: dict[str, Any] = answer.json()
    found["http"] = answer.status_code  # an unknown task's is 400: compared too
    return found


async def status(url: str, token: str, task_id: str) -> str:
    answer = await rpc(url, token, "tasks/get", {"taskId": task_id})
    return str(answer["result"]["status"])


def _unknown(answer: dict[str, Any], task_id: str) -> dict[str, Any]:
    """The error of ``answer`` with the task id it names put back to a placeholder."""
    error = dict(answer["error"], http=answer["http"])
    error["message"] = error["message"].replace(task_id, "ID")
    return error


@pytest.mark.parametrize("kept", ["memory", "log"])
async def test_only_the_owner_holding_the_scope_reaches_a_task(
    issuer: Issuer, kept: str, tmp_path: Path
) -> None:
    server = ToolServer(Catalog([ask_once]), tasks=TaskPolicy(tools={"ask_once": "optional"}))
    log = SQLiteExecutionLog(tmp_path / "log.db") if kept == "log" else None
    if log is not None:
        server.tasks.keep_in(log)
    async with protected(issuer, server=server) as url:
        owner = issuer.token(audience=url, scope=SCOPE)
        intruders = {
            "another subject": issuer.token(audience=url, scope=SCOPE, sub="mallory"),
            "another client": issuer.token(audience=url, scope=SCOPE, client_id="client-2"),
            "the owner without the scope": issuer.token(audience=url, scope="tools:read"),
        }
        created = await rpc(url, owner, "tools/call", {"name": "ask_once", "arguments": {}})
        task_id = created["result"]["taskId"]
        for _ in range(200):
            if await status(url, owner, task_id) == "input_required":
                break
        assert await status(url, owner, task_id) == "input_required"
        answer = {"action": "accept", "content": {"v": "stolen"}}
        requests = {
            "tasks/get": {},
            "tasks/update": {"inputResponses": {"word": answer}},
            "tasks/cancel": {},
        }
        for method, extra in requests.items():
            unknown = await rpc(url, owner, method, {"taskId": "no-such-task", **extra})
            assert unknown["error"]["code"] == -32602
            for who, token in intruders.items():
                refused = await rpc(url, token, method, {"taskId": task_id, **extra})
                assert "result" not in refused, (who, method)
                assert _unknown(refused, task_id) == _unknown(unknown, "no-such-task"), who
        # neither answered nor cancelled by them: the owner finishes it, and only the owner's
        # listen stream hears of it
        assert await status(url, owner, task_id) == "input_required"
        watch = {"taskIds": [task_id]}
        async with (
            httpx.AsyncClient(timeout=WAIT) as client,
            listening(client, url, watch, 5, owner) as (_, heard),
            listening(client, url, watch, 6, intruders["another subject"]) as (_, spied),
            listening(client, url, watch, 7, intruders["the owner without the scope"]) as (
                _,
                lost,
            ),
        ):
            mine = {"action": "accept", "content": {"v": "hello"}}
            update = {"taskId": task_id, "inputResponses": {"word": mine}}
            await rpc(url, owner, "tasks/update", update)
            frames = []
            while not frames or frames[-1]["params"]["status"] != "completed":
                frames.append(await asyncio.wait_for(heard.get(), WAIT))
            for stream in (spied, lost):  # heard after the owner's stream, if at all
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(stream.get(), 1.0)
        done = (await rpc(url, owner, "tasks/get", {"taskId": task_id}))["result"]
        assert done["status"] == "completed", done
        assert done["result"]["content"][0]["text"] == "said hello"
    if log is not None:
        row = LogTasks(log).load(task_id)
        assert row is not None and json.loads(row.principal or "") == ["user-1", "client-1"]
        log.close()


async def test_another_process_reading_the_row_keeps_the_owner(
    issuer: Issuer, tmp_path: Path
) -> None:
    """Two servers sharing one log (as ``--workers`` processes do): the one that does not run
    the task reads it from its row, owner included, and refuses the intruder the same way."""
    log = SQLiteExecutionLog(tmp_path / "log.db")
    servers = []
    for _ in range(2):
        server = ToolServer(Catalog([ask_once]), tasks=TaskPolicy(tools={"ask_once": "optional"}))
        server.tasks.keep_in(log)
        servers.append(server)
    async with (
        protected(issuer, server=servers[0]) as first,
        protected(issuer, server=servers[1]) as second,
    ):
        created = await rpc(
            first, issuer.token(audience=first, scope=SCOPE), "tools/call", {"name": "ask_once"}
        )
        task_id = created["result"]["taskId"]
        owner = issuer.token(audience=second, scope=SCOPE)
        intruder = issuer.token(audience=second, scope=SCOPE, sub="mallory")
        assert (await rpc(second, owner, "tasks/get", {"taskId": task_id}))["result"]["taskId"]
        unknown = await rpc(second, owner, "tasks/get", {"taskId": "no-such-task"})
        for method in ("tasks/get", "tasks/cancel"):
            refused = await rpc(second, intruder, method, {"taskId": task_id})
            assert _unknown(refused, task_id) == _unknown(unknown, "no-such-task"), method
        row = LogTasks(log).load(task_id)
        assert row is not None and row.status != "cancelled"  # the intruder's cancel: refused
    log.close()

"""An MCP task on a Celery worker that is killed mid-call: ``tasks/get`` ends ``failed`` with
the reason, and the tool's effect happened once, not again on the other worker.

The catalogue's ``work`` runs on a queue (``runs_on``), so `ToolServer` serves it as a task by
its placement; the call is made over HTTP as a 2026-07-28 client declaring the extension, the
task kept in the PostgreSQL execution log. The worker is killed (``kill -9`` of it and its
pool) once the tool's start mark appears: no sleeps set the pace.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from typing import Any

import httpx
import remote_tools
from dist_support import MARKS, Worker
from test_distributed_celery import appears, engine, log, queued

from toolrig import ToolExecutor
from toolrig.distributed import CeleryEngine, RemoteDispatch
from toolrig.mcp import ToolServer, serve_http
from toolrig.storage import ExecutionLog
from toolrig.storage._tasks import LogTasks

EXTENSION = "io.modelcontextprotocol/tasks"
__all__ = ["engine", "log"]  # the fixtures, imported
WAIT = 120.0
"""Seconds the whole scenario may take (a lost worker is noticed by the broker)."""


async def rpc(url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}},
    }
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        "mcp-name": str(params.get("taskId", params.get("name"))),
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    async with httpx.AsyncClient(timeout=30) as client:
        answer: dict[str, Any] = (await client.post(url, json=body, headers=headers)).json()
    return answer


def test_a_task_on_a_killed_worker_ends_failed_and_runs_once(
    workers: list[Worker], engine: CeleryEngine, log: ExecutionLog
) -> None:
    tag = f"mcp-task-{uuid.uuid4().hex[:6]}"
    starts = MARKS / f"{tag}.starts"
    executor = ToolExecutor([remote_tools.work])
    executor.dispatch_with(RemoteDispatch(engine, run_id=tag))
    server = ToolServer(executor)
    server.tasks.keep_in(log)

    async def scenario() -> tuple[Worker, dict[str, Any], str]:
        ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        serving = asyncio.create_task(serve_http(server, port=0, on_ready=ready.set_result))
        try:
            url = await asyncio.wait_for(ready, 30)
            arguments = {"tag": tag, "seconds": 25}  # killed long before it would end
            created = await rpc(url, "tools/call", {"name": "work", "arguments": arguments})
            assert created["result"]["resultType"] == "task", created
            task_id = created["result"]["taskId"]
            await appears(starts, timeout=30)
            pid = int(starts.read_text().split()[0])
            victim = next(w for w in workers if w.owns(pid))
            victim.kill()  # kill -9 of the worker and its pool, mid-call
            deadline = time.monotonic() + WAIT
            while time.monotonic() < deadline:
                task = (await rpc(url, "tasks/get", {"taskId": task_id}))["result"]
                if task["status"] != "working":
                    return victim, task, task_id
                await asyncio.sleep(0.1)  # the polling pace, not a synchronisation
            raise AssertionError(f"the task never ended: {task}")
        finally:
            serving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await serving

    try:
        victim, task, task_id = asyncio.run(scenario())
    finally:
        server.close()
    try:
        assert task["status"] == "failed", task
        assert "lost mid-call" in task["error"]["message"], task
        assert "result" not in task
        row = LogTasks(log).load(task_id)
        assert row is not None and row.status == "failed"
        assert len(starts.read_text().split()) == 1  # it started once, on the killed worker
        assert queued(remote_tools.QUEUE) == 0  # not waiting to run again either
        survivor = next(w for w in workers if w is not victim)
        assert survivor.proc is not None and survivor.proc.poll() is None
    finally:
        victim.start()
        victim.wait_ready()

"""MCP tasks (``io.modelcontextprotocol/tasks``) served by ``toolrig serve``, over HTTP.

Each promise attacked from the wire, as a client sees it: a cancelled task stops its work; a
task's state lives in the execution log (a restart keeps it, every ``--workers`` process
answers for it, a task whose process died ends ``failed`` with the reason); questions inside
a task are answered through ``tasks/update``; a client without the extension gets ordinary
calls, or -32021 for a tool that must run as a task.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
from mcp_support import WAIT, http_server

TOOLS = str(Path(__file__).with_name("task_tools.py"))
EXTENSION = "io.modelcontextprotocol/tasks"


def rpc(url: str, method: str, params: dict[str, Any], *, tasks: bool = True) -> dict[str, Any]:
    """One 2026-07-28 request (its envelope in ``_meta``); the JSON-RPC response."""
    caps: dict[str, Any] = {"elicitation": {}}
    if tasks:
        caps["extensions"] = {EXTENSION: {}}
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
    }
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
    }
    name = {"tools/call": params.get("name"), "resources/read": params.get("uri")}.get(
        method, params.get("taskId")
    )
    if name is not None:
        headers["mcp-name"] = str(name)
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    answer: dict[str, Any] = httpx.post(url, json=body, headers=headers, timeout=WAIT).json()
    return answer


def ack(answer: dict[str, Any]) -> bool:
    """Whether ``answer`` is the empty acknowledgement (beside the SDK's ``_meta``)."""
    result = answer.get("result", {})
    return {k: v for k, v in result.items() if k != "_meta"} == {"resultType": "complete"}


def call(url: str, tool: str, **arguments: Any) -> dict[str, Any]:
    result: dict[str, Any] = rpc(url, "tools/call", {"name": tool, "arguments": arguments})[
        "result"
    ]
    return result


def get(url: str, task_id: str) -> dict[str, Any]:
    answer = rpc(url, "tasks/get", {"taskId": task_id})
    assert "result" in answer, answer
    result: dict[str, Any] = answer["result"]
    return result


def until(url: str, task_id: str, *statuses: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        task = get(url, task_id)
        if task["status"] in statuses:
            return task
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} never reached {statuses}: {task}")


def lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def grows(path: Path, at_least: int) -> None:
    deadline = time.monotonic() + WAIT
    while lines(path) < at_least:
        assert time.monotonic() < deadline, "the task never started its work"
        time.sleep(0.05)


def test_a_cancelled_task_stops_its_work(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    with http_server(TOOLS) as (url, _):
        created = call(url, "count_up", path=str(marks))
        assert created["resultType"] == "task" and created["status"] == "working"
        grows(marks, 3)
        assert ack(rpc(url, "tasks/cancel", {"taskId": created["taskId"]}))
        task = until(url, created["taskId"], "cancelled", "completed", "failed")
        assert task["status"] == "cancelled" and "result" not in task
        time.sleep(0.3)
        stopped = lines(marks)
        time.sleep(0.5)  # ten more lines had it kept running
        assert lines(marks) == stopped
        # cancelling an ended task is the same empty ack; its status stays
        assert ack(rpc(url, "tasks/cancel", {"taskId": created["taskId"]}))
        assert get(url, created["taskId"])["status"] == "cancelled"


def test_questions_inside_a_task_are_answered_through_tasks_update(tmp_path: Path) -> None:
    with http_server(TOOLS) as (url, _):
        task_id = call(url, "ask_twice")["taskId"]
        first = until(url, task_id, "input_required")
        assert list(first["inputRequests"]) == ["name"]
        assert first["inputRequests"]["name"]["method"] == "elicitation/create"
        wrong = rpc(url, "tasks/update", {"taskId": task_id, "inputResponses": {"name": 3}})
        assert wrong["error"]["code"] == -32602  # not an elicitation's answer: refused
        answer = {"action": "accept", "content": {"v": "Ada"}}
        done_answer = rpc(
            url, "tasks/update", {"taskId": task_id, "inputResponses": {"name": answer}}
        )
        assert ack(done_answer)
        second = until(url, task_id, "input_required")
        deadline = time.monotonic() + WAIT
        while list(second.get("inputRequests", {})) != ["colour"]:
            assert time.monotonic() < deadline, second
            second = until(url, task_id, "input_required")
        answer = {"action": "accept", "content": {"v": "green"}}
        rpc(url, "tasks/update", {"taskId": task_id, "inputResponses": {"colour": answer}})
        done = until(url, task_id, "completed", "failed", "cancelled")
        assert done["result"]["content"][0]["text"] == "Ada likes green"


def test_without_the_extension_calls_are_ordinary_and_tasks_are_refused() -> None:
    with http_server(TOOLS) as (url, _):
        plain = rpc(url, "tools/call", {"name": "double", "arguments": {"x": 4}}, tasks=False)
        assert plain["result"]["resultType"] == "complete"
        assert "taskId" not in plain["result"] and plain["result"]["structuredContent"]
        needed = rpc(url, "tools/call", {"name": "must_be_task", "arguments": {}}, tasks=False)
        assert needed["error"]["code"] == -32021
        assert needed["error"]["data"]["requiredCapabilities"]["extensions"] == {EXTENSION: {}}
        task_id = call(url, "double", x=4)["taskId"]
        refused = rpc(url, "tasks/get", {"taskId": task_id}, tasks=False)
        assert refused["error"]["code"] == -32021
        assert rpc(url, "tasks/get", {"taskId": "no-such-task"})["error"]["code"] == -32602
        assert rpc(url, "tasks/cancel", {"taskId": "no-such-task"})["error"]["code"] == -32602
        for removed in ("tasks/list", "tasks/result"):
            assert rpc(url, removed, {"taskId": task_id})["error"]["code"] == -32601
        done = until(url, task_id, "completed")
        assert done["result"]["structuredContent"] == {"result": 8}


def test_tasks_live_in_the_log_a_restart_keeps_them_a_dead_server_fails_them(
    tmp_path: Path,
) -> None:
    log, marks = str(tmp_path / "log.sqlite3"), tmp_path / "marks"
    with http_server(TOOLS, "--log", log) as (url, proc):
        quick = call(url, "double", x=21)["taskId"]
        until(url, quick, "completed")
        long = call(url, "count_up", path=str(marks))["taskId"]
        grows(marks, 2)
        proc.kill()  # kill -9 mid-task: nothing ends the task but the log's view of it
        proc.wait(WAIT)
    with http_server(TOOLS, "--log", log) as (url, _):
        kept = get(url, quick)
        assert kept["status"] == "completed" and kept["result"]["structuredContent"] == {
            "result": 42
        }
        failed = until(url, long, "failed", "completed", "cancelled")
        assert failed["status"] == "failed" and "result" not in failed
        assert failed["error"]["code"] == -32603
        assert "stopped before it ended" in failed["error"]["message"]
        ran = lines(marks)
        time.sleep(0.3)
        assert lines(marks) == ran  # and nothing ran it again
    from toolrig.storage import open_log

    with open_log(log) as opened:  # each task's call is a record of the serve run (the console)
        records = opened.query(tool="double")
    assert [r.status for r in records] == ["succeeded"] and records[0].run_id.startswith("serve-")


def test_every_worker_answers_for_every_task(tmp_path: Path) -> None:
    log, marks = str(tmp_path / "log.sqlite3"), tmp_path / "marks"
    with http_server(TOOLS, "--log", log, "--workers", "2") as (url, _):
        ids = [call(url, "double", x=n)["taskId"] for n in range(4)]
        for n, task_id in enumerate(ids):
            for _ in range(4):  # spread over both workers: none answers -32602
                get(url, task_id)
            assert until(url, task_id, "completed")["result"]["structuredContent"] == {
                "result": 2 * n
            }
        long = call(url, "count_up", path=str(marks))["taskId"]
        grows(marks, 2)
        for _ in range(3):  # whichever worker takes it, the owner stops the work
            rpc(url, "tasks/cancel", {"taskId": long})
        assert until(url, long, "cancelled", "completed", "failed")["status"] == "cancelled"
        time.sleep(1.0)  # the owner looks at the log every 0.25 s
        stopped = lines(marks)
        time.sleep(0.5)
        assert lines(marks) == stopped
        asked = call(url, "ask_twice")["taskId"]
        for key, value in (("name", "Ada"), ("colour", "red")):
            deadline = time.monotonic() + WAIT
            while key not in until(url, asked, "input_required").get("inputRequests", {}):
                assert time.monotonic() < deadline
            answer = {"action": "accept", "content": {"v": value}}
            rpc(url, "tasks/update", {"taskId": asked, "inputResponses": {key: answer}})
        done = until(url, asked, "completed", "failed", "cancelled")
        assert done["result"]["content"][0]["text"] == "Ada likes red"


async def test_a_lost_worker_or_an_impossible_operation_ends_the_task_failed() -> None:
    """A call whose Celery worker was lost mid-call (the worker's reply carries
    ``details.worker_lost``, see tests/distributed) and one the tool says cannot be carried out
    end ``failed`` with the reason; an ordinary tool error ends ``completed`` with ``isError``."""
    import asyncio

    from mcp_support import serving

    from toolrig import ToolError, tool
    from toolrig.mcp import TASK_FAILED, TaskPolicy, ToolServer
    from toolrig.registry import Catalog

    @tool
    def lost() -> str:
        """Answers as a call whose worker was lost does."""
        raise ToolError(
            "The worker running `lost` was lost mid-call", details={"worker_lost": True}
        )

    @tool
    def impossible() -> str:
        """Cannot be done."""
        raise ToolError("the disk is gone", code=TASK_FAILED)

    @tool
    def refused() -> str:
        """A tool error."""
        raise ToolError("no")

    policy = TaskPolicy(tools=dict.fromkeys(("lost", "impossible", "refused"), "optional"))
    server = ToolServer(Catalog([lost, impossible, refused]), tasks=policy)
    async with serving(server) as url:
        ends = {}
        for name in ("lost", "impossible", "refused"):
            task_id = (await asyncio.to_thread(call, url, name))["taskId"]
            ends[name] = await asyncio.to_thread(until, url, task_id, "completed", "failed")
    assert (
        ends["lost"]["status"] == "failed" and "lost mid-call" in ends["lost"]["error"]["message"]
    )
    assert ends["impossible"]["error"] == {"code": -32603, "message": "the disk is gone"}
    assert ends["refused"]["status"] == "completed" and ends["refused"]["result"]["isError"]


# -- toolrig's own client: a remote tool the server runs as a task is awaited ---------------
async def test_an_imported_tool_run_as_a_task_is_awaited_its_questions_answered(
    tmp_path: Path,
) -> None:
    import asyncio
    import contextlib
    from collections.abc import Mapping

    from mcp_support import serving

    from toolrig import ToolExecutor
    from toolrig.cli._python_tools import load_python_tools
    from toolrig.core import Elicitation
    from toolrig.mcp import ToolServer, add_mcp_server_async
    from toolrig.registry import Catalog, Registry

    loaded = load_python_tools(TOOLS)
    server = ToolServer(Catalog(loaded.tools), tasks=loaded.tasks)
    created: list[str] = []
    server.tasks.on_status.append(lambda task: created.append(task.status))

    async def person(message: str, schema: Mapping[str, Any]) -> Elicitation:
        return Elicitation(action="accept", content={"v": message.rstrip("?")})

    marks = tmp_path / "marks"
    registry = Registry()
    try:
        async with serving(server) as url:
            await add_mcp_server_async(
                registry, prefix="far", url=url, protocol="2026-07-28", elicitor=person
            )
            with ToolExecutor(registry) as executor:
                done = await executor.execute("far__ask_twice", {})
                assert done.output == "Name likes Colour", done.to_text()
                assert "input_required" in created and created[-1] == "completed"
                doubled = await executor.execute("far__double", {"x": 5})
                assert doubled.success and doubled.output == 10, doubled.to_text()
                # a call given up here cancels its task there: the work stops
                running = asyncio.ensure_future(
                    executor.execute("far__count_up", {"path": str(marks)})
                )
                await asyncio.to_thread(grows, marks, 2)
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await running
                for _ in range(100):
                    if created[-1] == "cancelled":
                        break
                    await asyncio.sleep(0.05)
                assert created[-1] == "cancelled"
                stopped = lines(marks)
                await asyncio.sleep(0.4)
                assert lines(marks) == stopped
    finally:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(registry.close)


def test_a_task_result_is_cut_to_the_budget_and_its_whole_read_back() -> None:
    whole = "".join(f"{i:06d} noisy line\n" for i in range(20_000))
    with http_server(TOOLS) as (url, _):
        task_id = call(url, "noisy")["taskId"]
        task = until(url, task_id, "completed", "failed")
        assert task["status"] == "completed", task
        blocks = task["result"]["content"]
        text = next(b["text"] for b in blocks if b["type"] == "text")
        assert len(text) <= 32_000 < len(whole)  # the model side gets the cut, not 360 kB
        assert text.startswith("000000 noisy line") and text.endswith("019999 noisy line\n")
        (link,) = [b for b in blocks if b["type"] == "resource_link"]
        assert link["uri"].startswith("toolrig://results/res_") and link["size"] == len(whole)
        read = rpc(url, "resources/read", {"uri": link["uri"]})
        assert "result" in read, read
        assert read["result"]["contents"][0]["text"] == whole

"""Tool calls on real Celery workers: the same answers as local calls, refused before sending
when invalid, on time with no worker, revoked on cancellation, never lost or silently run twice
when a worker is killed, plans across workers that resume, and one log record per call."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import remote_tools
from dist_support import BACKEND, BROKER, HERE, MARKS, Worker

from runtime_timing import Beside
from toolrig import ToolExecutor, tool
from toolrig.core.context._recording import Recording, recording
from toolrig.distributed import CeleryEngine, RemoteDispatch, catalog_version
from toolrig.storage import ExecutionLog, open_log

TOOLS = [
    getattr(remote_tools, n) for n in ("add", "divide", "shout", "nap", "work", "settle", "whoami")
]


@pytest.fixture(scope="module")
def engine() -> Iterator[CeleryEngine]:
    remote = CeleryEngine(BROKER, BACKEND)
    yield remote
    remote.close()


@pytest.fixture(scope="module")
def log(postgres_url: str) -> Iterator[ExecutionLog]:
    opened = open_log(postgres_url)
    yield opened
    opened.close()


def remote_executor(engine: CeleryEngine, log: ExecutionLog, run_id: str) -> ToolExecutor:
    executor = ToolExecutor([*TOOLS, remote_tools.unserved])
    executor.dispatch_with(RemoteDispatch(engine, run_id=run_id))
    return executor


def recorded(log: ExecutionLog, run_id: str) -> Any:
    """The calls made inside are recorded in ``run_id``: by the caller, once per call (the
    worker that runs one records nothing)."""
    return recording(Recording(sink=log, run_id=run_id))


def plain(result: Any) -> dict[str, Any]:
    return result.to_dict(include_metadata=False)


def queued(queue: str) -> int:
    """Messages waiting in ``queue`` on the broker (0 when it was never declared)."""
    from kombu import Connection
    from kombu.exceptions import OperationalError

    with Connection(BROKER) as conn:
        channel = conn.channel()
        try:
            return int(channel.queue_declare(queue=queue, passive=True).message_count)
        except (OperationalError, Exception) as exc:  # amqp's NotFound: never declared
            if "NOT_FOUND" in str(exc) or "no queue" in str(exc):
                return 0
            raise


def purge(queue: str) -> None:
    from kombu import Connection

    with Connection(BROKER) as conn:
        conn.default_channel.queue_purge(queue)


async def appears(path: Path, timeout: float = 10.0) -> None:
    """Wait until ``path`` exists (a tool on a worker wrote it)."""
    for _ in range(int(timeout / 0.02)):
        if await asyncio.to_thread(path.exists):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


def one_record_per_call(log: ExecutionLog, run_id: str, expected: int) -> None:
    records = log.query(run_id=run_id)
    ids = [r.tool_call_id for r in records]
    assert len(ids) == expected and len(set(ids)) == expected, ids


def test_remote_result_is_the_local_one(
    workers: list[Worker], engine: CeleryEngine, log: ExecutionLog
) -> None:
    run_id = f"same-{uuid.uuid4().hex[:6]}"
    remote = remote_executor(engine, log, run_id)
    local = ToolExecutor(TOOLS)  # no dispatch: runs_on is ignored, every call runs here
    calls = [
        ("add", {"a": 2, "b": 40}),
        ("add", {"a": "2", "b": 3}),  # coerced the same way on both sides
        ("shout", {"text": "héllo", "times": 2}),
        ("divide", {"a": 1, "b": 0}),  # the tool's own failure
        ("divide", {"a": 1}),  # refused by validation
        ("nap", {"seconds": 0.01, "mark": "same"}),
    ]
    with recorded(log, run_id):
        remote_results = remote.execute_many_sync(calls)
    local_results = local.execute_many_sync(calls)
    for (name, _), got, want in zip(calls, remote_results, local_results, strict=True):
        if name == "nap":  # its output is the process id: only where it ran differs
            assert got.success and want.success and got.output != os.getpid()
            continue
        assert plain(got) == plain(want), name
    sent = [r for r in remote_results if r.metadata and r.metadata.extra]
    assert {r.metadata.extra["remote"]["worker"].split("@")[0] for r in sent} <= {
        f"w1-{MARKS.name[-8:]}",
        f"w2-{MARKS.name[-8:]}",
    }
    assert len(sent) == 5  # the invalid call never left
    one_record_per_call(log, run_id, len(calls))


def test_call_id_and_trace_context_travel_with_the_call(
    workers: list[Worker], engine: CeleryEngine, log: ExecutionLog
) -> None:
    from opentelemetry.sdk.trace import TracerProvider

    executor = remote_executor(engine, log, f"trace-{uuid.uuid4().hex[:6]}")
    tracer = TracerProvider().get_tracer("test")
    with tracer.start_as_current_span("caller") as span:
        result = executor.execute_sync("whoami", {}, tool_call_id="my-call-" + uuid.uuid4().hex)
        trace_id = format(span.get_span_context().trace_id, "032x")
    assert result.success, result
    assert result.output == {"call_id": result.metadata.tool_call_id, "trace_id": trace_id}
    assert result.output["call_id"].startswith("my-call-")


def test_bad_call_never_reaches_the_broker(engine: CeleryEngine, log: ExecutionLog) -> None:
    executor = remote_executor(engine, log, f"bad-{uuid.uuid4().hex[:6]}")
    queue = remote_tools.IDLE_QUEUE
    sent = engine.sent
    for bad in ({"a": "x"}, {}, {"a": 1, "extra": 2}, "not json"):
        result = executor.execute_sync("unserved", bad)
        assert result.code == "invalid_arguments", result
    assert engine.sent == sent and queued(queue) == 0
    # the same probe sees a valid call's message while it waits (no worker consumes that
    # queue), and sees the broker drop it once its deadline passed

    async def valid_call() -> tuple[int, str | None]:
        task = asyncio.ensure_future(executor.execute("unserved", {"a": 1}))
        await asyncio.sleep(0.2)
        waiting = queued(queue)
        return waiting, (await task).code

    assert asyncio.run(valid_call()) == (1, "timeout")
    assert engine.sent == sent + 1
    time.sleep(0.1)
    assert queued(queue) == 0


def test_timeout_holds_with_no_worker_alive(engine: CeleryEngine, log: ExecutionLog) -> None:
    run_id = f"late-{uuid.uuid4().hex[:6]}"
    executor = remote_executor(engine, log, run_id)
    with Beside(0.5) as ref, recorded(log, run_id):
        result = executor.execute_sync("unserved", {"a": 1})
    assert result.code == "timeout" and result.error is not None and result.error.retryable
    # the tool's limit is 0.5 s; broken, the caller would wait for a worker that never comes
    assert 0.5 <= ref.elapsed < ref.bound(1.0), ref.elapsed
    # with a call-time limit too, and several at once
    with Beside(0.6) as ref, recorded(log, run_id):
        results = asyncio.run(_gather(executor, [("unserved", {"a": i}) for i in range(5)], 0.6))
    assert [r.code for r in results] == ["timeout"] * 5
    assert ref.elapsed < ref.bound(1.0), ref.elapsed  # one 0.6 s limit, not five in a row (3 s)
    purge(remote_tools.IDLE_QUEUE)
    one_record_per_call(log, run_id, 6)


async def _gather(
    executor: ToolExecutor, calls: list[tuple[str, dict[str, Any]]], timeout: float
) -> list[Any]:
    return list(await asyncio.gather(*(executor.execute(n, a, timeout=timeout) for n, a in calls)))


def test_the_worker_stops_a_call_at_its_time_limit(
    workers: list[Worker], engine: CeleryEngine
) -> None:
    # sent straight to the engine, so only the worker's limit can end it
    from toolrig.distributed import RemoteCall, tool_fingerprint

    task_id = "limit-" + uuid.uuid4().hex
    call = RemoteCall(
        tool="nap",
        action="nap",
        arguments={"seconds": 5, "mark": "limited"},
        call_id=task_id,
        task_id=task_id,
        queue=remote_tools.QUEUE,
        timeout=0.5,
        fingerprint=tool_fingerprint(remote_tools.nap.spec),
        idempotent=False,
    )

    async def scenario() -> dict[str, Any] | None:
        await engine.submit(call)
        return await engine.wait(task_id, 5)

    with Beside(0.5) as ref:
        reply = asyncio.run(scenario())
    assert reply is not None and reply["error"]["code"] == "timeout", reply
    assert "on worker" in reply["error"]["message"]
    assert ref.elapsed < ref.bound(2.0), ref.elapsed  # the worker's limit, not the 5 s nap


def test_cancellation_revokes_the_task(
    workers: list[Worker], engine: CeleryEngine, log: ExecutionLog
) -> None:
    executor = remote_executor(engine, log, f"cancel-{uuid.uuid4().hex[:6]}")
    mark = MARKS / "cancelled.pid"

    async def scenario() -> tuple[str, int]:
        task = asyncio.ensure_future(
            executor.execute(
                "nap",
                {"seconds": 20, "mark": "cancelled"},
                timeout=30,
                tool_call_id="c-" + uuid.uuid4().hex,
            )
        )
        await appears(mark)
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return task.get_name(), int(mark.read_text())

    _, pid = asyncio.run(scenario())
    # the revocation killed the pool process running the call
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a killed child stays a zombie until its worker reaps it
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "zombie" not in status.read_text()


@pytest.mark.parametrize("tool_name", ["work", "settle"])
def test_worker_killed_mid_call_loses_nothing(
    workers: list[Worker], engine: CeleryEngine, log: ExecutionLog, tool_name: str
) -> None:
    run_id = f"kill-{tool_name}-{uuid.uuid4().hex[:6]}"
    executor = remote_executor(engine, log, run_id)
    tag = run_id
    starts = MARKS / f"{tag}.starts"

    async def scenario() -> Any:
        task = asyncio.ensure_future(executor.execute(tool_name, {"tag": tag, "seconds": 1.5}))
        await appears(starts)
        pid = int(starts.read_text().split()[0])
        victim = next(w for w in workers if w.owns(pid))
        victim.kill()  # kill -9 of the worker and its pool, mid-call
        result = await task
        return victim, result

    with recorded(log, run_id):
        victim, result = asyncio.run(scenario())
    victim.start()
    lines = starts.read_text().split()
    survivor = next(w for w in workers if w is not victim)
    if tool_name == "settle":  # idempotent: taken by the other worker and run to the end
        assert result.success, result
        assert len(lines) == 2 and survivor.owns(int(lines[1]))
    else:  # not idempotent: reported failed, never run a second time
        assert result.code == "execution_error" and "lost mid-call" in result.error.message
        assert result.error.details == {"worker_lost": True}  # an MCP task ends `failed` on it
        assert len(lines) == 1
    assert result.metadata.extra["remote"]["worker"].startswith(survivor.name)
    one_record_per_call(log, run_id, 1)
    victim.wait_ready()


def test_plan_spans_two_workers_and_resumes_after_its_runner_dies(
    workers: list[Worker], postgres_url: str, log: ExecutionLog
) -> None:
    plan_id = f"plan-{uuid.uuid4().hex[:8]}"
    command = [
        sys.executable, str(HERE / "plan_runner.py"), BROKER, BACKEND, postgres_url, plan_id
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), *sys.path])}
    first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE)
    c_starts = MARKS / f"{plan_id}-c.starts"
    deadline = time.monotonic() + 20
    while not c_starts.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert c_starts.exists(), "step c never started"
    first.kill()  # kill -9 of the runner while step c runs on a worker
    first.wait()
    second = subprocess.run(command, env=env, capture_output=True, timeout=60, check=True)
    outcome = json.loads(second.stdout)
    assert outcome["success"] and outcome["reused"] == ["a", "b"]
    pids = {step: int((MARKS / f"{plan_id}-{step}.starts").read_text()) for step in "abc"}
    # a and b ran at once, one on each worker; nothing ran twice (one pid per starts file)
    assert {next(w.name for w in workers if w.owns(pids[s])) for s in "ab"} == {"w1", "w2"}
    assert outcome["outputs"]["c"]["after"] == [pids["a"], pids["b"]]
    records = log.query(run_id=plan_id)
    assert sorted(r.step_id or "" for r in records) == ["a", "b", "c"]


def test_an_unreachable_broker_or_result_store_is_an_answer_not_a_hang() -> None:
    down_broker = CeleryEngine("amqp://guest:guest@127.0.0.1:1//", BACKEND)
    down_store = CeleryEngine(BROKER, "redis://127.0.0.1:1/0")
    for remote, words in ((down_broker, "could not be sent"), (down_store, "cannot be read")):
        executor = ToolExecutor([remote_tools.unserved])
        executor.dispatch_with(RemoteDispatch(remote))
        t0 = time.monotonic()
        result = executor.execute_sync("unserved", {"a": 1})
        assert result.code == "execution_error" and words in result.error.message, result
        assert time.monotonic() - t0 < 5
        remote.close()
    purge(remote_tools.IDLE_QUEUE)


def test_worker_refuses_a_catalogue_callers_do_not_expect() -> None:
    from dist_support import worker_command

    command = [*worker_command("refused"), "--expect-version", "0123456789abcdef"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    mine = catalog_version([*TOOLS, remote_tools.unserved])
    assert f"the catalogue's version is {mine} but callers expect 0123456789abcdef" in done.stderr
    printed = subprocess.run(
        [*worker_command("p"), "--print-version"], capture_output=True, text=True, timeout=60
    )
    assert printed.stdout.strip() == mine


def test_a_call_to_a_different_tool_of_the_same_name_is_refused(
    workers: list[Worker], engine: CeleryEngine, log: ExecutionLog
) -> None:
    @tool(name="add", runs_on=remote_tools.QUEUE)
    def other_add(a: int, b: int, c: int = 0) -> int:
        """Another sum."""
        return a + b + c

    executor = ToolExecutor([other_add])
    executor.dispatch_with(RemoteDispatch(engine))
    result = executor.execute_sync("add", {"a": 1, "b": 2})
    assert result.code == "version_mismatch" and "deploy the same catalogue" in result.error.message


def test_yaml_catalogue_on_a_redis_broker_from_the_command_line(tmp_path: Path) -> None:
    # the README's commands: a worker hosting examples/remote, and `toolrig call --broker`
    root = HERE.parents[1]
    queue = f"analysis-{uuid.uuid4().hex[:8]}"
    catalog = tmp_path / "remote"
    catalog.mkdir()
    text = (root / "examples/remote/keyword_extractor.yaml").read_text()
    (catalog / "keyword_extractor.yaml").write_text(
        text.replace("runs_on: analysis", f"runs_on: {queue}")
    )
    broker = BACKEND.rsplit("/", 1)[0] + "/6"
    common = ["--catalog", str(catalog), "--import-path", str(root / "examples")]
    worker = Worker("yaml")
    worker.logfile = MARKS / "yaml.log"
    with worker.logfile.open("wb") as out:
        worker.proc = subprocess.Popen(
            [sys.executable, "-m", "toolrig.cli.main", "worker", *common, "--broker", broker,
             "--loglevel", "INFO"],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        worker.wait_ready()
        call = [sys.executable, "-m", "toolrig.cli.main", "call", "keyword_extractor",
                'text_data:=["blue kettle", "a blue kettle"]', *common, "--json"]  # fmt: skip
        remote = subprocess.run(
            [*call, "--broker", broker], capture_output=True, text=True, timeout=60
        )
        local = subprocess.run(call, capture_output=True, text=True, timeout=60)
    finally:
        worker.stop()
    got, want = json.loads(remote.stdout), json.loads(local.stdout)
    assert remote.returncode == 0 and got["metadata"]["extra"]["remote"]["queue"] == queue
    assert (
        got["output"]
        == want["output"]
        == {"keywords": [{"keyword": "blue", "count": 2}, {"keyword": "kettle", "count": 2}]}
    )


def test_front_end_sends_served_calls_to_workers_and_logs_them(
    workers: list[Worker], postgres_url: str, log: ExecutionLog, tmp_path: Path
) -> None:
    # `toolrig serve --broker` (stateless HTTP): an MCP tools/call runs on a worker and is
    # recorded once, by the front end, in the shared log
    import socket

    import httpx

    served = tmp_path / "served.py"
    served.write_text("import remote_tools\n\ntools = [remote_tools.nap]\n")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        sys.executable, "-m", "toolrig.cli.main", "serve", str(served), "--import-path",
        str(HERE), "--transport", "http", "--port", str(port), "--stateless", "--broker",
        BROKER, "--backend", BACKEND, "--log", postgres_url,
    ]  # fmt: skip
    front = subprocess.Popen(command, stderr=subprocess.PIPE, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "nap", "arguments": {"seconds": 0.01, "mark": "served"}},
        }
        headers = {
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2025-06-18",
        }
        answer = httpx.post(url + "/mcp", json=body, headers=headers, timeout=10).json()
    finally:
        os.killpg(front.pid, 9)
        front.wait()
    result = answer["result"]
    assert not result.get("isError"), result
    pid = int(result["structuredContent"]["result"])
    assert any(w.owns(pid) for w in workers)  # it ran on a worker, not in the front end
    records = [r for r in log.query(tool="nap") if r.run_id.startswith("serve-")]
    assert len(records) == 1 and records[0].output == pid

"""One call, composed: the promises of the pipeline's redesign, each tried at its boundary.

Each promise, and the test that tries it:

- the call-name rule is written once: ``test_the_call_name_rule_lives_in_one_module``;
- every seam sees the one ``Call`` (hooks, middleware, listeners; composed and straight paths):
  ``test_every_seam_sees_the_one_call``;
- a remote call finds its action by its two names:
  ``test_a_worker_runs_an_action_named_like_its_multi_action_tool``;
- remote attempts are retried by the pipeline, with events:
  ``test_remote_attempts_are_retried_by_the_pipeline``;
- a YAML async executor runs on one loop: ``test_a_yaml_async_executor_runs_on_one_loop``;
- an in-memory log records from every thread:
  ``test_an_in_memory_log_records_calls_from_the_pipelines_threads``;
- the approval gate never changes the caller's executor:
  ``test_the_approval_gate_lives_in_the_agents_own_pipeline``;
- the name map is built once per catalogue version:
  ``test_the_name_map_is_built_once_per_catalogue_version``.
"""

from __future__ import annotations

import asyncio
import re
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from toolrig import BaseTool, ToolExecutor, ToolResult, action, tool
from toolrig.core.model._errors import RetryableToolError
from toolrig.providers import NameMap
from toolrig.runtime import Call, CallNext, RetryPolicy, ToolEvent

SRC = Path(__file__).resolve().parents[2] / "src" / "toolrig"


def test_the_call_name_rule_lives_in_one_module() -> None:
    """Joining two names with ``.`` or ``__`` in an f-string is how the rule was re-derived;
    only ``core/model/_names.py`` may do it (other dotted f-strings join paths, not names)."""
    joined = re.compile(r"f[\"'][^\"']*\{[^}]*\}(\.|__)\{[^}]*\}")
    unrelated = {  # dotted f-strings that are not call names
        "core/schema/_schema_vocabulary.py",  # JSON Schema locations
        "core/schema/_params.py",  # parameter paths in errors
        "providers/_importing.py",  # parameter paths
        "registry/_intents.py",  # intent domain.capability pairs
        "runtime/_plan_reuse.py",  # plan.step.count.digest keys
        "tools/_sandbox.py",  # temporary file names
        "tools/_pg_catalog.py",  # schema-qualified SQL function names
    }
    offenders = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        if rel == "core/model/_names.py" or rel in unrelated:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if joined.search(line):
                offenders.append(f"{rel}:{number}: {line.strip()}")
    assert offenders == []
    names = (SRC / "core" / "model" / "_names.py").read_text()
    assert "{_DOT}{" in names and "{_WIRE}{" in names  # where the rule is written


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_every_seam_sees_the_one_call() -> None:
    seen: dict[str, list[Any]] = {"pre": [], "post": [], "middleware": [], "listener": []}

    async def middleware(call: Call, call_next: CallNext) -> ToolResult:
        seen["middleware"].append(call)
        return await call_next(call)

    composed = ToolExecutor([add], middleware=[middleware])
    composed.add_pre_hook(lambda call: seen["pre"].append(call))
    composed.add_post_hook(lambda call, result: seen["post"].append(call))
    composed.add_listener(lambda event: seen["listener"].append(event.call))
    assert composed.execute_sync("add", {"a": 1, "b": 2}, tool_call_id="c1").output == 3
    for seam, calls in seen.items():
        assert calls and all(type(c) is Call for c in calls), seam
        assert {(c.tool, c.action, c.tool_call_id) for c in calls} == {("add", "add", "c1")}
    straight = ToolExecutor([add])  # no hook or middleware: the straight line
    events: list[ToolEvent] = []
    straight.add_listener(events.append)
    straight.execute_sync("add", {"a": 1, "b": 2}, tool_call_id="c2")
    assert [type(e.call) for e in events] == [Call, Call]
    assert all(e.call is not None and e.call.tool_call_id == "c2" for e in events)
    # a hook that keeps its call keeps what it saw, not what later steps made of it
    assert seen["pre"][0].arguments == {"a": 1, "b": 2}


def test_call_names_are_plain_names_and_the_objects_are_owner_and_target() -> None:
    seen: list[Call] = []

    async def keep(call: Call, call_next: CallNext) -> ToolResult:
        seen.append(call)
        return await call_next(call)

    executor = ToolExecutor([add], middleware=[keep])
    assert executor.execute_sync("add", {"a": 1, "b": 2}).output == 3
    (call,) = seen
    assert type(call.tool) is str and type(call.action) is str  # names, as in every record
    assert call.owner is add and call.target is add.get_action("add")
    assert not hasattr(call.tool, "spec") and not hasattr(call.action, "validator")


class Files(BaseTool):
    """Files, with an action named like the tool."""

    name = "files"

    @action
    def files(self, n: int) -> int:
        """List."""
        return n + 1

    @action
    def read(self, n: int) -> int:
        """Read."""
        return n * 10


class LoopbackEngine:
    """A broker stand-in that hands each task to a real worker host in a thread (the worker's
    code, ledger and pipeline are the real ones; only the message transport is skipped)."""

    def __init__(self, host: Any) -> None:
        self.host = host
        self.replies: dict[str, dict[str, Any]] = {}
        self.sent: list[str] = []

    async def submit(self, call: Any) -> None:
        self.sent.append(call.task_id)
        reply = await asyncio.to_thread(self.host.run, call.to_json(), "w1")
        self.replies[call.task_id] = reply

    async def wait(self, task_id: str, timeout: float | None) -> dict[str, Any] | None:
        return self.replies.get(task_id)

    async def revoke(self, task_id: str) -> None:
        return None

    async def taken(self, task_id: str) -> bool:
        return task_id in self.replies


def _host(tools: list[Any]) -> Any:
    pytest.importorskip("celery", reason="needs the distributed extra")
    import celery.exceptions  # what a worker process has loaded  # noqa: F401

    from toolrig.distributed._ledger import CallLedger
    from toolrig.distributed._worker import WorkerHost
    from toolrig.registry import Catalog

    return WorkerHost(Catalog(tools), CallLedger("redis://127.0.0.1:6379/14"), celery_limits=False)


def test_a_worker_runs_an_action_named_like_its_multi_action_tool() -> None:
    from toolrig.distributed import RemoteDispatch

    files = Files()
    engine = LoopbackEngine(_host([files]))
    executor = ToolExecutor([files])
    executor.dispatch_with(RemoteDispatch(engine, rule=lambda call: "q"))
    for name, value in (("files.files", 2), ("files.read", 10)):
        result = executor.execute_sync(name, {"n": 1}, tool_call_id=f"t-{uuid.uuid4().hex}")
        assert result.success and result.output == value, result.to_text()
        assert result.metadata is not None and result.metadata.extra == {
            "remote": {"queue": "q", "worker": "w1"}
        }


def test_remote_attempts_are_retried_by_the_pipeline() -> None:
    from toolrig.distributed import RemoteDispatch

    tries: list[int] = []

    @tool(max_retries=2)
    def flaky(n: int) -> int:
        """Fails twice, then answers."""
        tries.append(n)
        if len(tries) < 3:
            raise RetryableToolError("busy")
        return n

    engine = LoopbackEngine(_host([flaky]))
    executor = ToolExecutor([flaky], retry=RetryPolicy(initial_delay=0.001, jitter=False))
    executor.dispatch_with(RemoteDispatch(engine, rule=lambda call: "q"))
    kinds: list[str] = []
    executor.add_listener(lambda event: kinds.append(event.kind))
    call_id = f"r-{uuid.uuid4().hex}"
    result = executor.execute_sync("flaky", {"n": 7}, tool_call_id=call_id)
    assert result.output == 7 and result.metadata is not None and result.metadata.attempts == 3
    assert kinds == ["started", "retried", "retried", "succeeded"]
    assert engine.sent == [call_id, f"{call_id}~2", f"{call_id}~3"]  # one task per attempt


def test_a_yaml_async_executor_runs_where_an_async_tool_runs(tmp_path: Path) -> None:
    """Blocking calls share the one background loop; awaited calls run on the caller's."""
    from toolrig.registry import Registry

    module = f"pings_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text(
        "import asyncio\nloops = []\n"
        "async def ping(n: int) -> str:\n"
        "    loops.append(id(asyncio.get_running_loop()))\n"
        "    return f'pong {n}'\n"
    )
    (tmp_path / "ping.yaml").write_text(
        f"name: ping\ndescription: pings\nparameters:\n  - {{name: n, type: integer}}\n"
        f"executor: {module}.ping\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        registry = Registry()
        registry.load(tmp_path / "ping.yaml")
        executor = ToolExecutor(registry)
        for n in range(3):
            assert executor.execute_sync("ping", {"n": n}).output == f"pong {n}"
        callers: list[int] = []

        async def awaited() -> None:
            callers.append(id(asyncio.get_running_loop()))
            for n in range(3):
                assert (await executor.execute("ping", {"n": n})).success

        asyncio.run(awaited())
        loops = sys.modules[module].loops
        assert len(loops) == 6 and len(set(loops[:3])) == 1
        assert loops[3:] == callers * 3 and loops[0] != callers[0]
    finally:
        sys.path.remove(str(tmp_path))


def test_an_in_memory_log_records_calls_from_the_pipelines_threads() -> None:
    from toolrig.core.context._recording import recording
    from toolrig.storage import open_log

    log = open_log(":memory:")

    @tool(timeout=5)  # a time limit: the call runs on a worker thread
    def slow_add(a: int, b: int) -> int:
        """Add."""
        return a + b

    executor = ToolExecutor([slow_add])
    with log.run("run-mem") as scope:
        results = executor.execute_many_sync([("slow_add", {"a": i, "b": 1}) for i in range(4)])

        def in_the_run() -> None:  # another thread opens the same run's scope
            with recording(scope):
                executor.execute_sync("slow_add", {"a": 1, "b": 1})

        done = threading.Thread(target=in_the_run)
        done.start()
        done.join()
    assert all(r.success for r in results)
    assert len(log.get_run("run-mem")) == 5 and log.failed_writes() == 0
    log.close()  # reopened after close: an empty, usable database again
    assert log.get_run("run-mem") == []


def test_the_approval_gate_lives_in_the_agents_own_pipeline() -> None:
    from toolrig.agent import Agent, ApprovalPolicy
    from toolrig.testing import ScriptedModel

    executor = ToolExecutor([add])
    steps_before = executor.pipeline.middleware
    agent = Agent(
        "A", "You add.", ScriptedModel([]), executor, approval=ApprovalPolicy(tools=["add"])
    )
    assert agent.executor is not executor and agent.executor.catalog is executor.catalog
    assert executor.pipeline.middleware == steps_before  # the caller's pipeline is untouched
    assert len(agent.executor.pipeline.middleware) == len(steps_before) + 2  # guard + gate
    assert executor.execute_sync("add", {"a": 1, "b": 2}).output == 3


def test_the_name_map_is_built_once_per_catalogue_version() -> None:
    executor = ToolExecutor([add])
    first = NameMap.from_tools(executor)
    assert NameMap.from_tools(executor) is first
    assert NameMap.from_tools(executor.catalog) is first
    version = executor.catalog.version
    executor.catalog.add(Files())
    assert executor.catalog.version == version + 1
    second = NameMap.from_tools(executor)
    assert second is not first and second.lookup("files__files") is not None


def test_the_executor_decides_where_a_tool_runs_over_what_it_declares(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import os

    @tool
    def where() -> int:
        """The process id it runs in."""
        return os.getpid()

    @tool(runs_on="reports")
    def queued() -> int:
        """Asks for a queue."""
        return os.getpid()

    moved = ToolExecutor([where, queued], placement={"where": "process", "queued": "thread"})
    assert moved.execute_sync("where").output != os.getpid()  # a child process
    assert moved.execute_sync("queued").output == os.getpid()  # here, and no warning
    assert "no dispatcher" not in caplog.text
    declared = ToolExecutor([queued])
    for _ in range(2):
        assert declared.execute_sync("queued").output == os.getpid()
    assert caplog.text.count("asks to run on queue 'reports'") == 1  # said once
    with pytest.raises(ValueError, match="'thread', 'process' or 'queue:NAME'"):
        ToolExecutor([where], placement={"where": "gpu"})


def test_the_runtime_composes_its_objects_and_inherits_none() -> None:
    """No runtime class extends another class of the project: the pipeline is composed (its
    exceptions, enums and protocols extend only the standard library's)."""
    import ast

    allowed = {"Exception", "BaseException", "StrEnum", "Protocol", "RuntimeError", "ValueError"}
    found = []
    for path in sorted((SRC / "runtime").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = {ast.unparse(base).split("[")[0] for base in node.bases}
                if bases - allowed:
                    found.append(f"{path.name}: {node.name}({', '.join(sorted(bases))})")
    assert found == []


def test_every_entry_comes_in_through_pipeline_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """The executor's entries, a tool's own ``run`` and nested calls all hand their call to
    ``Pipeline.start``, which alone decides the way; sync and async callers ask it alike."""
    from toolrig.runtime import Pipeline

    asked: list[bool] = []
    start = Pipeline.start

    def counted(self: Pipeline, *args: Any) -> Any:
        asked.append(args[-1])  # blocking
        return start(self, *args)

    monkeypatch.setattr(Pipeline, "start", counted)
    hooked = ToolExecutor([add])
    hooked.add_pre_hook(lambda call: None)
    for executor in (ToolExecutor([add]), hooked):
        asked.clear()
        assert executor.execute_sync("add", {"a": 1, "b": 2}).output == 3
        assert asyncio.run(executor.execute("add", {"a": 1, "b": 2})).output == 3
        assert executor.run_tool_sync(add, "add", {"a": 1, "b": 2}).output == 3
        assert asyncio.run(executor.run_tool(add, "add", {"a": 1, "b": 2})).output == 3
        assert executor.execute_many_sync([("add", {"a": 1, "b": 2})])[0].output == 3
        assert asked == [True, False, True, False, False]
    asked.clear()
    assert add.run(a=1, b=2).output == 3 and asked == [True]
    # a name that names nothing is answered before the pipeline is asked
    asked.clear()
    assert ToolExecutor([add]).execute_sync("nope", {}).code == "not_found" and asked == []

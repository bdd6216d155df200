"""MCP tasks (the ``io.modelcontextprotocol/tasks`` extension, SEP-2663) on a `ToolServer`.

A tool that may run long is called as a task: when the client declares the extension (in its
capabilities, or in one request's ``_meta``) a ``tools/call`` of such a tool answers at once
with a handle (``CreateTaskResult``) and the call runs on in the server; ``tasks/get`` reports
its status and, once ended, inlines its result (``completed``, a tool error included) or the
protocol error that ended it (``failed``); ``tasks/cancel`` stops it (the call is cancelled,
not left running); ``tasks/update`` answers the questions it waits on (``input_required``:
the tool's ``ctx.elicit`` / ``ctx.sample`` inside a task are asked through the task and
awaited, not replayed). Without the extension such a tool runs as an ordinary call, unless it
requires a task (then the protocol's -32021 error).

Which tools: those `TaskPolicy` names, and by default every tool placed away from the server's
own threads (``isolation="process"``, ``runs_on``: a Celery queue). A tool listed in
``ask_first`` gathers its opening questions in input-required rounds (SEP-2322) and becomes a
task once it runs past them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

import mcp_types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import HEADER_MISMATCH
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from toolrig.core.context._interaction import (
    tool_interaction,
)
from toolrig.core.context._recording import Recording, recording
from toolrig.core.result._result import ToolResult
from toolrig.mcp._rounds import InputRounds, RoundHooks, recorded
from toolrig.mcp._scopes import caller_identity
from toolrig.mcp._task_questions import TaskQuestions
from toolrig.mcp._task_state import TaskState, TaskStatus, TaskStore
from toolrig.runtime._budget import result_budget

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from toolrig.runtime._executor import ToolExecutor
    from toolrig.storage._log import ExecutionLog
    from toolrig.storage._tasks import LogTasks

__all__ = ["EXTENSION", "TASK_FAILED", "ServerTasks", "TaskPolicy", "TaskSupport"]

EXTENSION: Final = "io.modelcontextprotocol/tasks"
TASK_FAILED: Final = "task_failed"
"""The `ToolError` code that ends a task ``failed`` (the operation could not be carried out)
rather than ``completed`` with a tool error."""
_SETTLE: Final = 0.05
"""Seconds an ``ask_first`` call runs before it becomes a task (when it asks nothing)."""

TaskSupport = Literal["optional", "required"]
logger = logging.getLogger("toolrig.mcp")


@dataclass(frozen=True, slots=True)
class TaskPolicy:
    """Which tools are called as tasks, and the handles' timing.

    ``tools``: ``{tool: "optional" | "required"}`` (``required``: a client without the
    extension gets -32021). ``by_placement``: tools running in child processes or on queues
    are ``optional`` tasks unless named. ``ask_first``: tools whose opening questions are
    input-required rounds before the task is created. ``ttl_ms``: how long an ended task stays
    readable; ``poll_interval_ms``: the polling pace suggested to clients.
    """

    tools: Mapping[str, TaskSupport] = field(default_factory=dict)
    by_placement: bool = True
    ask_first: Collection[str] = ()
    ttl_ms: int = 3_600_000
    poll_interval_ms: int = 500

    def support(self, name: str, isolation: str, runs_on: str | None) -> TaskSupport | None:
        """How the tool ``name`` (placed as given) is called as a task; ``None``: never."""
        declared = self.tools.get(name)
        if declared is not None:
            return declared
        if self.by_placement and (isolation == "process" or runs_on is not None):
            return "optional"
        return None


class _TaskParams(mcp_types.RequestParams):
    task_id: str = Field(alias="taskId")


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses")


def _failed(code: str, details: Any) -> bool:
    """Whether a call's error ends its task ``failed``: the tool said the operation could
    not be carried out (`TASK_FAILED`), or the worker running it was lost mid-call."""
    if code == TASK_FAILED:
        return True
    if not isinstance(details, dict):
        return False
    from toolrig.distributed._engine import WORKER_LOST  # here: the package loads Celery's glue

    return bool(details.get(WORKER_LOST))


def declares_tasks(ctx: ServerRequestContext[Any]) -> bool:
    """Whether the request's client declared the extension (for the session or this call)."""
    caps = ctx.session.client_capabilities
    if caps is not None and EXTENSION in (caps.extensions or {}):
        return True
    meta = ctx.meta or {}
    declared = meta.get(mcp_types.CLIENT_CAPABILITIES_META_KEY) if meta else None
    extensions = declared.get("extensions") if isinstance(declared, dict) else None
    return isinstance(extensions, dict) and EXTENSION in extensions


def _needs_extension() -> MCPError:
    return MCPError(
        code=mcp_types.MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"this needs the client extension {EXTENSION}",
        data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
    )


def _anyone(ctx: ServerRequestContext[Any], call_name: str) -> bool:
    return True


def _drop_log(level: str, message: str, data: Any = None) -> None:
    logger.debug("task log (%s): %s", level, message)


class ServerTasks:
    """The tasks of one `ToolServer`: its ``tasks/*`` handlers and the calls run as tasks."""

    def __init__(self, policy: TaskPolicy, store: TaskStore | None = None) -> None:
        self.policy = policy
        self.store: TaskStore = store or TaskStore()
        """The tasks, running and ended."""
        self.on_status: list[Callable[[TaskState], None]] = []
        """Called on each status change (from the server's event loop)."""
        self.reaches: Callable[[ServerRequestContext[Any], str], bool] = _anyone
        """Whether the caller of a request may still call the tool (its call name) a task
        runs: a caller who may not cannot see the task either (the server sets this to its
        scope check)."""
        self.follow_interval = 0.25
        """Seconds between two looks at the log for what other processes asked of the tasks
        running here (and this process's heartbeat)."""
        self._watcher: asyncio.Task[None] | None = None

    def keep_in(self, log: ExecutionLog) -> None:
        """Keep the tasks in ``log`` (its ``mcp_tasks`` table), shared with every process
        serving from it, instead of in this process alone."""
        from toolrig.storage._tasks import LogTasks

        self.store = TaskStore(LogTasks(log))

    def install(self, server: Server[Any]) -> None:
        """Advertise the extension and serve ``tasks/get``, ``tasks/update``, ``tasks/cancel``."""
        server.extensions[EXTENSION] = {}
        server.add_request_handler("tasks/get", _TaskParams, self._get)
        server.add_request_handler("tasks/update", _UpdateParams, self._update)
        server.add_request_handler("tasks/cancel", _TaskParams, self._cancel)

    def route(self, ctx: ServerRequestContext[Any], support: TaskSupport | None) -> bool:
        """Whether this ``tools/call`` runs as a task (-32021 when the tool requires one and the
        client did not declare the extension)."""
        if support is None or ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return False  # the extension is a 2026-07-28 one: older sessions call as ever
        if declares_tasks(ctx):
            return True
        if support == "required":
            raise _needs_extension()
        return False

    async def start(
        self,
        ctx: ServerRequestContext[Any],
        params: mcp_types.CallToolRequestParams,
        *,
        call_name: str,
        executor: ToolExecutor,
        scope: Recording | None,
        rounds: InputRounds,
        answer: Callable[[ToolResult], dict[str, Any]],
        budget: int | None,
    ) -> dict[str, Any]:
        """Run the call as a task (its result cut to ``budget`` characters, as any call's);
        the ``CreateTaskResult`` (or, for ``ask_first`` tools, an ``input_required`` round, or
        the result when it ended before becoming a task)."""
        policy = self.policy
        task = TaskState(call_name, policy.ttl_ms, policy.poll_interval_ms)
        task.principal = caller_identity(ctx)
        caps = ctx.session.client_capabilities
        hooks = None
        if call_name in policy.ask_first or params.name in policy.ask_first:
            base = tool_interaction(log=_drop_log)
            with base as interaction:
                hooks = RoundHooks(rounds.resume(params), caps, interaction)
        questions = TaskQuestions(task, caps, hooks)
        questions.changed = self._changed

        async def run() -> None:
            try:
                with (
                    tool_interaction(
                        elicitor=questions.elicit,
                        sampler=questions.sample,
                        roots=questions.roots,
                        log=_drop_log,
                    ),
                    recording(scope),
                    result_budget(budget),
                ):
                    result = await executor.execute(call_name, params.arguments or {})
            except asyncio.CancelledError:
                if task.move("cancelled"):
                    self._changed(task)
                raise
            except Exception as exc:  # the call's machinery failed: a protocol-level end
                logger.exception("task %s of %s failed", task.task_id, call_name)
                self._end(task, error={"code": mcp_types.INTERNAL_ERROR, "message": str(exc)})
                return
            error = result.error
            if error is not None and _failed(error.code, error.details):
                self._end(task, error={"code": mcp_types.INTERNAL_ERROR, "message": error.message})
            else:
                self._end(task, result=answer(result))

        if hooks is None:
            self.store.add(task)  # durable before the handle is returned
            self._watch()
        job = task.job = asyncio.get_running_loop().create_task(run())
        if hooks is not None:
            # a question of the tool's opening ends its run (RoundHooks) within the wait
            await asyncio.wait([job], timeout=_SETTLE)
            if hooks.open:  # an opening question: asked as an input-required round
                return rounds.ask(hooks)
            questions.handed_over = True
            self.store.add(task)
            self._watch()
        return task.created()

    def _end(
        self, task: TaskState, *, result: dict[str, Any] | None = None, error: Any = None
    ) -> None:
        status: TaskStatus = "failed" if error is not None else "completed"
        if task.move(status):
            task.result, task.error = result, error
            self._changed(task)

    def _changed(self, task: TaskState) -> None:
        self.store.save(task)
        for listener in list(self.on_status):
            try:
                listener(task)
            except Exception:
                logger.exception("a task status listener failed")

    def _task(self, ctx: ServerRequestContext[Any], params: _TaskParams) -> TaskState:
        if not declares_tasks(ctx):
            raise _needs_extension()
        request = ctx.request
        headers = getattr(request, "headers", None)
        named = headers.get("mcp-name") if headers is not None else None
        if named is not None and named.strip() != params.task_id:
            raise MCPError(
                code=HEADER_MISMATCH,
                message=f"Mcp-Name header {named!r} does not match params.taskId",
            )
        task = self.store.get(params.task_id)
        if (  # another caller's task, or one whose tool the caller lost: no such task
            task is None
            or task.principal != caller_identity(ctx)
            or not self.reaches(ctx, task.tool)
        ):
            raise MCPError(
                code=mcp_types.INVALID_PARAMS, message=f"no task {params.task_id!r} here"
            )
        return task

    async def _get(self, ctx: ServerRequestContext[Any], params: _TaskParams) -> dict[str, Any]:
        return self._task(ctx, params).detailed()

    async def _update(
        self, ctx: ServerRequestContext[Any], params: _UpdateParams
    ) -> dict[str, Any]:
        task = self._task(ctx, params)
        if self.store.local(task.task_id) is None:  # another process runs it: through the log
            if self.store.rows is not None and not task.ended:
                self.store.rows.deliver(task.task_id, params.input_responses)
        else:
            self._answer(task, params.input_responses)
            await asyncio.sleep(0)  # let the tool take its answers
        return {"resultType": "complete"}

    def _answer(self, task: TaskState, responses: Mapping[str, Any]) -> None:
        """Give the task's waiting questions their answers (other keys are ignored)."""
        for key, response in responses.items():
            waiting = task.pending.get(key)
            if waiting is None or waiting.answer is None or waiting.answer.done():
                continue  # not asked, or answered already: nothing waits on it
            try:
                value = recorded(waiting.kind, response)
            except ValueError:  # pydantic's ValidationError included
                raise MCPError(
                    code=mcp_types.INVALID_PARAMS,
                    message=f"inputResponses[{key!r}] does not answer its {waiting.kind} request",
                ) from None
            waiting.answer.set_result(value)
            del task.pending[key]
        if not task.pending and task.move("working"):
            self._changed(task)

    async def _cancel(self, ctx: ServerRequestContext[Any], params: _TaskParams) -> dict[str, Any]:
        task = self._task(ctx, params)
        if self.store.local(task.task_id) is None:
            if self.store.rows is not None:
                self.store.rows.cancel(task.task_id)  # its owner stops it on seeing this
        else:
            self._stop(task)
        return {"resultType": "complete"}

    def _stop(self, task: TaskState) -> None:
        if task.move("cancelled"):
            self._changed(task)
        if task.job is not None:
            task.job.cancel()

    def _watch(self) -> None:
        """With tasks in a log: follow the rows of the tasks running here (cancellations and
        answers from other processes) and beat for them, while any runs."""
        if self.store.rows is None or (self._watcher is not None and not self._watcher.done()):
            return
        self._watcher = asyncio.get_running_loop().create_task(self._follow(self.store.rows))

    async def _follow(self, rows: LogTasks) -> None:
        while running := self.store.running():
            try:
                for task in running:
                    row = await asyncio.to_thread(rows.load, task.task_id)
                    if row is not None and row.status == "cancelled":
                        self._stop(task)
                        continue
                    responses = await asyncio.to_thread(rows.take, task.task_id)
                    if responses:
                        with contextlib.suppress(MCPError):  # a bad answer: asked again
                            self._answer(task, responses)
                await asyncio.to_thread(rows.beat, [t.task_id for t in running])
            except Exception:  # the log failed this once: look again next time
                logger.warning("cannot follow the MCP tasks in the log", exc_info=True)
            await asyncio.sleep(self.follow_interval)

    async def close(self) -> None:
        """Cancel the tasks still running (the server is stopping)."""
        jobs = [t.job for t in self.store.running() if t.job is not None]
        for job in jobs:
            job.cancel()
        if jobs:
            await asyncio.gather(*jobs, return_exceptions=True)

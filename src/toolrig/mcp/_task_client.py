"""The client's side of MCP tasks (``io.modelcontextprotocol/tasks``): a remote call that the
server answers with a task handle is awaited like any call.

The connection declares the extension and claims the ``task`` result shape (the SDK's
`ResultClaim`); `await_task` then polls ``tasks/get`` at the pace the server suggests,
answers the questions the task waits on (``input_required``) through the session's own
callbacks and ``tasks/update``, and returns the inlined result. A task that ends ``failed``
or ``cancelled`` is a `ToolError` saying so; a call cancelled here cancels the task there.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, ClassVar, Final, Literal

import mcp_types
from mcp import ClientSession
from mcp.client.extension import ClaimContext, ResultClaim
from pydantic import Field, TypeAdapter

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.mcp._answers import answer_all

__all__ = ["EXTENSION", "CreatedTask", "await_task", "task_claims"]

EXTENSION: Final = "io.modelcontextprotocol/tasks"
_INPUT_REQUEST: Final = TypeAdapter(mcp_types.InputRequest)


class CreatedTask(mcp_types.Result):
    """A ``CreateTaskResult``: the handle of a call the server runs as a task."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class _DetailedTask(mcp_types.Result):
    task_id: str
    status: str
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    pending: dict[str, Any] | None = Field(default=None, alias="inputRequests")


class _TaskParams(mcp_types.RequestParams):
    task_id: str


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any]


class _GetTask(mcp_types.Request[_TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param: ClassVar[str | None] = "taskId"


class _UpdateTask(mcp_types.Request[_UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param: ClassVar[str | None] = "taskId"


class _CancelTask(mcp_types.Request[_TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param: ClassVar[str | None] = "taskId"


async def _resolve(created: CreatedTask, ctx: ClaimContext) -> mcp_types.CallToolResult:
    return await await_task(ctx.session, created, name=ctx.tool_name, label="")


def task_claims() -> dict[str, Any]:
    """The `ClientSession` keywords declaring the extension and claiming its result shape."""
    claim = ResultClaim(result_type="task", model=CreatedTask, resolve=_resolve)
    return {"extensions": {EXTENSION: {}}, "result_claims": {EXTENSION: [claim]}}


async def await_task(
    session: ClientSession, created: CreatedTask, *, name: str, label: str
) -> mcp_types.CallToolResult:
    """The result of the task ``created`` once it ends (its questions answered meanwhile)."""
    task_id = created.task_id
    pace = (created.poll_interval_ms or 500) / 1000
    answered: set[str] = set()
    try:
        while True:
            task = await session.send_request(
                _GetTask(params=_TaskParams(task_id=task_id)), _DetailedTask
            )
            pace = min(max((task.poll_interval_ms or 500) / 1000, 0.05), 5.0)
            if task.status == "completed" and task.result is not None:
                return mcp_types.CallToolResult.model_validate(task.result)
            if task.status in ("failed", "cancelled", "completed"):
                raise _ended(task, name, label)
            open_ = {k: v for k, v in (task.pending or {}).items() if k not in answered}
            if task.status == "input_required" and open_:
                requests = {k: _INPUT_REQUEST.validate_python(v) for k, v in open_.items()}
                answers = await answer_all(session, requests)
                wire = {
                    k: a.model_dump(mode="json", by_alias=True, exclude_none=True)
                    for k, a in answers.items()
                }
                update = _UpdateTask(params=_UpdateParams(task_id=task_id, input_responses=wire))
                await session.send_request(update, mcp_types.Result)
                answered.update(wire)
                continue
            await asyncio.sleep(pace)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):  # best effort: the call here is gone either way
            await asyncio.shield(
                session.send_request(
                    _CancelTask(params=_TaskParams(task_id=task_id)), mcp_types.Result
                )
            )
        raise


def _ended(task: _DetailedTask, name: str, label: str) -> ToolError:
    where = f" on the MCP server {label}" if label else ""
    if task.status == "cancelled":
        return ToolError(
            f"the task running `{name}`{where} was cancelled", code=ErrorCode.CANCELLED
        )
    error = task.error or {}
    return ToolError(
        f"the task running `{name}`{where} failed: {error.get('message') or 'no reason given'}",
        code=ErrorCode.EXECUTION_ERROR,
        details={"task_id": task.task_id, "error": error} if error else {"task_id": task.task_id},
    )

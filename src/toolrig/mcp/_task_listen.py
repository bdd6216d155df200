"""``subscriptions/listen`` carrying task status notifications (SEP-2663 over SEP-2575).

The SDK's `ListenHandler` knows a closed set of events (list changes, resource updates) and
acknowledges only those keys of a filter. A client that puts ``taskIds`` in its filter gets,
on that stream, a ``notifications/tasks`` (the task's ``DetailedTask``: ``taskId``,
``status``, the result or error once it ended) on each status change of those tasks; only
for tasks it started and whose tool it may still call (as ``tasks/get``). Any other listen
is the SDK's. Notifications come from the process running the task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, cast

import anyio
import mcp_types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import ListenHandler, SubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import (
    SUBSCRIPTION_ID_META_KEY,
    ServerEvent,
    event_matches,
    event_to_notification,
)

from toolrig.mcp._scopes import caller_identity

if TYPE_CHECKING:
    from toolrig.mcp._task_state import TaskState
    from toolrig.mcp._tasks import ServerTasks

__all__ = ["TASK_NOTIFICATION", "TaskListen"]

TASK_NOTIFICATION: Literal["notifications/tasks"] = "notifications/tasks"
_KNOWN = ("toolsListChanged", "promptsListChanged", "resourcesListChanged")


class _TaskNotification(mcp_types.Notification[dict[str, Any], Literal["notifications/tasks"]]):
    method: Literal["notifications/tasks"] = TASK_NOTIFICATION


def _wanted(notifications: mcp_types.SubscriptionFilter) -> list[str]:
    ids = (notifications.model_extra or {}).get("taskIds")
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


class TaskListen:
    """The ``subscriptions/listen`` handler of a `ToolServer`: the SDK's, plus ``taskIds``."""

    def __init__(self, bus: SubscriptionBus, tasks: ServerTasks, *, buffered: int = 1024) -> None:
        self._sdk = ListenHandler(bus)
        self._bus = bus
        self._tasks = tasks
        self._buffered = buffered

    def close(self) -> None:
        self._sdk.close()

    async def __call__(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: mcp_types.SubscriptionsListenRequestParams,
    ) -> mcp_types.SubscriptionsListenResult:
        wanted = _wanted(params.notifications)
        if not wanted:
            return await self._sdk(ctx, params)
        listen_id = ctx.request_id
        if listen_id is None:
            raise MCPError(mcp_types.INVALID_REQUEST, "subscriptions/listen requires a request id")
        asked = params.notifications.model_dump(by_alias=True, exclude_none=True)
        kept: dict[str, Any] = {k: True for k in _KNOWN if asked.get(k) is True}
        if asked.get("resourceSubscriptions"):
            kept["resourceSubscriptions"] = list(asked["resourceSubscriptions"])
        honored = mcp_types.SubscriptionFilter.model_validate({**kept, "taskIds": wanted})
        uris = frozenset(honored.resource_subscriptions or ())
        meta: dict[str, Any] = {SUBSCRIPTION_ID_META_KEY: listen_id}
        who, ids, tasks = caller_identity(ctx), frozenset(wanted), self._tasks
        send, recv = anyio.create_memory_object_stream[ServerEvent | dict[str, Any]](self._buffered)

        def put(item: ServerEvent | dict[str, Any]) -> None:
            try:
                send.send_nowait(item)
            except (anyio.WouldBlock, anyio.ClosedResourceError):
                send.close()  # a client that stopped reading: its stream ends

        def on_event(event: ServerEvent) -> None:
            if event_matches(honored, uris, event):
                put(event)

        def on_task(task: TaskState) -> None:  # the same rule as tasks/get
            if task.task_id in ids and task.principal == who and tasks.reaches(ctx, task.tool):
                put(task.detailed())

        unsubscribe = self._bus.subscribe(on_event)
        tasks.on_status.append(on_task)
        try:
            ack = mcp_types.SubscriptionsAcknowledgedNotification(
                params=mcp_types.SubscriptionsAcknowledgedNotificationParams(
                    notifications=honored, _meta=meta
                )
            )
            await ctx.session.send_notification(ack, related_request_id=listen_id)
            async for item in recv:
                if isinstance(item, dict):
                    data = {k: v for k, v in item.items() if k != "resultType"}
                    note: Any = _TaskNotification(params={**data, "_meta": meta})
                else:
                    note = event_to_notification(item, meta)
                await ctx.session.send_notification(
                    cast("mcp_types.ServerNotification", note), related_request_id=listen_id
                )
        finally:
            unsubscribe()
            tasks.on_status.remove(on_task)
            send.close()
            recv.close()
        return mcp_types.SubscriptionsListenResult(_meta=meta)

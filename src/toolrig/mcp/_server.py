"""``ToolServer``: a catalogue's tools as an MCP server (``tools/list`` and ``tools/call``).

Built on the SDK's low-level ``Server``, whose handlers read the tool set at request time, so
a catalogue that changes under hot reload needs no re-registration. Calls run through a
toolrig executor (validation, timeouts, retries); a failed call is a result with ``isError``,
its text for the model and the structured error under ``_meta["toolrig/error"]``; an unknown
tool is the protocol's error (-32602) with the catalogue's not-found message. Connected
clients are told ``tools/list_changed`` when the catalogue changes; tool progress is relayed
to the caller; a client's ``notifications/cancelled`` cancels the running call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolrig.core._result import ToolResult, to_jsonable
from toolrig.providers._mcp_format import ERROR_META_KEY, format_mcp_result, to_mcp_tools
from toolrig.providers._names import NameMap
from toolrig.registry._catalog import Catalog
from toolrig.registry._events import ChangeEvent, ChangeKind
from toolrig.runtime._executor import ToolExecutor

if TYPE_CHECKING:
    from mcp.server.context import CallNext

__all__ = ["ToolServer"]

logger = logging.getLogger("toolrig.mcp")


@dataclass(frozen=True, slots=True)
class _Listing:
    """The exported tools at one moment: keyed by the identity of the catalogue's tools."""

    key: tuple[int, ...]
    names: NameMap
    listing: dict[str, Any]


class _Server(Server[Any]):
    """The low-level server, advertising ``tools.listChanged`` on every transport (the
    streamable-HTTP manager builds its initialization options without arguments)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


class ToolServer:
    """Serves the tools of a :class:`~toolrig.registry.Catalog` (such as a ``Registry``) over
    MCP; run it with :func:`~toolrig.mcp.serve` (or ``serve_stdio`` / ``serve_http``).

    Calls run through ``executor``: give one over the same catalogue to choose its policy
    (time limits, retries, middleware); without one, ``ToolExecutor(catalog)`` is built here
    and closed with the server. An executor given alone is served through its catalogue.
    Changes to the catalogue (hot reload, ``add``, ``remove``) reach connected clients as
    ``notifications/tools/list_changed``; :meth:`notify_tools_changed` tells them explicitly.
    """

    def __init__(
        self,
        catalog: Catalog | ToolExecutor,
        executor: ToolExecutor | None = None,
        *,
        name: str = "toolrig",
        version: str | None = None,
        instructions: str | None = None,
    ) -> None:
        from toolrig import __version__

        if isinstance(catalog, ToolExecutor):
            if executor is not None:
                raise TypeError("give a catalogue and an executor, or an executor alone")
            executor, catalog = catalog, catalog.catalog
        self.catalog: Catalog = catalog
        """The tools served."""
        self._owns_executor = executor is None
        self.executor: ToolExecutor = executor if executor is not None else ToolExecutor(catalog)
        """What runs the calls."""
        self._listing: _Listing | None = None
        self._sessions: dict[int, ServerSession] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._notify_pending = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._bus = InMemorySubscriptionBus()
        self.server: Server[Any] = _Server(
            name,
            version=version or __version__,
            instructions=instructions,
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        self.server.add_request_handler(
            "tools/list", mcp_types.PaginatedRequestParams, self._list_tools
        )
        self.server.add_request_handler(
            "tools/call", mcp_types.CallToolRequestParams, self._call_tool
        )
        self.server.middleware.append(self._track_session)
        self._listener = self._on_change  # one bound method, to remove the same object later
        self.catalog.add_change_listener(self._listener)
        self._closed = False

    def close(self) -> None:
        """Stop following the catalogue (which stays open, as does an executor given here)."""
        if self._closed:
            return
        self._closed = True
        self.catalog.remove_change_listener(self._listener)
        if self._owns_executor:
            self.executor.close()

    # -- the tool set ------------------------------------------------------------------------
    def _current(self) -> _Listing:
        tools = self.catalog.tools()
        key = tuple(id(t) for t in tools)
        listing = self._listing
        if listing is None or listing.key != key:
            names = NameMap.from_tools(tools)
            listing = self._listing = _Listing(
                key=key, names=names, listing={"tools": to_mcp_tools(names)}
            )
        return listing

    def list_tools(self) -> list[mcp_types.Tool]:
        """The MCP tool definitions currently served."""
        return [mcp_types.Tool.model_validate(t) for t in self._current().listing["tools"]]

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams
    ) -> HandlerResult:
        return {"tools": list(self._current().listing["tools"])}

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> HandlerResult:
        listing = self._current()
        entry = listing.names.lookup(params.name)
        if entry is None:
            raise MCPError(
                code=mcp_types.INVALID_PARAMS, message=self.catalog.missing_message(params.name)
            )
        relay = _ProgressRelay(ctx.session)
        try:
            result = await self.executor.execute(
                entry.call_name, params.arguments or {}, progress=relay
            )
        except BaseException:
            relay.abandon()
            raise
        await relay.flush()
        return call_result(result, listing.names)

    # -- change notifications ----------------------------------------------------------------
    async def _track_session(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Remember each handshake-era connection once it is initialized, to notify it later;
        2026-era clients subscribe through ``subscriptions/listen`` instead."""
        result = await call_next(ctx)
        if ctx.method != "initialize" and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            connection = getattr(ctx.session, "_connection", None)  # no public accessor in 2.3
            key = id(connection if connection is not None else ctx.session)
            if key not in self._sessions:
                self._loop = asyncio.get_running_loop()
                self._sessions[key] = ctx.session
                if connection is not None:
                    connection.exit_stack.callback(self._sessions.pop, key, None)
        return result

    def _on_change(self, event: ChangeEvent) -> None:
        if event.kind is not ChangeKind.FAILED:
            self.notify_tools_changed()

    def notify_tools_changed(self) -> None:
        """Tell every connected client the tool list changed (callable from any thread;
        a burst of changes is sent as one notification)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._schedule_notify)

    def _schedule_notify(self) -> None:
        if self._notify_pending:
            return
        self._notify_pending = True
        task = asyncio.get_running_loop().create_task(self._send_list_changed())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send_list_changed(self) -> None:
        self._notify_pending = False
        for key, session in list(self._sessions.items()):
            try:
                await session.send_tool_list_changed()
            except Exception:
                logger.debug("dropping an MCP connection that cannot be notified", exc_info=True)
                self._sessions.pop(key, None)
        await self._bus.publish(ToolsListChanged())


def call_result(result: ToolResult, names: NameMap) -> dict[str, Any]:
    """The ``CallToolResult`` of ``result``: :func:`format_mcp_result` plus, for a failure, the
    structured error under ``_meta["toolrig/error"]`` (not ``structuredContent``, which clients
    may check against the tool's output schema)."""
    data = format_mcp_result(result, tools=names)
    if result.error is not None:
        data["_meta"] = {ERROR_META_KEY: to_jsonable(result.error.to_dict(drop_empty=True))}
    return data


_Report = tuple[float, float | None, str | None]


class _ProgressRelay:
    """Forwards a tool's ``report_progress`` calls (from any thread) to the MCP caller, in order;
    a no-op for callers that sent no progress token."""

    __slots__ = ("_loop", "_queue", "_send", "_task")

    def __init__(self, session: ServerSession) -> None:
        self._send: Callable[[float, float | None, str | None], Awaitable[None]] = (
            session.report_progress
        )
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[_Report | None] | None = None
        self._task: asyncio.Task[None] | None = None

    def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        item = (float(progress), None if total is None else float(total), message)
        try:
            same_loop = asyncio.get_running_loop() is self._loop
        except RuntimeError:
            same_loop = False
        if same_loop:
            self._put(item)
        else:
            self._loop.call_soon_threadsafe(self._put, item)

    def _put(self, item: _Report | None) -> None:
        if self._queue is None:
            if item is None:
                return
            self._queue = asyncio.Queue()
            self._task = self._loop.create_task(self._drain(self._queue))
        self._queue.put_nowait(item)

    async def _drain(self, queue: asyncio.Queue[_Report | None]) -> None:
        while (item := await queue.get()) is not None:
            try:
                await self._send(*item)
            except Exception:
                logger.debug("could not send a progress notification", exc_info=True)

    async def flush(self) -> None:
        """Send what is queued before the result goes out."""
        await asyncio.sleep(0)  # let reports scheduled from worker threads land first
        if self._task is not None:
            self._put(None)
            await self._task

    def abandon(self) -> None:
        """Drop pending reports (the call was cancelled)."""
        if self._task is not None:
            self._task.cancel()

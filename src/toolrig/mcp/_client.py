"""Remote MCP servers as tool sources: ``add_mcp_server(catalog, prefix=..., command | url)``.

Each :class:`MCPToolSource` keeps one client connection (stdio subprocess or streamable HTTP)
on its own event-loop thread, so its tools can be called from any loop or thread (including
``execute_sync``). Remote tools are added to the catalogue as ``prefix__name`` and run through
any executor over it like any tool: arguments validated locally, timeouts (a timed-out call is
cancelled remotely too), retries and structured errors. The list follows the server's
``notifications/tools/list_changed``. A server that dies fails the call with
``execution_error`` naming the cause (retryable); the next call reconnects.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Coroutine, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any, TypeVar

import mcp_types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.session import IncomingMessage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from toolrig.core._base import BaseTool
from toolrig.core._context import ToolContext
from toolrig.core._errors import ErrorCode, ToolDefinitionError, ToolError
from toolrig.mcp._remote import build_remote_tool, local_name, validate_prefix
from toolrig.registry._catalog import Catalog

__all__ = ["MCPToolSource", "add_mcp_server", "add_mcp_server_async"]

logger = logging.getLogger("toolrig.mcp")

T = TypeVar("T")


class MCPToolSource:
    """One remote MCP server whose tools live in a catalogue (such as a ``Registry``, or an
    executor's ``executor.catalog``) under ``prefix``.

    Give ``command`` (a program, or ``[program, *args]``) for stdio, or ``url`` for streamable
    HTTP (``token`` adds ``Authorization: Bearer``). Start it with :meth:`start` (blocking) or
    :meth:`astart`; :meth:`close` disconnects and removes its tools. A name already taken by a
    tool the source did not add is left alone (the remote tool is skipped, see
    :attr:`skipped`).
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        prefix: str,
        command: str | Sequence[str] | None = None,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        token: str | None = None,
        timeout: float | None = None,
        max_retries: int = 0,
        connect_timeout: float = 30.0,
    ) -> None:
        if (command is None) == (url is None):
            raise ValueError("give exactly one of `command` (stdio) or `url` (streamable HTTP)")
        self.prefix = validate_prefix(prefix)
        self.catalog = catalog
        """Where the remote tools are added."""
        if command is not None:
            argv = [command] if isinstance(command, str) else list(command)
            if not argv:
                raise ValueError("`command` must name a program")
            self._stdio: StdioServerParameters | None = StdioServerParameters(
                command=argv[0], args=[*argv[1:], *args], env=dict(env or {}) or None, cwd=cwd
            )
            self.label = " ".join([*argv, *args])
        else:
            self._stdio = None
            self.label = str(url)
        self.url = url
        self._headers = dict(headers or {})
        if token is not None:
            self._headers["Authorization"] = f"Bearer {token}"
        self.timeout = timeout
        self.max_retries = max_retries
        self.connect_timeout = connect_timeout
        self.tools: dict[str, str] = {}
        """Local name in the catalogue → remote tool name."""
        self._added: dict[str, BaseTool] = {}
        self.skipped: dict[str, str] = {}
        """Remote tools that could not be imported → why."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name=f"toolrig-mcp-{prefix}", daemon=True
        )
        self._thread.start()
        self._session: ClientSession | None = None
        self._stop: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        self._refreshing: asyncio.Task[None] | None = None
        self._swap_lock = threading.Lock()
        self._closed = False

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> MCPToolSource:
        """Connect, list the remote tools and add them to the catalogue (blocking)."""
        self._run(self._refresh())
        return self

    async def astart(self) -> MCPToolSource:
        """Async :meth:`start`."""
        await self._await(self._refresh())
        return self

    def refresh(self) -> None:
        """List the remote tools again and bring those in the catalogue up to date (blocking)."""
        self._run(self._refresh())

    def close(self, *, remove_tools: bool = True) -> None:
        """Disconnect (stopping a stdio server) and, unless told otherwise, remove the tools."""
        if self._closed:
            return
        self._closed = True
        if remove_tools:
            self._apply({})
        if self._loop.is_running():
            self._run(self._disconnect())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        if not self._loop.is_running():
            self._loop.close()

    def __enter__(self) -> MCPToolSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<MCPToolSource {self.prefix!r} {self.label!r} tools={len(self.tools)}>"

    # -- bridging between the caller's loop and ours ---------------------------------------
    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            coro.close()
            raise RuntimeError("blocking MCPToolSource call from its own loop; await instead")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    async def _await(self, coro: Coroutine[Any, Any, T]) -> T:
        if asyncio.get_running_loop() is self._loop:
            return await coro
        # cancelling the caller (a timeout) cancels the remote call as well
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    # -- the connection (runs on our loop) ---------------------------------------------------
    def _transport(self) -> AbstractAsyncContextManager[Any]:
        if self._stdio is not None:
            return stdio_client(self._stdio, errlog=sys.stderr)
        assert self.url is not None
        return streamable_http_client(
            self.url, http_client=create_mcp_http_client(headers=self._headers or None)
        )

    async def _connect(self) -> ClientSession:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._session is not None:
                return self._session
            if self._closed:
                raise ToolError(f"the MCP server {self.label} was closed")
            ready: asyncio.Future[ClientSession] = self._loop.create_future()
            stop = asyncio.Event()
            task = self._loop.create_task(self._hold(ready, stop))
            try:
                session = await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
            except BaseException:
                stop.set()
                task.cancel()
                raise
            self._session, self._stop = session, stop
            return session

    async def _hold(self, ready: asyncio.Future[ClientSession], stop: asyncio.Event) -> None:
        """Own the transport and session for their whole life (their context managers must
        be entered and left by one task)."""
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(
                    ClientSession(read, write, message_handler=self._on_message)
                )
                await session.initialize()
                ready.set_result(session)
                await stop.wait()
        except Exception as exc:
            if ready.done():
                logger.debug("MCP connection to %s ended", self.label, exc_info=True)
            else:
                ready.set_exception(_cause(exc))
        except BaseException:
            if not ready.done():
                ready.cancel()
            raise
        finally:
            if self._stop is stop:
                self._session, self._stop = None, None

    async def _disconnect(self) -> None:
        stop = self._stop
        self._session, self._stop = None, None
        if stop is not None:
            stop.set()
            await asyncio.sleep(0)
        for task in [t for t in asyncio.all_tasks(self._loop) if t is not asyncio.current_task()]:
            try:
                await asyncio.wait_for(asyncio.shield(task), 5)
            except (Exception, asyncio.CancelledError):
                task.cancel()

    def _drop(self, session: ClientSession) -> None:
        if self._session is session:
            stop = self._stop
            self._session, self._stop = None, None
            if stop is not None:
                stop.set()

    async def _on_message(self, message: IncomingMessage) -> None:
        changed = isinstance(message, mcp_types.ToolListChangedNotification)
        if changed and not self._closed and (self._refreshing is None or self._refreshing.done()):
            self._refreshing = self._loop.create_task(self._refresh_quietly())

    async def _refresh_quietly(self) -> None:
        try:
            await self._refresh()
        except Exception:
            logger.warning("refreshing the tools of %s failed", self.label, exc_info=True)

    # -- tools -------------------------------------------------------------------------------
    async def _list(self) -> list[mcp_types.Tool]:
        session = await self._connect()
        tools: list[mcp_types.Tool] = []
        cursor: str | None = None
        try:
            while True:
                params = None if cursor is None else mcp_types.PaginatedRequestParams(cursor=cursor)
                page = await session.list_tools(params=params)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    return tools
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                self._drop(session)
            raise

    async def _refresh(self) -> None:
        remote = await self._list()
        built: dict[str, BaseTool] = {}
        names: dict[str, str] = {}
        skipped: dict[str, str] = {}
        for item in remote:
            name = local_name(self.prefix, item.name)
            if name in names:
                skipped[item.name] = f"its name collides with `{names[name]}` as {name!r}"
                continue
            try:
                built[name] = build_remote_tool(
                    item,
                    name=name,
                    call=self._call,
                    source=self.label,
                    timeout=self.timeout,
                    max_retries=self.max_retries,
                )
            except ToolDefinitionError as exc:
                skipped[item.name] = str(exc)
                continue
            names[name] = item.name
        for remote_name, why in skipped.items():
            logger.warning("skipping MCP tool %r of %s: %s", remote_name, self.label, why)
        refused = self._apply(built)
        for name, why in refused.items():
            skipped[names.pop(name)] = why
        self.tools, self.skipped = names, skipped

    def _apply(self, tools: Mapping[str, BaseTool]) -> dict[str, str]:
        """Make ``tools`` this source's tools in the catalogue, in one swap: the new ones in,
        its others out. Returns the names it could not add, with why."""
        catalog = self.catalog
        with self._swap_lock:
            ours = {n: t for n, t in self._added.items() if catalog.find(n) is t}
            refused: dict[str, str] = {}
            add: dict[str, BaseTool] = {}
            for name, tool in tools.items():
                if name in catalog and name not in ours:
                    refused[name] = f"the name {name!r} is taken by another tool"
                else:
                    add[name] = tool
            remove = set(ours) - set(add)
            try:
                catalog.swap(add=list(add.values()), remove=remove)
            except ToolDefinitionError:  # one of them collides: add those that do not
                catalog.swap(remove=remove)
                for name, tool in list(add.items()):
                    try:
                        catalog.swap(add=[tool])
                    except ToolDefinitionError as exc:
                        refused[name] = str(exc)
                        del add[name]
            self._added = add
        for name, why in refused.items():
            logger.warning("cannot add MCP tool %r: %s", name, why)
        return refused

    async def _call(
        self, remote_name: str, arguments: dict[str, Any], ctx: ToolContext | None
    ) -> mcp_types.CallToolResult:
        return await self._await(self._call_here(remote_name, arguments, ctx))

    async def _call_here(
        self, remote_name: str, arguments: dict[str, Any], ctx: ToolContext | None
    ) -> mcp_types.CallToolResult:
        try:
            session = await self._connect()
        except Exception as exc:  # includes TimeoutError
            raise self._unavailable(exc) from None

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            if ctx is not None:
                ctx.report_progress(progress, total, message)

        try:
            return await session.call_tool(remote_name, arguments, progress_callback=progress)
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                self._drop(session)
                raise self._unavailable(exc) from None
            if exc.code == mcp_types.INVALID_PARAMS and _names_no_tool(exc.message):
                self._loop.create_task(self._refresh_quietly())
                raise ToolError(
                    f"the MCP server {self.label} no longer has the tool `{remote_name}`: "
                    f"{exc.message}",
                    code=ErrorCode.NOT_FOUND,
                ) from None
            raise ToolError(
                f"the MCP server {self.label} refused the call to `{remote_name}`: {exc.message}"
            ) from None
        except (OSError, RuntimeError) as exc:
            self._drop(session)
            raise self._unavailable(exc) from None

    def _unavailable(self, exc: BaseException) -> ToolError:
        cause = _cause(exc)
        detail = str(cause) or type(cause).__name__
        return ToolError(
            f"the MCP server {self.label} is unavailable: {type(cause).__name__}: {detail}",
            code=ErrorCode.EXECUTION_ERROR,
            hint="The connection was lost; the next call reconnects.",
            retryable=True,
        )


def _names_no_tool(message: str) -> bool:
    """Whether an invalid-params error says the tool does not exist (toolrig servers answer
    "Tool 'x' not found", others "Unknown tool: x")."""
    lowered = message.lower()
    return "unknown tool" in lowered or "not found" in lowered


def _cause(exc: BaseException) -> Exception:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc if isinstance(exc, Exception) else RuntimeError(repr(exc))


def add_mcp_server(
    catalog: Catalog,
    *,
    prefix: str,
    command: str | Sequence[str] | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    url: str | None = None,
    headers: Mapping[str, str] | None = None,
    token: str | None = None,
    timeout: float | None = None,
    max_retries: int = 0,
    connect_timeout: float = 30.0,
) -> MCPToolSource:
    """Connect to an MCP server (``command`` for stdio, ``url`` for streamable HTTP) and add its
    tools to ``catalog`` (such as a ``Registry``) as ``prefix__name``; returns the running
    source (``.close()``). A registry closes the source when it closes itself.

    ``timeout`` and ``max_retries`` apply to each imported tool. Blocks while connecting; in
    async code use :func:`add_mcp_server_async`.
    """
    source = MCPToolSource(
        catalog,
        prefix=prefix,
        command=command,
        args=args,
        env=env,
        cwd=cwd,
        url=url,
        headers=headers,
        token=token,
        timeout=timeout,
        max_retries=max_retries,
        connect_timeout=connect_timeout,
    )
    try:
        source.start()
    except BaseException:
        source.close()
        raise
    return _owned(catalog, source)


async def add_mcp_server_async(
    catalog: Catalog,
    *,
    prefix: str,
    command: str | Sequence[str] | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    url: str | None = None,
    headers: Mapping[str, str] | None = None,
    token: str | None = None,
    timeout: float | None = None,
    max_retries: int = 0,
    connect_timeout: float = 30.0,
) -> MCPToolSource:
    """Async :func:`add_mcp_server`."""
    source = MCPToolSource(
        catalog,
        prefix=prefix,
        command=command,
        args=args,
        env=env,
        cwd=cwd,
        url=url,
        headers=headers,
        token=token,
        timeout=timeout,
        max_retries=max_retries,
        connect_timeout=connect_timeout,
    )
    try:
        await source.astart()
    except BaseException:
        await asyncio.to_thread(source.close)
        raise
    return _owned(catalog, source)


def _owned(catalog: Catalog, source: MCPToolSource) -> MCPToolSource:
    """``source``, handed to ``catalog`` to close when it closes (when it can: a ``Registry``)."""
    own = getattr(catalog, "own", None)
    if callable(own):
        own(source.close)
    return source

"""One client session with a remote MCP server, kept on an event-loop thread of its own.

A `Connection` opens the transport (a stdio subprocess or streamable HTTP) and the
session when first asked for it, keeps both open for the calls that follow, and opens them
again once they are lost. Its loop runs on its own thread so that code on any loop or thread,
blocking code included, can share the one session: `Connection.run` blocks until a
coroutine has run there, `Connection.call` awaits it from another loop. It speaks the
protocol and nothing more: what the tools are for is its user's business, told of a changed
tool list through ``on_tools_changed``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import sys
import threading
from collections.abc import Callable, Coroutine
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import TYPE_CHECKING, Any, TypeVar

import mcp_types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.session import IncomingMessage
from mcp.client.streamable_http import MCP_SESSION_ID, streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from toolrig.core.context._interaction import Interaction, current_interaction
from toolrig.core.model._errors import ToolError
from toolrig.mcp._client_callbacks import ClientCallbacks
from toolrig.mcp._params import Protocol, ServerParams
from toolrig.mcp._task_client import task_claims

if TYPE_CHECKING:
    import httpx2  # the MCP SDK's HTTP client, whose responses the hook reads

__all__ = ["Connection", "first_error"]

logger = logging.getLogger("toolrig.mcp")

T = TypeVar("T")


class Connection:
    """The session with the server ``params`` describe, on a loop thread named after
    ``name``. ``on_tools_changed`` runs on that loop when the server says its tool list
    changed. `close` ends the session (stopping a stdio server) and the thread.
    """

    def __init__(
        self,
        params: ServerParams,
        *,
        name: str,
        on_tools_changed: Callable[[], None] | None = None,
        hooks: Callable[[], Interaction] = current_interaction,
    ) -> None:
        self.label = params.label
        """The server as messages name it."""
        self.connect_timeout = params.connect_timeout
        self.protocol = params.protocol
        """The protocol era asked for (see `Protocol`)."""
        self.protocol_version: str | None = None
        """The protocol version of the latest session (``None`` before the first)."""
        argv = params.argv
        self._stdio = (
            StdioServerParameters(
                command=argv[0], args=argv[1:], env=dict(params.env or {}) or None, cwd=params.cwd
            )
            if argv
            else None
        )
        self._url = params.url
        self._headers = params.http_headers
        self._on_tools_changed = on_tools_changed
        self._auth = params.auth
        self._callbacks = ClientCallbacks(hooks, params.label, params.url_consent)
        self._loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self._loop.run_forever, name=f"toolrig-mcp-{name}", daemon=True
        )
        """Runs the connection's loop until `close`."""
        self.thread.start()
        self._session: ClientSession | None = None
        self._stop: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        self._closed = False

    # -- bridging between the caller's loop and ours ---------------------------------------
    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the connection's loop and wait for its result (blocking)."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            coro.close()
            raise RuntimeError(
                f"blocking call to the MCP server {self.label} from its own loop; await instead"
            )
        return self._submit(coro).result()

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the connection's loop and await its result from any loop;
        cancelling the caller (a timeout, say) cancels ``coro`` as well."""
        if asyncio.get_running_loop() is self._loop:
            return await coro
        return await asyncio.wrap_future(self._submit(coro))

    def _submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """``coro`` scheduled on the connection's loop; once that loop is closed, the
        error that says so (``coro`` closed unrun, not left to warn that it never ran)."""
        if self._loop.is_closed():
            coro.close()
            raise ToolError(f"the MCP server {self.label} was closed")
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    # -- the session (runs on our loop) ------------------------------------------------------
    async def session(self) -> ClientSession:
        """The open session, connecting first when there is none."""
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

    def drop(self, session: ClientSession) -> None:
        """Forget ``session`` (lost: its transport failed) so the next use connects again."""
        if self._session is session:
            stop = self._stop
            self._session, self._stop = None, None
            if stop is not None:
                stop.set()

    def holds(self, session: ClientSession) -> bool:
        """Whether ``session`` is still the open one (not lost nor dropped since)."""
        return self._session is session

    def _transport(self, stop: asyncio.Event) -> AbstractAsyncContextManager[Any]:
        """The transport of the session that ``stop`` ends."""
        if self._stdio is not None:
            return stdio_client(self._stdio, errlog=sys.stderr)
        assert self._url is not None
        client = create_mcp_http_client(headers=self._headers or None, auth=self._auth)

        async def on_response(response: httpx2.Response) -> None:
            # A 404 to a request naming the session: the server no longer knows it (it was
            # restarted, or ended the session). The MCP spec has the client start a new one.
            if response.status_code == 404 and MCP_SESSION_ID in response.request.headers:
                self._lost(stop)

        client.event_hooks["response"].append(on_response)
        return streamable_http_client(self._url, http_client=client)

    def _lost(self, stop: asyncio.Event) -> None:
        """Forget the session ``stop`` ends, if still held, and end it."""
        if self._stop is stop:
            self._session, self._stop = None, None
        stop.set()

    async def _hold(self, ready: asyncio.Future[ClientSession], stop: asyncio.Event) -> None:
        """Own the transport and session for their whole life (their context managers must
        be entered and left by one task)."""
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport(stop))
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
                        message_handler=self._on_message,
                        elicitation_callback=self._callbacks.elicit,
                        sampling_callback=self._callbacks.sample,
                        logging_callback=self._callbacks.log,
                        **task_claims(),  # calls run as MCP tasks are awaited
                    )
                )
                await _open(session, self.protocol)
                self.protocol_version = session.protocol_version
                ready.set_result(session)
                await stop.wait()
        except Exception as exc:
            if ready.done():
                logger.debug("MCP connection to %s ended", self.label, exc_info=True)
            else:
                ready.set_exception(first_error(exc))
        except BaseException:
            if not ready.done():
                ready.cancel()
            raise
        finally:
            if self._stop is stop:
                self._session, self._stop = None, None

    async def _on_message(self, message: IncomingMessage) -> None:
        changed = isinstance(message, mcp_types.ToolListChangedNotification)
        if changed and self._on_tools_changed is not None:
            self._on_tools_changed()

    # -- the end -----------------------------------------------------------------------------
    def close(self) -> None:
        """End the session, let what runs on the loop finish (briefly), stop the thread."""
        self._closed = True
        if self._loop.is_running():
            self.run(self._disconnect())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self.thread.join(timeout=10)
        if not self._loop.is_running():
            self._loop.close()

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


async def _open(session: ClientSession, protocol: Protocol) -> None:
    """Open ``session`` in the era ``protocol`` names: the ``initialize`` handshake, the
    2026-07-28 ``server/discover``, or the latter falling back to the former."""
    if protocol == "handshake":
        await session.initialize()
        return
    try:
        await session.discover()
    except MCPError:
        if protocol != "auto":
            raise
        await session.initialize()


def first_error(exc: BaseException) -> Exception:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc if isinstance(exc, Exception) else RuntimeError(repr(exc))

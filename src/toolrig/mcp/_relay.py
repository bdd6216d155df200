"""Notifications from a running tool to its MCP caller, in order, from any thread.

A tool reports progress and logs from wherever it runs (the server's loop, a worker thread);
each report becomes a send queued on the server's loop and sent in the order made, and what is
queued is sent before the call's result, so a client sees every notification first.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

__all__ = ["Relay"]

logger = logging.getLogger("toolrig.mcp")

Send = Callable[[], Awaitable[None]]


class Relay:
    """An ordered queue of sends on the loop it was made on; a no-op until something is sent."""

    __slots__ = ("_loop", "_queue", "_task")

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[Send | None] | None = None
        self._task: asyncio.Task[None] | None = None

    def send(self, thunk: Send) -> None:
        """Queue ``thunk()`` to be awaited on the relay's loop (callable from any thread)."""
        try:
            same_loop = asyncio.get_running_loop() is self._loop
        except RuntimeError:
            same_loop = False
        if same_loop:
            self._put(thunk)
        else:
            self._loop.call_soon_threadsafe(self._put, thunk)

    def _put(self, item: Send | None) -> None:
        if self._queue is None:
            if item is None:
                return
            self._queue = asyncio.Queue()
            self._task = self._loop.create_task(self._drain(self._queue))
        self._queue.put_nowait(item)

    async def _drain(self, queue: asyncio.Queue[Send | None]) -> None:
        while (item := await queue.get()) is not None:
            try:
                await item()
            except Exception:
                logger.debug("could not send a notification to the MCP client", exc_info=True)

    async def flush(self) -> None:
        """Send what is queued before the result goes out."""
        await asyncio.sleep(0)  # let reports scheduled from worker threads land first
        if self._task is not None:
            self._put(None)
            await self._task

    def abandon(self) -> None:
        """Drop pending sends (the call was cancelled)."""
        if self._task is not None:
            self._task.cancel()

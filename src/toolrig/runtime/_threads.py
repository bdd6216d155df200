"""A lean worker pool that hands sync tool calls off the event loop.

``asyncio.to_thread`` costs ~110 µs per call here (context copy, concurrent.futures.Future,
chained callbacks). This pool wakes an idle worker through a queue and resolves an asyncio
future with one ``call_soon_threadsafe``: per call it does only what a hand-off must.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["WorkerPool"]

_STOP = object()


def _set_result(fut: asyncio.Future[Any], value: Any) -> None:
    if not fut.done():
        fut.set_result(value)


def _set_exception(fut: asyncio.Future[Any], exc: BaseException) -> None:
    if not fut.done():
        fut.set_exception(exc)


class WorkerPool:
    """Daemon worker threads, started on demand up to ``max_workers``, kept while idle."""

    def __init__(self, max_workers: int = 32, name: str = "toolrig-worker") -> None:
        self._max = max_workers
        self._name = name
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._closed = False

    def run(self, func: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        """Run ``func(*args)`` on a worker; the returned future resolves on the running loop."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        ctx = contextvars.copy_context()
        self._queue.put((loop, fut, ctx, func, args))
        if self._idle <= 0:
            self._grow()
        return fut

    def _grow(self) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("worker pool is closed")
            if self._idle > 0 or len(self._threads) >= self._max:
                return
            thread = threading.Thread(
                target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True
            )
            self._threads.append(thread)
            self._idle += 1
            thread.start()

    def _work(self) -> None:
        get = self._queue.get
        while True:
            item = get()
            if item is _STOP:
                return
            with self._lock:
                self._idle -= 1
            loop, fut, ctx, func, args = item
            try:
                value = ctx.run(func, *args)
            except BaseException as exc:  # delivered to the awaiting coroutine
                with contextlib.suppress(RuntimeError):  # loop closed: nobody waits any more
                    loop.call_soon_threadsafe(_set_exception, fut, exc)
            else:
                with contextlib.suppress(RuntimeError):  # loop closed: nobody waits any more
                    loop.call_soon_threadsafe(_set_result, fut, value)
            finally:
                del item, loop, fut, ctx, func, args
            with self._lock:
                self._idle += 1

    def shutdown(self) -> None:
        """Ask the workers to stop once the queued work is done."""
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        for _ in threads:
            self._queue.put(_STOP)

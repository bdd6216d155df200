"""A lean worker pool that hands sync tool calls off the event loop, and never lets a call that
was given up on hold a worker others need.

``asyncio.to_thread`` costs ~110 µs per call here (context copy, concurrent.futures.Future,
chained callbacks). This pool wakes an idle worker through a queue and resolves an asyncio
future with one ``call_soon_threadsafe``: per call it does only what a hand-off must.

Accounting is exact: a job submitted while a worker is idle *reserves* that worker at once, so
a burst of calls starts one worker per call (up to ``max_workers``) instead of queueing behind
the first. When a caller gives up on a job (its time limit passed, or it was cancelled), the
job is *abandoned*: its worker stops counting towards ``max_workers``, so the pool grows past
it and later calls never queue behind stuck ones (up to `ABANDONED_PER_WORKER` times
``max_workers`` abandoned workers at once, so runaway calls cannot start threads without end:
past that, calls wait for a worker, within their own time limit). The job is interrupted (at
once, or `GRACE` seconds later if it can see it was given up on): an exception is raised
in its thread, which stops Python code at its next instruction (``finally`` blocks and context
managers still run). Code blocked in a C call (a sleep, a socket read, a long regex) stops when
that call returns; only a separate process (``isolation="process"``) can be stopped at once
whatever it does.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import functools
import os
import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any

from toolrig.core.model._on_first_use import asyncio

__all__ = ["CallAbandoned", "WorkerPool"]

_STOP = object()
_QUEUED, _RUNNING, _SKIP, _ABANDONED, _DONE = range(5)
GRACE = 0.05
"""Seconds an abandoned call that can see it was given up on (it takes a ``ToolContext``,
whose ``cancelled`` turns true at once) has to stop by itself before it is interrupted; a call
that cannot see it is interrupted at once."""
ABANDONED_PER_WORKER = 4
"""How many abandoned workers the pool may hold per ``max_workers`` (32 -> 128) before calls
wait for one: a bound on the threads runaway calls can leave behind."""


def grace_for(ctx: object) -> float:
    """The grace period of a call given its context: `GRACE` for a call that has one
    (it can see ``ctx.cancelled``), none for one that cannot notice."""
    return 0.0 if ctx is None else GRACE


class CallAbandoned(BaseException):
    """Raised inside a worker thread whose call was given up on (its time limit passed).

    A ``BaseException``, like ``KeyboardInterrupt``, so that ``except Exception`` in a tool
    does not swallow it and keep the thread busy.
    """


def _set_result(fut: asyncio.Future[Any], value: Any) -> None:
    if not fut.done():
        fut.set_result(value)


def _set_exception(fut: asyncio.Future[Any], exc: BaseException) -> None:
    if not fut.done():
        fut.set_exception(exc)


@functools.cache
def _async_exc() -> Any:
    """CPython's ``PyThreadState_SetAsyncExc``, through `ctypes` (imported when a call is
    first abandoned: importing toolrig need not pay for it)."""
    import ctypes

    set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)
    set_async_exc.restype = ctypes.c_int
    return set_async_exc


def _interrupt(ident: int) -> None:
    """Raise `CallAbandoned` in thread ``ident`` at its next Python instruction."""
    _async_exc()(ident, CallAbandoned)


def _clear_interrupt(ident: int) -> None:
    """Withdraw an interruption of thread ``ident`` that has not fired yet."""
    import ctypes

    _async_exc()(ident, ctypes.py_object())  # NULL clears the pending exception


class _Job:
    __slots__ = ("args", "ctx", "func", "fut", "ident", "loop", "state")

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        fut: asyncio.Future[Any],
        ctx: contextvars.Context,
        func: Callable[..., Any],
        args: tuple[Any, ...],
    ) -> None:
        self.loop = loop
        self.fut = fut
        self.ctx = ctx
        self.func = func
        self.args = args
        self.state = _QUEUED
        self.ident = 0


class WorkerPool:
    """Daemon worker threads, started on demand up to ``max_workers`` (plus up to
    `ABANDONED_PER_WORKER` times as many in place of abandoned ones), kept while idle."""

    def __init__(self, max_workers: int = 32, name: str = "toolrig-worker") -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self._max = max_workers
        self._name = name
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: set[threading.Thread] = set()
        self._idle: collections.deque[None] = collections.deque()
        """One entry per worker waiting with no job reserved for it: taken without the lock
        (``deque.pop`` is atomic), so handing a job to an idle worker never waits for one
        that is booking the end of its previous job."""
        self._backlog = 0  # queued jobs no worker is reserved for
        self._abandoned = 0  # workers still running a job that was given up on
        self._started = 0
        self._closed = False
        _pools.add(self)

    def _forget_workers(self) -> None:
        """In a forked child: none of the parent's workers exist here; start afresh."""
        self._queue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = set()
        self._idle = collections.deque()
        self._backlog = self._abandoned = 0

    @property
    def size(self) -> int:
        """Worker threads alive now."""
        return len(self._threads)

    @property
    def abandoned(self) -> int:
        """Workers still running a call that was given up on."""
        return self._abandoned

    async def call(self, func: Callable[..., Any], *args: Any, grace: float = GRACE) -> Any:
        """``func(*args)``, run on a worker.

        Cancelling the awaiting task (a time limit, the caller's cancellation) abandons the job;
        it is interrupted if still running ``grace`` seconds later (``0``: at once, for code
        that cannot notice it was given up on).
        """
        job = self._submit(func, args)
        try:
            return await job.fut
        except asyncio.CancelledError:
            self._abandon(job, grace)
            raise

    def _submit(self, func: Callable[..., Any], args: tuple[Any, ...]) -> _Job:
        """Queue ``func(*args)`` for a worker; its future resolves on the running loop."""
        loop = asyncio.get_running_loop()
        job = _Job(loop, loop.create_future(), contextvars.copy_context(), func, args)
        if self._closed:
            raise RuntimeError("worker pool is closed")
        try:
            self._idle.pop()  # an idle worker, reserved for this job
        except IndexError:
            self._reserve()
        self._queue.put(job)
        return job

    def _reserve(self) -> None:
        """Find a worker for a job when none was idle: start one, or queue the job."""
        with self._lock:
            try:
                self._idle.pop()  # one became idle meanwhile
            except IndexError:
                if len(self._threads) - self._abandoned < self._max and self._can_grow():
                    self._start_worker()
                else:
                    self._backlog += 1

    def _can_grow(self) -> bool:
        return len(self._threads) < (1 + ABANDONED_PER_WORKER) * self._max

    def _start_worker(self) -> None:
        """Start a worker reserved for one queued job (the lock is held)."""
        thread = threading.Thread(
            target=self._work, name=f"{self._name}-{self._started}", daemon=True
        )
        self._started += 1
        self._threads.add(thread)
        thread.start()

    def _abandon(self, job: _Job, grace: float) -> None:
        """The caller gave up on ``job``: free its place in the pool; stop it if it is still
        running after ``grace`` seconds."""
        with self._lock:
            if job.state == _QUEUED:
                job.state = _SKIP  # the worker that takes it skips it
            elif job.state == _RUNNING:
                job.state = _ABANDONED
                self._abandoned += 1
                if self._backlog > 0 and self._can_grow():
                    self._backlog -= 1
                    self._start_worker()
                if grace > 0:
                    job.loop.call_later(grace, self._stop, job)
                else:
                    _interrupt(job.ident)

    def _stop(self, job: _Job) -> None:
        with self._lock:
            if job.state == _ABANDONED:  # still running: its thread has not booked its end
                _interrupt(job.ident)

    def _work(self) -> None:
        get = self._queue.get
        ident = threading.get_ident()
        while True:
            job = get()
            if job is _STOP:
                return
            try:
                with self._lock:
                    skip = job.state == _SKIP
                    job.state, job.ident = (_DONE if skip else _RUNNING), ident
                if not skip:
                    self._execute(job)
            except CallAbandoned:
                pass  # the interruption arrived as the job ended
            while True:  # an interruption may still fire until _next withdraws it
                try:
                    stay = self._next(job, ident)
                    break
                except CallAbandoned:
                    continue
            if not stay:
                return

    @staticmethod
    def _execute(job: _Job) -> None:
        loop, fut = job.loop, job.fut
        try:
            value = job.ctx.run(job.func, *job.args)
        except BaseException as exc:  # delivered to the awaiting coroutine
            with contextlib.suppress(RuntimeError):  # loop closed: nobody waits any more
                loop.call_soon_threadsafe(_set_exception, fut, exc)
        else:
            with contextlib.suppress(RuntimeError):  # loop closed: nobody waits any more
                loop.call_soon_threadsafe(_set_result, fut, value)

    def _next(self, job: _Job, ident: int) -> bool:
        """Book the end of ``job``; whether this worker stays for more work."""
        with self._lock:
            if job.state == _ABANDONED:
                _clear_interrupt(ident)  # nothing can be raised in this thread after this
                self._abandoned -= 1
            job.state = _DONE
            if self._backlog > 0:
                self._backlog -= 1  # take a queued job no worker is reserved for
                return True
            if len(self._threads) - self._abandoned > self._max:
                self._threads.discard(threading.current_thread())
                return False  # the pool grew past this worker while it was stuck
            self._idle.append(None)
            return True

    def shutdown(self) -> None:
        """Ask the workers to stop once the queued work is done."""
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        for _ in threads:
            self._queue.put(_STOP)


_pools: weakref.WeakSet[WorkerPool] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for pool in list(_pools):
        pool._forget_workers()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)

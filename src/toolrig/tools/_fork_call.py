"""Work run in forked worker processes under a hard deadline and a memory ceiling.

Some work cannot be stopped from inside: SQLite checks its progress handler and
``sqlite3_interrupt`` only between steps of its program, so one call of ``replace()`` over
megabytes, or a row of three hundred of them, runs to its end however late it is. A process can
be stopped at any instant: a worker gets ``SIGKILL`` at the deadline, whatever it is doing, and
before each request its address space is capped (``RLIMIT_AS``: what it holds plus ``memory``
bytes), so an allocation past the budget fails inside the worker and never grows this process.
``RLIMIT_CPU`` stops it too, should this process die first.

A worker is a copy of this process made by ``fork`` (it holds the handler and everything it
needs, nothing is pickled but the requests and answers) and serves request after request, so a
call costs a round trip through two pipes rather than a fork (a fork took 13 ms on a loaded
2-core machine, a round trip well under 1 ms); a worker that was killed or crashed is replaced
at the next call. Answers are pickled behind an 8-byte length, so a sibling that inherited a
pipe cannot hold an answer back. Needs ``os.fork`` (Linux, macOS): see :func:`fork_available`.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from typing import Any, Final

from toolrig.core.model._errors import ErrorCode, ToolError

__all__ = ["ForkedWorkers", "fork_available"]

_HEADER: Final = struct.Struct("!Q")
_POLL: Final = 0.05  # seconds between looks at a worker that may have died without a word
_CHUNK: Final = 1 << 16
_MAX_IDLE: Final = 4


def fork_available() -> bool:
    """Whether this platform can fork and limit a child's resources."""
    try:
        import resource  # noqa: F401 - POSIX only
    except ImportError:  # pragma: no cover - Windows
        return False
    return hasattr(os, "fork")


class _Worker:
    __slots__ = ("answers", "pid", "requests")

    def __init__(self, pid: int, requests: int, answers: int) -> None:
        self.pid = pid
        self.requests = requests
        self.answers = answers

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        for fd in (self.requests, self.answers):
            with contextlib.suppress(OSError):
                os.close(fd)


class ForkedWorkers:
    """Worker processes that answer ``handler(request)``; ``what`` names the work in errors
    (``"The query"``)."""

    def __init__(self, handler: Callable[[Any], Any], *, what: str) -> None:
        self._handler = handler
        self._what = what
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        weakref.finalize(self, _stop_all, self._all)  # workers end with their owner

    def run(self, request: Any, *, timeout: float, memory: int) -> Any:
        """``handler(request)`` computed in a worker that is killed after ``timeout`` seconds
        and may allocate ``memory`` bytes beyond what it holds. A :class:`ToolError` raised by
        the handler comes back as it was."""
        data = pickle.dumps((request, timeout, memory))
        worker = self._take()
        try:
            _write(worker.requests, data)
        except OSError:  # it died while idle (the system killed it): take a fresh one
            self._discard(worker)
            worker = self._take()
            _write(worker.requests, data)
        try:
            answer = _read_answer(worker, time.monotonic() + timeout)
        except OSError:
            answer = _crashed()
        if answer is None:
            self._discard(worker)
            raise ToolError(
                f"{self._what} ran longer than its {timeout:g} s limit and was stopped.",
                code=ErrorCode.TIMEOUT,
                hint="Narrow the query (WHERE, LIMIT, shorter values) so it finishes sooner.",
            )
        ok, payload = pickle.loads(answer)
        if ok is None:  # out of memory, or dead: never reused
            self._discard(worker)
        else:
            self._give_back(worker)
        if ok:
            return payload
        raise ToolError(
            payload["message"],
            code=payload["code"],
            hint=payload["hint"],
            details=payload["details"],
            retryable=payload["retryable"],
        )

    def close(self) -> None:
        """Stop every worker."""
        with self._lock:
            self._idle.clear()
        _stop_all(self._all)

    def _take(self) -> _Worker:
        with self._lock:
            if self._idle:
                return self._idle.pop()
            worker = self._fork()
            self._all.add(worker)
            return worker

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            if worker in self._all and len(self._idle) < _MAX_IDLE:
                self._idle.append(worker)
                return
            self._all.discard(worker)
        worker.stop()

    def _discard(self, worker: _Worker) -> None:
        with self._lock:
            self._all.discard(worker)
        worker.stop()

    def _fork(self) -> _Worker:
        """A new worker (called with the lock held, so no other worker is forked meanwhile)."""
        req_read, req_write = os.pipe()
        ans_read, ans_write = os.pipe()
        pid = _fork()
        if pid == 0:  # pragma: no cover - runs in the worker, which leaves with os._exit
            for other in self._all:  # another worker's pipes must close when that one ends
                for fd in (other.requests, other.answers):
                    with contextlib.suppress(OSError):
                        os.close(fd)
            os.close(req_write)
            os.close(ans_read)
            _serve(self._handler, self._what, req_read, ans_write)
        os.close(req_read)
        os.close(ans_write)
        return _Worker(pid, req_write, ans_read)


def _stop_all(workers: set[_Worker]) -> None:
    while workers:
        try:
            worker = workers.pop()
        except KeyError:  # emptied by another thread meanwhile
            return
        worker.stop()


def _fork() -> int:
    if sys.version_info >= (3, 12):  # pragma: no cover - the warning is about threads in general
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", ".*fork", DeprecationWarning)
            return os.fork()
    return os.fork()


def _write(fd: int, data: bytes) -> None:
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _read_message(fd: int) -> bytes | None:
    """One length-prefixed message read with blocking reads; ``None`` at end of file."""
    buffer = bytearray()
    needed: int | None = None
    while needed is None or len(buffer) < _HEADER.size + needed:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return None
        buffer += chunk
        if needed is None and len(buffer) >= _HEADER.size:
            (needed,) = _HEADER.unpack_from(buffer)
    return bytes(buffer[_HEADER.size :])


def _read_answer(worker: _Worker, deadline: float) -> bytes | None:
    """The worker's answer, or ``None`` when the deadline passed first."""
    buffer = bytearray()
    needed: int | None = None
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([worker.answers], [], [], min(left, _POLL))
        if not ready:
            done, _status = os.waitpid(worker.pid, os.WNOHANG)
            if done:  # the worker died without a word (killed, out of memory)
                return _crashed()
            continue
        chunk = os.read(worker.answers, _CHUNK)
        if not chunk:
            return _crashed()
        buffer += chunk
        if needed is None and len(buffer) >= _HEADER.size:
            (needed,) = _HEADER.unpack_from(buffer)
        if needed is not None and len(buffer) >= _HEADER.size + needed:
            return bytes(buffer[_HEADER.size : _HEADER.size + needed])


def _crashed() -> bytes:
    error = {
        "message": "The query stopped without an answer: its process ran out of memory or "
        "was killed.",
        "code": ErrorCode.EXECUTION_ERROR,
        "hint": "Ask for less at once (fewer rows, shorter values).",
        "details": None,
        "retryable": False,
    }
    return pickle.dumps((None, error))


def _serve(  # pragma: no cover - runs in the worker
    handler: Callable[[Any], Any], what: str, requests: int, answers: int
) -> None:
    code = 0
    try:
        while (message := _read_message(requests)) is not None:
            request, timeout, memory = pickle.loads(message)
            _limit(timeout, memory)
            try:
                payload: tuple[bool | None, Any] = (True, handler(request))
            except ToolError as exc:
                payload = (False, _error_fields(exc))
            except MemoryError:
                payload = (None, _error_fields(_too_big(what, memory)))
            _write(answers, pickle.dumps(payload))
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _limit(timeout: float, memory: int) -> None:  # pragma: no cover - runs in the worker
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    seconds = math.ceil(used.ru_utime + used.ru_stime + timeout) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, resource.RLIM_INFINITY))
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # no /proc (macOS, which does not enforce RLIMIT_AS either)
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    ceiling = size + memory
    if hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))


def _too_big(what: str, memory: int) -> ToolError:
    return ToolError(
        f"{what} needed more than its {memory // 1_000_000} MB of memory and was stopped.",
        code=ErrorCode.INVALID_ARGUMENTS,
        hint="Ask for less at once (fewer rows, shorter values).",
    )


def _error_fields(exc: ToolError) -> dict[str, Any]:
    return {
        "message": exc.message,
        "code": exc.code,
        "hint": exc.hint,
        "details": exc.details,
        "retryable": exc.retryable,
    }

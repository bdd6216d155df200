"""Work run in worker processes under a hard deadline and a memory ceiling.

Some work cannot be stopped from inside: SQLite checks its progress handler and
``sqlite3_interrupt`` only between steps of its program, so one call of ``replace()`` over
megabytes, or a row of three hundred of them, runs to its end however late it is. A process can
be stopped at any instant: a worker gets ``SIGKILL`` at the deadline, whatever it is doing, and
before each request its address space is capped (``RLIMIT_AS``: what it holds plus ``memory``
bytes), so an allocation past the budget fails inside the worker and never grows this process.
``RLIMIT_CPU`` stops it too, should this process die first.

Workers are forked by a small server process (`toolrig.tools._fork_server`), started once per
process on first use, never by this process: a copy of a large application would count the
application's memory as what the worker holds, and memory the copy frees (garbage collected in
it) would become room beyond the budget; a copy of a threaded one can hang on a lock another
thread held at the fork. The handler is pickled (a module-level function or an object of a
module-level class) and rebuilt there. A worker serves request after request, so a call costs
a round trip through two pipes rather than a fork; one that was killed or crashed is replaced
at the next call. Answers are pickled behind an 8-byte length. Needs ``os.fork`` and Unix
sockets (Linux, macOS): see `fork_available`.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import select
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, Final

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._fork_server import HEADER, read_message, write_message

__all__ = ["ForkedWorkers", "fork_available"]

_CHUNK: Final = 1 << 16
_MAX_IDLE: Final = 4
_START_TIMEOUT: Final = 60.0
"""Seconds the fork server may take to answer (its first fork imports the handler's modules)."""


def fork_available() -> bool:
    """Whether this platform can fork and limit a child's resources."""
    try:
        import resource  # noqa: F401 - POSIX only
    except ImportError:  # pragma: no cover - Windows
        return False
    return hasattr(os, "fork") and hasattr(socket, "send_fds") and bool(sys.executable)


class _Server:
    """The fork server of this process, talked to over one socket, one request at a time."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        path = os.pathsep.join(p for p in sys.path if p)
        env = {**os.environ, "PYTHONPATH": path}
        code = "import sys; from toolrig.tools._fork_server import main; main(int(sys.argv[1]))"
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-c", code, str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                env=env,
            )
        self.channel = ours
        self.owner = os.getpid()
        self.lock = threading.Lock()

    def ask(self, message: Any, fds: tuple[int, ...] = ()) -> Any:
        """Send ``message`` (with ``fds``) and return the answer; `OSError` when the server is
        gone."""
        data = pickle.dumps(message)
        with self.lock:
            head = HEADER.pack(len(data))
            socket.send_fds(self.channel, [head], list(fds))
            self.channel.sendall(data)
            ready, _, _ = select.select([self.channel], [], [], _START_TIMEOUT)
            answer = read_message(self.channel.fileno()) if ready else None
        if answer is None:
            raise OSError("the fork server did not answer")
        return pickle.loads(answer)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.channel.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a server stuck in a fork
            self.process.kill()
            self.process.wait()


_server: _Server | None = None
_server_lock = threading.Lock()


@atexit.register
def _close_server() -> None:
    """The fork server ends with this process (it would on its own, when the socket closes)."""
    if _server is not None and _server.owner == os.getpid():
        _server.close()


def _the_server(*, fresh: bool = False) -> _Server:
    """This process's fork server, started on first use (again after a fork of this process,
    or when ``fresh`` because the last one stopped answering)."""
    global _server
    with _server_lock:
        if _server is not None and (fresh or _server.owner != os.getpid()):
            if _server.owner == os.getpid():
                _server.close()
            _server = None
        if _server is None:
            _server = _Server()
        return _server


class _Worker:
    __slots__ = ("answers", "pid", "requests")

    def __init__(self, pid: int, requests: int, answers: int) -> None:
        self.pid = pid
        self.requests = requests
        self.answers = answers

    def release(self) -> None:
        """Close this worker's pipes: an idle worker reads the end of its requests and exits
        (its server reaps it). Safe anywhere, a finalizer included: nothing is waited for."""
        for fd in (self.requests, self.answers):
            with contextlib.suppress(OSError):
                os.close(fd)

    def kill(self) -> None:
        """Release this worker and have its server kill and reap it now, whatever it is
        doing (its server kills only its own workers, so a recycled process id is safe)."""
        self.release()
        server = _server
        if server is not None and server.owner == os.getpid():
            with contextlib.suppress(OSError):
                server.ask(("stop", self.pid))


class ForkedWorkers:
    """Worker processes that answer ``handler(request)``; ``what`` names the work in errors
    (``"The query"``). ``handler`` is pickled to reach the fork server: a `TypeError` says so
    here when it cannot be."""

    def __init__(self, handler: Callable[[Any], Any], *, what: str) -> None:
        try:
            self._handler = pickle.dumps(handler)
        except Exception as exc:
            raise TypeError(
                f"{what} runs in a worker process, so its work must be picklable "
                f"(a module-level function or an object of a module-level class): {exc}"
            ) from None
        self._what = what
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        weakref.finalize(self, _release_all, self._all)  # workers end with their owner

    def run(self, request: Any, *, timeout: float, memory: int) -> Any:
        """``handler(request)`` computed in a worker that is killed after ``timeout`` seconds
        and may allocate ``memory`` bytes beyond what it holds. A `ToolError` raised by
        the handler comes back as it was."""
        data = pickle.dumps((request, timeout, memory))
        worker = self._take()
        try:
            write_message(worker.requests, data)
        except OSError:  # it died while idle (the system killed it): take a fresh one
            self._discard(worker)
            worker = self._take()
            write_message(worker.requests, data)
        try:
            answer = _read_answer(worker, time.monotonic() + timeout, self._what)
        except OSError:
            answer = _crashed(self._what)
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

    def start(self) -> None:
        """Start the fork server and load the handler there in the background, so that the
        first call does not wait for a fresh interpreter and the handler's imports."""

        def load() -> None:
            with contextlib.suppress(Exception):  # the first call reports what went wrong
                _the_server().ask(("load", self._handler))

        threading.Thread(target=load, name="toolrig-fork-server", daemon=True).start()

    def close(self) -> None:
        """Kill every worker."""
        with self._lock:
            self._idle.clear()
            workers = list(self._all)
            self._all.clear()
        for worker in workers:
            worker.kill()

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
        worker.release()

    def _discard(self, worker: _Worker) -> None:
        with self._lock:
            self._all.discard(worker)
        worker.kill()

    def _fork(self) -> _Worker:
        """A new worker, forked by the fork server (started again once if it is gone)."""
        try:
            return self._fork_on(_the_server(), self._handler)
        except OSError:
            return self._fork_on(_the_server(fresh=True), self._handler)

    def _fork_on(self, server: _Server, handler: bytes) -> _Worker:
        req_read, req_write = os.pipe()
        ans_read, ans_write = os.pipe()
        try:
            status, value = server.ask(("fork", (handler, self._what)), (req_read, ans_write))
        except BaseException:
            os.close(req_write)
            os.close(ans_read)
            raise
        finally:
            os.close(req_read)
            os.close(ans_write)
        if status != "ok":
            os.close(req_write)
            os.close(ans_read)
            raise ToolError(
                f"{self._what} could not start: {value}", code=ErrorCode.EXECUTION_ERROR
            )
        return _Worker(int(value), req_write, ans_read)


def _release_all(workers: set[_Worker]) -> None:
    """Release every worker (run when their owner is collected, so it waits for nothing)."""
    while workers:
        try:
            worker = workers.pop()
        except KeyError:  # emptied by another thread meanwhile
            return
        worker.release()


def _read_answer(worker: _Worker, deadline: float, what: str) -> bytes | None:
    """The worker's answer, or ``None`` when the deadline passed first (a worker that died
    without a word, killed or out of memory, closed its end of the pipe)."""
    buffer = bytearray()
    needed: int | None = None
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([worker.answers], [], [], left)
        if not ready:
            continue
        chunk = os.read(worker.answers, _CHUNK)
        if not chunk:
            return _crashed(what)
        buffer += chunk
        if needed is None and len(buffer) >= HEADER.size:
            (needed,) = HEADER.unpack_from(buffer)
        if needed is not None and len(buffer) >= HEADER.size + needed:
            return bytes(buffer[HEADER.size : HEADER.size + needed])


def _crashed(what: str) -> bytes:
    """The answer of a worker that died without one."""
    error = {
        "message": f"{what} stopped without an answer: its process ran out of memory or "
        "was killed.",
        "code": ErrorCode.EXECUTION_ERROR,
        "hint": "Ask for less at once (fewer rows, shorter values).",
        "details": None,
        "retryable": False,
    }
    return pickle.dumps((None, error))

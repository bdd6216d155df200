"""The small process that forks query workers, and the loop each worker runs.

Started by `toolrig.tools._fork_call` as a fresh interpreter, it imports nothing but what the
handlers it is sent need, runs a single thread, and forks a worker per request of its parent.
A worker is therefore a copy of this small, clean process, never of the application: its
memory ceiling (what it holds plus ``memory`` bytes, set before each request with
``RLIMIT_AS``) cannot be loosened by the application's memory being freed in the copy, and no
lock held by one of the application's threads at the fork can hang it.

It answers its parent over one Unix socket; the two pipes of each worker come with the fork
request (``SCM_RIGHTS``) and go to the worker alone. A worker whose request pipe closes exits;
the server reaps each worker as it ends (``SIGCHLD``), kills one when its parent asks (and only
its own, so a recycled process id is never hit), and ends, killing its workers, when its
parent closes the socket or dies.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import pickle
import signal
import socket
import struct
import sys
from collections.abc import Callable
from typing import Any, Final

from toolrig.core.model._errors import ErrorCode, ToolError

HEADER: Final = struct.Struct("!Q")
"""Every message is pickled behind its length."""
_CHUNK: Final = 1 << 16


def write_message(fd: int, data: bytes) -> None:
    """``data`` written whole behind its length."""
    view = memoryview(HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def read_message(fd: int, start: bytes = b"") -> bytes | None:
    """One length-prefixed message (``start``: bytes of it already read); ``None`` at end of
    file."""
    buffer = bytearray(start)
    needed: int | None = None
    while True:
        if needed is None and len(buffer) >= HEADER.size:
            (needed,) = HEADER.unpack_from(buffer)
        if needed is not None and len(buffer) >= HEADER.size + needed:
            return bytes(buffer[HEADER.size : HEADER.size + needed])
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return None
        buffer += chunk


def main(fd: int) -> None:  # pragma: no cover - runs in the fork server
    """Serve fork and stop requests on socket ``fd`` until it closes."""
    channel = socket.socket(fileno=fd)
    workers: set[int] = set()
    signal.signal(signal.SIGCHLD, lambda _signum, _frame: _reap(workers))
    try:
        while True:
            try:
                head, fds, _flags, _addr = socket.recv_fds(channel, HEADER.size, 2)
            except OSError:
                return
            if not head:
                return
            message = read_message(fd, head)
            if message is None:
                return
            kind, payload = pickle.loads(message)
            if kind == "stop":
                _stop(workers, payload)
                answer: tuple[str, Any] = ("ok", None)
            elif kind == "load":  # import what the handler needs before the first fork asks
                answer = _load(payload)
            else:
                answer = _fork(workers, fd, fds, *payload)
            for extra in fds:
                os.close(extra)
            write_message(fd, pickle.dumps(answer if kind != "load" else (answer[0], None)))
    finally:
        for pid in list(workers):
            _stop(workers, pid)
        os._exit(0)


def _fork(  # pragma: no cover - runs in the fork server
    workers: set[int], channel: int, fds: list[int], handler_data: bytes, what: str
) -> tuple[str, Any]:
    """A worker serving ``handler`` on the pipes ``fds``; ``("ok", pid)`` or the reason it
    could not start."""
    if len(fds) != 2:
        return ("error", "the fork request did not carry the worker's two pipes")
    status, handler = _load(handler_data)
    if status != "ok":
        return (status, handler)
    gc.collect()  # a worker starts with no garbage it could free later,
    gc.freeze()  # and its collections look only at what it makes itself
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # known before it is reaped
    try:
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
            os.close(channel)
            _serve(handler, what, fds[0], fds[1])
        workers.add(pid)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    return ("ok", pid)


def _load(handler_data: bytes) -> tuple[str, Any]:  # pragma: no cover - in the fork server
    """The handler unpickled (its modules imported), or why it could not be."""
    try:
        return ("ok", pickle.loads(handler_data))
    except Exception as exc:  # its module cannot be imported here
        return ("error", f"the work could not be loaded in the worker process: {exc!r}")


def _stop(workers: set[int], pid: int) -> None:  # pragma: no cover - runs in the fork server
    """Kill and reap one of this server's workers (any other process id is left alone; the
    reaper is held off meanwhile, so the id cannot be reaped and reused before the kill)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    try:
        if pid not in workers:
            return
        workers.discard(pid)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})


def _reap(workers: set[int]) -> None:  # pragma: no cover - runs in the fork server
    """Reap the workers that ended on their own (crashed, out of memory, released): run on
    ``SIGCHLD``, so none stays a zombie."""
    for pid in list(workers):
        with contextlib.suppress(ChildProcessError):
            done, _status = os.waitpid(pid, os.WNOHANG)
            if not done:
                continue
        workers.discard(pid)


def _serve(  # pragma: no cover - runs in the worker
    handler: Callable[[Any], Any], what: str, requests: int, answers: int
) -> None:
    """Answer requests until the parent closes the request pipe."""
    code = 0
    try:
        while (message := read_message(requests)) is not None:
            request, timeout, memory = pickle.loads(message)
            _limit(timeout, memory)
            try:
                payload: tuple[bool | None, Any] = (True, handler(request))
            except ToolError as exc:
                payload = (False, error_fields(exc))
            except MemoryError:
                payload = (None, error_fields(too_big(what, memory)))
            write_message(answers, pickle.dumps(payload))
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _limit(timeout: float, memory: int) -> None:  # pragma: no cover - runs in the worker
    """CPU time and address space for the next request: what is used now plus its budget."""
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    seconds = math.ceil(used.ru_utime + used.ru_stime + timeout) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, resource.RLIM_INFINITY))
    gc.collect()  # garbage of an earlier request is not room for this one
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


def too_big(what: str, memory: int) -> ToolError:
    """The error of work that needed more than its ``memory`` bytes."""
    return ToolError(
        f"{what} needed more than its {memory // 1_000_000} MB of memory and was stopped.",
        code=ErrorCode.INVALID_ARGUMENTS,
        hint="Ask for less at once (fewer rows, shorter values).",
    )


def error_fields(exc: ToolError) -> dict[str, Any]:
    """A `ToolError` as plain fields, to rebuild it on the other side."""
    return {
        "message": exc.message,
        "code": exc.code,
        "hint": exc.hint,
        "details": exc.details,
        "retryable": exc.retryable,
    }


if __name__ == "__main__":  # pragma: no cover - the server's entry point
    main(int(sys.argv[1]))

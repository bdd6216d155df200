"""One function call run in a forked child under a hard deadline and a memory ceiling.

Some work cannot be stopped from inside: SQLite checks its progress handler and
``sqlite3_interrupt`` only between steps of its program, so one call of ``replace()`` over
megabytes, or a row of thirty of them, runs to its end however late it is. A child process can
be stopped at any instant: it gets ``SIGKILL`` at the deadline, whatever it is doing, and its
address space is capped (``RLIMIT_AS``: what it had at the fork plus ``memory`` bytes) so an
allocation past the budget fails inside the child and never grows this process. ``RLIMIT_CPU``
stops it too, should this process die before the deadline.

The child starts as a copy of this process (about 1 ms per 100 MB in use), runs the function,
sends back its result pickled behind an 8-byte length, and leaves with ``os._exit``. Reading a
length rather than waiting for the pipe to close means a sibling child that inherited the write
end cannot hold the answer back. Needs ``os.fork`` (Linux, macOS): see :func:`fork_available`.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable
from typing import Any, Final, TypeVar

from toolrig.core._errors import ErrorCode, ToolError

__all__ = ["call_in_child", "fork_available"]

T = TypeVar("T")
_HEADER: Final = struct.Struct("!Q")
_POLL: Final = 0.05  # seconds between looks at a child that may have died without a word
_CHUNK: Final = 1 << 16


def fork_available() -> bool:
    """Whether this platform can fork."""
    try:
        import resource  # noqa: F401 - POSIX only
    except ImportError:  # pragma: no cover - Windows
        return False
    return hasattr(os, "fork")


def call_in_child(fn: Callable[[], T], *, timeout: float, memory: int, what: str) -> T:
    """``fn()`` computed in a child process that is killed after ``timeout`` seconds and may
    allocate ``memory`` bytes beyond what it inherits. A :class:`ToolError` raised by ``fn``
    comes back as it was; ``what`` names the work in the errors (``"The query"``)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, which leaves with os._exit
        os.close(read_fd)
        _child(fn, write_fd, timeout, memory, what)
    os.close(write_fd)
    try:
        data = _read_answer(read_fd, pid, time.monotonic() + timeout)
    finally:
        os.close(read_fd)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    if data is None:
        raise ToolError(
            f"{what} ran longer than its {timeout:g} s limit and was stopped.",
            code=ErrorCode.TIMEOUT,
            hint="Narrow the query (WHERE, LIMIT, shorter values) so it finishes sooner.",
        )
    ok, payload = pickle.loads(data)
    if ok:
        return payload  # type: ignore[no-any-return]
    raise ToolError(
        payload["message"],
        code=payload["code"],
        hint=payload["hint"],
        details=payload["details"],
        retryable=payload["retryable"],
    )


def _read_answer(fd: int, pid: int, deadline: float) -> bytes | None:
    """The child's answer, or ``None`` when the deadline passed first."""
    buffer = bytearray()
    needed: int | None = None
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], min(left, _POLL))
        if not ready:
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:  # the child died without a word (killed, out of memory)
                return _crashed(len(buffer))
            continue
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return _crashed(len(buffer))
        buffer += chunk
        if needed is None and len(buffer) >= _HEADER.size:
            (needed,) = _HEADER.unpack_from(buffer)
        if needed is not None and len(buffer) >= _HEADER.size + needed:
            return bytes(buffer[_HEADER.size : _HEADER.size + needed])


def _crashed(_received: int) -> bytes:
    error = {
        "message": "The query stopped without an answer: its process ran out of memory or "
        "was killed.",
        "code": ErrorCode.EXECUTION_ERROR,
        "hint": "Ask for less at once (fewer rows, shorter values).",
        "details": None,
        "retryable": False,
    }
    return pickle.dumps((False, error))


def _child(  # pragma: no cover - runs in the child
    fn: Callable[[], Any], fd: int, timeout: float, memory: int, what: str
) -> None:
    code = 0
    try:
        _limit(timeout, memory)
        try:
            payload: tuple[bool, Any] = (True, fn())
        except ToolError as exc:
            payload = (False, _error_fields(exc))
        except MemoryError:
            payload = (False, _error_fields(_too_big(what, memory)))
        data = pickle.dumps(payload)
        view = memoryview(_HEADER.pack(len(data)) + data)
        while view:
            view = view[os.write(fd, view) :]
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _limit(timeout: float, memory: int) -> None:  # pragma: no cover - runs in the child
    import resource

    seconds = math.ceil(timeout) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
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

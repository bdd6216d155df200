"""Process isolation: one call of an action run in a child process, killed the moment its caller
gives up (its time limit passed, or it was cancelled).

A tool with ``isolation="process"`` runs each attempt in a child forked from this process: the
child starts as a copy of it (the tool, its arguments, module state and open clients are all
there, nothing needs pickling) and sends back only the outcome, pickled, through a pipe. The
parent waits on the pipe from its event loop, so it is never blocked by the tool, and a child
that runs past its limit gets ``SIGKILL``, whatever it is doing (a pure-Python loop, a C call
holding its GIL, a blocking system call). The price: a fork per attempt (about 1 ms in a
100 MB process; the copy of the page tables grows with the memory in use, ~25 ms per GB,
during which this process is paused), and results must be picklable. Needs ``os.fork``
(Linux, macOS).

A child never returns into the parent's code: it runs the call, writes the outcome and leaves
with ``os._exit``, so no ``atexit`` handler, finaliser or buffered write of the parent runs
twice. On Linux it is also killed when the thread that forked it ends, so a crash of this
process leaves no runaway child behind.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import queue
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, NoReturn

from toolrig.core.context._context import ToolContext
from toolrig.core.context._interaction import Interaction
from toolrig.core.define._action import Action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._on_first_use import asyncio
from toolrig.core.result._result import error_from_exception, to_jsonable
from toolrig.runtime._call import Call

__all__ = ["ProcessRunner", "process_isolation_available"]

_CHUNK = 1 << 16
_READS_PER_TURN = 16  # at most 1 MiB read per turn of the event loop
_EXIT_WAIT = 1.0  # seconds to learn how a child that sent nothing ended
_NICENESS = 10
"""How much lower a child's CPU priority is than its parent's: a busy child must not take the
CPU from the event loop that watches its deadline."""


def process_isolation_available() -> bool:
    """Whether this platform can fork (process isolation needs it)."""
    return hasattr(os, "fork")


class ProcessRunner:
    """Runs actions in child processes, at most ``max_processes`` at once per event loop
    (later calls wait for a free place, within their own time limit)."""

    inline = False
    bounded = False

    def __init__(self, max_processes: int) -> None:
        self._max = max_processes
        self._semaphores: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}

    async def attempt(self, call: Call, ctx: ToolContext | None) -> Any:
        """One attempt of ``call`` in a child process (the pipeline's runner protocol)."""
        return await self.run(call.target, call.arguments, ctx)

    async def run(self, action: Action, values: dict[str, Any], ctx: ToolContext | None) -> Any:
        """The output of ``action`` called with ``values`` in a child process; an exception
        the tool raised comes back as a `ToolError` with the same code,
        message and hint. Cancelling this coroutine kills the child at once."""
        if not process_isolation_available():
            raise ToolError(
                f"`{action.name}` runs in a separate process, which this platform cannot start "
                "(it needs os.fork).",
                hint="This tool cannot run here; use another tool.",
            )
        async with self._semaphore():
            return await _run(action, values, ctx)

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        sem = self._semaphores.get(loop)
        if sem is None:
            for old in [lp for lp in self._semaphores if lp.is_closed()]:
                del self._semaphores[old]
            sem = self._semaphores[loop] = asyncio.Semaphore(self._max)
        return sem


_pipes: set[int] = set()
"""The pipe ends of the calls in flight. A child closes those of the other calls: holding a
copy of another call's write end would keep that call from seeing its child's end."""
_pipes_lock = threading.Lock()


async def _run(action: Action, values: dict[str, Any], ctx: ToolContext | None) -> Any:
    import pickle  # here, before the fork, so the child has it too; not with toolrig

    _prctl()  # looked up before the fork too: the child only calls it
    loop = asyncio.get_running_loop()
    parent = os.getpid()
    with _pipes_lock:  # no pipe is made between another call's pipe and its fork
        read_fd, write_fd = os.pipe()
        _pipes.update((read_fd, write_fd))
        try:
            pid = _fork()
        except BaseException:
            _close(read_fd, write_fd)
            raise
    if pid == 0:
        _child(action, values, ctx, parent, write_fd)
    _close(write_fd)
    try:
        data = await _read_all(loop, read_fd)
    except BaseException:
        _kill(pid)  # the caller gave up: stop the child now, whatever it is doing
        raise
    finally:
        _close(read_fd)
    status = _reaper.wait(pid)
    try:
        ok, payload = pickle.loads(data)
    except Exception:
        how = await _ended(status)
        raise ToolError(
            f"`{action.name}` ended without an answer: its process {how}.",
            hint="The tool crashed; try different arguments or another tool.",
        ) from None
    if ok:
        return payload
    raise ToolError(
        payload["message"],
        code=payload["code"],
        hint=payload["hint"],
        details=payload["details"],
        retryable=payload["retryable"],
    )


def _close(*fds: int) -> None:
    for fd in fds:
        _pipes.discard(fd)
        os.close(fd)


def _fork() -> int:
    if sys.version_info >= (3, 12):  # pragma: no cover - the warning is about threads in general
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", ".*fork", DeprecationWarning)
            return os.fork()
    return os.fork()


async def _read_all(loop: asyncio.AbstractEventLoop, fd: int) -> bytes:
    """Everything written to the pipe ``fd`` until its writer closes it, read by the loop."""
    os.set_blocking(fd, False)
    chunks: list[bytes] = []
    done: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        for _ in range(_READS_PER_TURN):
            try:
                data = os.read(fd, _CHUNK)
            except BlockingIOError:
                return
            except OSError as exc:
                if not done.done():
                    done.set_exception(exc)
                return
            if not data:
                if not done.done():
                    done.set_result(None)
                return
            chunks.append(data)

    loop.add_reader(fd, readable)
    try:
        await done
    finally:
        loop.remove_reader(fd)
    return b"".join(chunks)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    _reaper.wait(pid)


async def _ended(status: Future[int | None]) -> str:
    """How a child that sent no answer ended, in words."""
    try:
        code = await asyncio.wait_for(asyncio.wrap_future(status), _EXIT_WAIT)
    except TimeoutError:
        return "did not say why"
    if code is None:
        return "ended in an unknown way"
    if os.WIFSIGNALED(code):
        number = os.WTERMSIG(code)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = str(number)
        return f"was killed by signal {name}"
    return f"exited with status {os.waitstatus_to_exitcode(code)}"


class _Reaper:
    """Collects ended children (so none stays a zombie) on one thread of its own."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[int, Future[int | None]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()

    def wait(self, pid: int) -> Future[int | None]:
        """A future of the raw wait status of child ``pid`` (``None``: collected elsewhere)."""
        fut: Future[int | None] = Future()
        with self._lock:
            if self._thread is None or self._pid != os.getpid():
                self._pid = os.getpid()
                self._thread = threading.Thread(
                    target=self._collect, name="toolrig-reaper", daemon=True
                )
                self._thread.start()
        self._queue.put((pid, fut))
        return fut

    def _collect(self) -> None:
        while True:
            pid, fut = self._queue.get()
            try:
                _, status = os.waitpid(pid, 0)
            except ChildProcessError:  # someone else collected it (a SIGCHLD handler)
                fut.set_result(None)
            else:
                fut.set_result(status)


_reaper = _Reaper()


def _new_reaper() -> None:
    """In a forked child: the parent's reaper thread does not exist here (nor its lock's
    holder); a call isolated from inside an isolated call gets a reaper of its own."""
    global _reaper
    _reaper = _Reaper()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_reaper)


def _child(
    action: Action,
    values: dict[str, Any],
    ctx: ToolContext | None,
    parent: int,
    write_fd: int,
) -> NoReturn:
    """The child's whole life: run the call, send the outcome, leave without cleaning up
    anything of the parent's."""
    import pickle  # imported by the parent before it forked

    code = 0
    try:
        for fd in _pipes - {write_fd}:  # this call's read end, and other calls' pipes
            with contextlib.suppress(OSError):
                os.close(fd)
        _detach(parent)
        if ctx is not None:
            ctx._progress = None  # the parent's listeners are not reachable from here
            ctx.interaction = Interaction()  # nor its hooks: ask nothing rather than wait
        try:
            output = action.call(values, ctx)
            if inspect.isawaitable(output):
                output = asyncio.run(_awaited(output))
            message: tuple[bool, Any] = (True, output)
        except BaseException as exc:
            message = (False, _error_payload(exc, action.name))
        try:
            data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:
            unsendable = ToolError(
                f"`{action.name}` returned a value that cannot be sent back from its process: "
                f"{type(exc).__name__}: {exc}",
                hint="The tool's output must be plain data when it runs in a separate process.",
            )
            data = pickle.dumps((False, _error_payload(unsendable, action.name)))
        _write_all(write_fd, data)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
    except BaseException:
        code = 70
    finally:
        os._exit(code)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _detach(parent: int) -> None:
    """Leave the parent's event loop and signal plumbing behind; die with the parent."""
    asyncio.events._set_running_loop(None)
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)  # a signal here must not wake the parent's loop
    _die_with(parent)
    with contextlib.suppress(OSError):
        os.nice(_NICENESS)


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` on Linux, found once in the parent: importing `ctypes` and loading libc
    in every child cost 10-14 ms a call on a loaded 2-core machine, about as much as the fork
    (`bench/fork_engines.py`)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except Exception:
        return None
    return prctl


def _die_with(parent: int) -> None:
    prctl = _prctl()
    if prctl is None:
        return
    try:
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        return
    if os.getppid() != parent:  # the parent ended before the request took effect
        os._exit(70)


def _error_payload(exc: BaseException, subject: str) -> dict[str, Any]:
    """The error a raised exception becomes, as plain data that always pickles."""
    import pickle

    try:
        info = error_from_exception(exc, subject)
        details = to_jsonable(info.details)
        pickle.dumps(details)
    except BaseException:
        return {
            "code": str(ErrorCode.EXECUTION_ERROR),
            "message": f"`{subject}` failed: {type(exc).__name__}",
            "hint": None,
            "details": None,
            "retryable": False,
        }
    return {
        "code": str(info.code),
        "message": str(info.message),
        "hint": info.hint,
        "details": details,
        "retryable": bool(info.retryable),
    }


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]

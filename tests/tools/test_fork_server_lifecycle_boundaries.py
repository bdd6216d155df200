"""The fork server's workers, from birth to replacement, boundary by boundary
(`toolrig.tools._fork_call`: its module docstring is the promise).

The promise: the work is pickled to reach the fork server, and a `TypeError` says so here when
it cannot be; work that cannot be loaded there is an ``execution_error`` naming why; a worker
serves call after call (the same process); one past its deadline is killed (``timeout``) and
one that dies without an answer (exits, is killed, cannot send its answer) is an
``execution_error``, and either is replaced at the next call, as is one killed while idle; a
`ToolError` raised by the work comes back as it was; a fork server that died is started
again at the next fork.

| promise | boundary | test |
|---|---|---|
| picklable work | a lambda; a nested function: `TypeError` naming "picklable" | `..._picklable` |
| loadable there | its module only in this process: `execution_error` | `..._loadable` |
| reuse | two calls, one worker (same pid) | `..._reused` |
| the error as raised | code, hint, details, retryable kept; the worker kept | `..._reused` |
| deadline | sleep 0 of 5 s: answered; sleep 60 of 0.5 s: `timeout`, before 30 s | `..._deadline` |
| after a timeout | the late worker gone; the next call answered by another | `..._deadline` |
| death mid-call | `os._exit`; `SIGKILL`; an unpicklable answer: `execution_error` | `..._death` |
| replaced after a death | the next call answered, by another pid | `..._death` |
| killed while idle | `SIGKILL` between calls: the next call answered by another pid | `..._idle` |
| the fork server dies | killed: the next fork starts another server, answered | `..._server` |

Breaks tried (each made the named test fail, then was undone): `run` not retrying a write to
a dead idle worker (``..._idle``: the broken pipe raised); `_read_answer` waiting for the deadline
on the end of the pipe instead of reporting the crash (``..._death``: `timeout`, not
`execution_error`); a timed-out worker given back instead of discarded (``..._deadline``:
the next call waited on the sleeping one and timed out); `_fork` not starting a fresh server
(``..._server``: the dead socket raised); the constructor not turning a pickling error into
`TypeError` (``..._picklable``).
"""

from __future__ import annotations

import os
import signal
import sys
import time
import types
from collections.abc import Iterator
from typing import Any

import pytest
from fork_work import work

from toolrig.core.model._errors import ToolError
from toolrig.tools import _fork_call
from toolrig.tools._fork_call import ForkedWorkers, fork_available

pytestmark = pytest.mark.skipif(not fork_available(), reason="needs os.fork and Unix sockets")

MEMORY = 200_000_000
WAIT = 20.0  # seconds: the bound of every wait here (a bound, not a timing)


@pytest.fixture
def workers() -> Iterator[ForkedWorkers]:
    made = ForkedWorkers(work, what="The work")
    yield made
    made.close()


def _run(workers: ForkedWorkers, kind: str, value: Any = None, timeout: float = 5.0) -> Any:
    return workers.run((kind, value), timeout=timeout, memory=MEMORY)


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended and been reaped (waited for up to `WAIT`)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.02)
    return False


def test_work_must_be_picklable() -> None:
    def nested(request: Any) -> Any:
        return request

    for handler in (lambda request: request, nested):
        with pytest.raises(TypeError, match="picklable"):
            ForkedWorkers(handler, what="The work")


def test_work_must_be_loadable_in_the_server() -> None:
    module = types.ModuleType("toolrig_only_here")
    exec("def handler(request):\n    return request\n", module.__dict__)
    sys.modules[module.__name__] = module
    try:
        made = ForkedWorkers(module.handler, what="The work")
        with pytest.raises(ToolError) as caught:
            made.run("x", timeout=5, memory=MEMORY)
        assert caught.value.code == "execution_error"
        assert "could not be loaded" in caught.value.message
        made.close()
    finally:
        del sys.modules[module.__name__]


def test_a_worker_is_reused_and_an_error_comes_back_as_raised(workers: ForkedWorkers) -> None:
    first = _run(workers, "pid")
    with pytest.raises(ToolError) as caught:
        _run(workers, "fail", 7)
    error = caught.value
    assert (error.code, error.message, error.hint, error.details, error.retryable) == (
        "permission_denied",
        "refused",
        "ask",
        {"n": 7},
        False,
    )
    assert _run(workers, "pid") == first


def test_the_deadline_kills_and_the_next_call_gets_another_worker(
    workers: ForkedWorkers,
) -> None:
    first = _run(workers, "sleep", 0)
    started = time.monotonic()
    with pytest.raises(ToolError) as caught:
        _run(workers, "sleep", 60, timeout=0.5)
    assert caught.value.code == "timeout"
    assert time.monotonic() - started < 30  # stopped at its deadline, not after the sleep
    assert _gone(first)
    assert _run(workers, "pid", timeout=WAIT) not in (first, None)


@pytest.mark.parametrize("kind", ["exit", "kill", "unpicklable"])
def test_a_death_mid_call_and_the_next_call(workers: ForkedWorkers, kind: str) -> None:
    first = _run(workers, "pid")
    with pytest.raises(ToolError) as caught:
        _run(workers, kind, timeout=WAIT)
    assert caught.value.code == "execution_error"
    assert "without an answer" in caught.value.message
    assert _run(workers, "pid") != first


def test_a_worker_killed_while_idle_is_replaced(workers: ForkedWorkers) -> None:
    first = _run(workers, "pid")
    os.kill(first, signal.SIGKILL)
    assert _gone(first)
    assert _run(workers, "pid") != first


def test_a_dead_fork_server_is_started_again(workers: ForkedWorkers) -> None:
    _run(workers, "pid")
    server = _fork_call._server
    assert server is not None
    server.process.kill()
    server.process.wait(WAIT)
    fresh = ForkedWorkers(work, what="The work")  # no idle worker: it must fork
    try:
        assert isinstance(fresh.run(("pid", None), timeout=WAIT, memory=MEMORY), int)
        again = _fork_call._server
        assert again is not None and again.process.pid != server.process.pid
    finally:
        fresh.close()

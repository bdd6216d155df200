"""Timeouts that hold whatever the tool does: a burst never queues behind one worker, stuck
workers never starve later calls, runaway Python code is interrupted, and a tool with
``isolation="process"`` runs in a child process killed at its time limit."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from runtime_timing import SLACK, Beside, idle_gap
from toolrig import ToolContext, ToolDefinitionError, ToolError, ToolExecutor, tool
from toolrig.runtime._threads import ABANDONED_PER_WORKER

WAIT = 5.0  # seconds: the bound of every wait here

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="process isolation needs os.fork")


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended and been collected (bounded wait)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


async def _with_ticker(work: Coroutine[Any, Any, Any]) -> tuple[Any, float]:
    """``work``'s value and the largest gap of a 10 ms ticker on this loop meanwhile."""
    gaps: list[float] = []
    stop = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last - 0.01)
            last = now

    ticker = asyncio.create_task(tick())
    try:
        value = await asyncio.wait_for(work, WAIT * 2)
    finally:
        stop.set()
        await ticker
    return value, max(gaps, default=0.0)


# -- worker threads ------------------------------------------------------------------------


async def test_a_burst_starts_one_worker_per_call() -> None:
    # the reproducer: an instant call queued behind a slow one used to time out
    @tool
    def slow(ctx: ToolContext) -> str:
        """Wait (stopping early when told to)."""
        ctx.cancel_event.wait(WAIT)
        return "slow"

    @tool
    def instant() -> str:
        """Answer at once."""
        return "instant"

    with ToolExecutor([slow, instant]) as executor:
        results = await executor.execute_many([("slow", {}), ("instant", {})], timeout=0.5)
    assert results[0].code == "timeout"
    assert results[1].success and results[1].output == "instant", results[1].error


async def test_stuck_workers_never_starve_later_calls() -> None:
    release = threading.Event()

    @tool
    def stuck() -> str:
        """Block in C (no Python instruction to interrupt) until released."""
        release.wait(WAIT)
        return "released"

    @tool
    def quick() -> int:
        """Answer at once."""
        return 1

    with ToolExecutor([stuck, quick], max_workers=2) as executor:
        try:
            timed_out = await executor.execute_many([("stuck", {})] * 2, timeout=0.1)
            assert [r.code for r in timed_out] == ["timeout", "timeout"]
            # queued behind the two stuck workers, it would wait for their release (below)
            # and time out; a loaded machine gets the whole limit to answer
            after = await executor.execute("quick", timeout=WAIT / 2)
            assert after.success, after.error
            # runaway calls cannot grow the pool without end: past the bound they wait
            more = await executor.execute_many([("stuck", {})] * 12, timeout=0.1)
            assert all(r.code == "timeout" for r in more)
            assert executor.pipeline.placement.threads.size <= (1 + ABANDONED_PER_WORKER) * 2
        finally:
            release.set()


async def test_runaway_python_code_is_interrupted_at_its_limit() -> None:
    cleaned = threading.Event()

    @tool(timeout=0.2)
    def spin() -> int:
        """Loop forever in Python."""
        try:
            x = 0
            while True:
                x += 1
        finally:
            cleaned.set()

    with ToolExecutor([spin]) as executor:
        result = await executor.execute("spin")
        assert result.code == "timeout"
        assert await asyncio.to_thread(cleaned.wait, WAIT)  # stopped, its finally ran
        deadline = time.monotonic() + WAIT
        while executor.pipeline.placement.threads.abandoned and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.01)  # the worker books its end just after the finally
        assert executor.pipeline.placement.threads.abandoned == 0


async def test_a_tool_that_stops_by_itself_is_not_interrupted() -> None:
    finished = threading.Event()

    @tool(timeout=0.1)
    def polite(ctx: ToolContext) -> str:
        """Check for cancellation, then finish normally."""
        while not ctx.cancelled:
            time.sleep(0.005)
        finished.set()
        return "stopped"

    with ToolExecutor([polite]) as executor:
        assert (await executor.execute("polite")).code == "timeout"
    assert await asyncio.to_thread(finished.wait, WAIT)


# -- process isolation ---------------------------------------------------------------------


def spin_forever(pid_file: str) -> int:
    """Record this process's id, then loop forever in Python."""
    Path(pid_file).write_text(str(os.getpid()))
    x = 0
    while True:
        x += 1


def hold_the_gil(pid_file: str) -> int:
    """Record this process's id, then hold the GIL in C calls forever."""
    Path(pid_file).write_text(str(os.getpid()))
    while True:
        sum(range(50_000_000))


@needs_fork
@pytest.mark.parametrize("body", [spin_forever, hold_the_gil])
async def test_an_isolated_tool_is_killed_at_its_limit(
    body: Callable[[str], int], tmp_path: Path
) -> None:
    # long enough for the child to start and record its id on a loaded machine
    limit = 1.5
    runaway = tool(name="runaway", timeout=limit, isolation="process")(body)
    pid_file = tmp_path / "pid"
    gap = idle_gap()  # how long this machine leaves a thread waiting, with nothing running here
    # the reference sleeps in a child process: a thread here would wake late too if the tool
    # held the GIL, and excuse it
    with ToolExecutor([runaway]) as executor, Beside(limit, process=True) as ref:
        result, stall = await _with_ticker(executor.execute("runaway", {"pid_file": str(pid_file)}))
    assert result.code == "timeout", result.error
    # the guarantees are 100 ms and 50 ms, here plus what this machine adds at the moment; a
    # thread would hold the loop (and so the answer) for seconds
    assert ref.elapsed < ref.bound(limit + 0.1), (ref.elapsed, ref.lateness)
    assert stall < 0.05 + SLACK + 2 * gap, (stall, gap)
    pid = int(pid_file.read_text())
    assert pid != os.getpid()
    assert _gone(pid)  # killed and collected, not left running


@tool(isolation="process")
def where(n: int) -> dict[str, int]:
    """The process that ran the call."""
    return {"pid": os.getpid(), "n": n}


@tool(isolation="process")
def refuse(n: int) -> int:
    """Fail with a chosen code and hint."""
    raise ToolError(f"no {n}", code="rate_limited", hint="wait a minute", details={"n": n})


@tool(isolation="process", timeout=WAIT)
def crash() -> int:
    """Kill its own process."""
    os._exit(3)


@tool(isolation="process")
def unpicklable() -> Any:
    """Return something that cannot leave the process."""
    return threading.Lock()


@tool(isolation="process", timeout=WAIT)
def with_context(ctx: ToolContext) -> dict[str, Any]:
    """Read the context."""
    ctx.report_progress(1, 2)  # the parent's listener is not reachable; must not fail
    return {"tool": ctx.tool, "attempt": ctx.attempt, "state": dict(ctx.state)}


@tool(isolation="process")
async def awaited(n: int) -> int:
    """An async tool in a child process."""
    await asyncio.sleep(0)
    return n * 2


ISOLATED = [where, refuse, crash, unpicklable, with_context, awaited]


@needs_fork
async def test_an_isolated_call_answers_like_any_other() -> None:
    with ToolExecutor(ISOLATED, state={"k": "v"}) as executor:
        ran = await executor.execute("where", {"n": 3})
        assert ran.success and ran.output["n"] == 3 and ran.output["pid"] != os.getpid()
        refused = await executor.execute("refuse", {"n": 2})
        assert refused.error is not None
        assert (refused.code, refused.error.message, refused.error.hint) == (
            "rate_limited",
            "no 2",
            "wait a minute",
        )
        assert refused.error.details == {"n": 2}
        crashed = await executor.execute("crash")
        assert crashed.code == "execution_error" and "exited with status 3" in str(crashed.error)
        bad = await executor.execute("unpicklable")
        assert bad.code == "execution_error" and "cannot be sent back" in str(bad.error)
        context = await executor.execute("with_context")
        assert context.output == {"tool": "with_context", "attempt": 1, "state": {"k": "v"}}
        assert (await executor.execute("awaited", {"n": 21})).output == 42


@tool(isolation="process", timeout=WAIT)
def nap(seconds: float) -> float:
    """Sleep in a child process."""
    time.sleep(seconds)
    return seconds


@needs_fork
async def test_isolated_calls_at_once_do_not_wait_for_each_other() -> None:
    with ToolExecutor([nap]) as executor:
        t0 = time.perf_counter()

        async def timed(seconds: float) -> float:
            assert (await executor.execute("nap", {"seconds": seconds})).success
            return time.perf_counter() - t0

        quick, slow = await asyncio.gather(timed(0.05), timed(0.6))
    # the quick child's answer is not held back by the slow one: it comes first (held back,
    # it would come after the slow one's), however long a loaded machine takes to fork
    assert quick < slow and slow >= 0.6


@needs_fork
def test_every_blocking_entry_point_isolates() -> None:
    with ToolExecutor([where]) as executor:
        assert executor.execute_sync("where", {"n": 1}).output["pid"] != os.getpid()
    assert where.run({"n": 2}).output["pid"] != os.getpid()
    assert where.execute("where", {"n": 3}).output["pid"] != os.getpid()


def test_isolation_is_an_option_checked_at_definition() -> None:
    def one() -> int:
        """One."""
        return 1

    with pytest.raises(ToolDefinitionError, match="isolation"):
        tool(isolation="gpu")(one)  # type: ignore[call-overload]
    assert tool(isolation="process")(one).spec.isolation == "process"


def _ended(pid: int) -> bool:
    """Whether process ``pid`` has ended (gone, or a zombie nobody collected yet)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.01)
    return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux only (PR_SET_PDEATHSIG)")
def test_an_isolated_child_dies_with_its_parent(tmp_path: Path) -> None:
    """A parent killed mid-call leaves no runaway child (the child asked Linux to kill it)."""
    import subprocess
    import sys
    import textwrap

    pid_file = tmp_path / "child.pid"
    script = textwrap.dedent(
        f"""
        import os, time
        from toolrig import ToolExecutor, tool

        @tool(isolation="process", timeout=60)
        def linger() -> int:
            with open({str(pid_file)!r}, "w") as out:
                out.write(str(os.getpid()))
            time.sleep(60)
            return 0

        with ToolExecutor([linger]) as executor:
            executor.execute_sync("linger", {{}})
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.02)
        child = int(pid_file.read_text())
        os.kill(child, 0)  # running while its parent is
    finally:
        parent.kill()
        parent.wait()
    assert _ended(child), "the isolated child outlived its parent"

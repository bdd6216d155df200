"""The default time limit: a tool that says nothing of its ``timeout`` is stopped at it.

The promises, and the tests that try them (the default is made small through
``$TOOLRIG_DEFAULT_TIMEOUT``, so the real enforcement runs, on every path):

- awaited, every tool form that says nothing is stopped at the default with one ``timeout``
  result and one log line (async and sync tools, straight and composed, YAML, ``Tool`` from
  data, an imported MCP tool, the agent): ``test_*_is_stopped_at_the_default``;
- a process-placed tool is stopped at it even when called blocking (its child is killed):
  ``test_a_process_tool_is_stopped_at_the_default``;
- ``timeout=None`` (YAML: ``timeout: null`` or ``timeout: none``) opts out, on each form:
  ``test_*_opts_out``;
- an explicit limit below or above the default wins: ``test_an_explicit_limit_wins``;
- a direct blocking call of a sync tool stays in the caller's thread, unbounded, unless a
  limit is given (then a worker thread stops it): ``test_a_direct_blocking_sync_call_*``;
- the calls of one bucket are stopped together and the others finish; the caller's own
  cancellation still propagates: ``test_calls_share_buckets``, ``test_the_callers_cancel*``;
- the default is 300 s, replaced by the variable, which is checked:
  ``test_the_default_and_its_variable``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import mcp_types
import pytest

from toolrig import Tool, ToolExecutor, ToolResult, tool
from toolrig.core.model._errors import ErrorCode
from toolrig.core.model._unset import UNSET
from toolrig.mcp._params import ServerParams
from toolrig.mcp._remote import build_remote_tool
from toolrig.registry import Registry
from toolrig.runtime import DEFAULT_TIMEOUT, TIMEOUT_ENV, CallNext
from toolrig.runtime._call import Call
from toolrig.runtime._policy import CallPolicy

LIMIT = 0.2  # the default, made small for these tests
PAST = 0.6  # seconds a tool runs: past the default
BOUND = 5.0  # a generous bound of how long a stopped call may take

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="process isolation needs os.fork")


@pytest.fixture(autouse=True)
def small_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TIMEOUT_ENV, str(LIMIT))


def _stopped(result: ToolResult) -> None:
    assert not result.success
    assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
    assert f"{LIMIT:g} s" in result.error.message
    assert result.metadata is not None
    assert LIMIT * 1000 <= result.metadata.duration_ms < BOUND * 1000


def _ran(result: ToolResult) -> None:
    assert result.success, result.error
    assert result.metadata is not None and result.metadata.duration_ms >= PAST * 1000


@tool
async def nap(s: float) -> str:
    """Sleep, awaiting."""
    await asyncio.sleep(s)
    return "awake"


@tool(timeout=None)
async def nap_free(s: float) -> str:
    """Sleep, awaiting, without a limit."""
    await asyncio.sleep(s)
    return "awake"


@tool
def doze(s: float) -> int:
    """Sleep in a thread; the thread that ran it."""
    time.sleep(s)
    return threading.get_ident()


@tool(timeout=None)
def doze_free(s: float) -> int:
    """Sleep in a thread without a limit."""
    time.sleep(s)
    return threading.get_ident()


async def _through(call: Call, call_next: CallNext) -> ToolResult:
    return await call_next(call)


@pytest.mark.parametrize("composed", [False, True])
@pytest.mark.parametrize("name", ["nap", "doze"])
def test_an_awaited_tool_is_stopped_at_the_default(
    name: str, composed: bool, caplog: pytest.LogCaptureFixture
) -> None:
    executor = ToolExecutor([nap, doze], middleware=[_through] if composed else [])
    with caplog.at_level(logging.INFO, logger="toolrig.executor"):
        result = asyncio.run(executor.execute(name, s=PAST * 5))
    _stopped(result)
    lines = [r for r in caplog.records if "[timeout]" in r.getMessage()]
    assert len(lines) == 1  # the log records it once


@pytest.mark.parametrize("composed", [False, True])
@pytest.mark.parametrize("name", ["nap_free", "doze_free"])
def test_a_tool_with_timeout_none_opts_out(name: str, composed: bool) -> None:
    executor = ToolExecutor([nap_free, doze_free], middleware=[_through] if composed else [])
    _ran(asyncio.run(executor.execute(name, s=PAST)))


def test_a_call_with_timeout_none_opts_out() -> None:
    executor = ToolExecutor([nap])
    _ran(asyncio.run(executor.execute("nap", {"s": PAST}, timeout=None)))


def test_a_blocking_call_of_an_async_tool_is_stopped_at_the_default() -> None:
    _stopped(ToolExecutor([nap]).execute_sync("nap", s=PAST * 5))


def test_an_explicit_limit_wins() -> None:
    below = tool(timeout=LIMIT / 4)(nap.__wrapped__)
    executor = ToolExecutor([below])
    result = asyncio.run(executor.execute("nap", s=PAST))
    assert result.error is not None and result.error.code == ErrorCode.TIMEOUT
    assert f"{LIMIT / 4:g} s" in result.error.message
    assert result.metadata is not None and result.metadata.duration_ms < LIMIT * 1000
    above = tool(timeout=PAST * 5)(nap.__wrapped__)
    _ran(asyncio.run(ToolExecutor([above]).execute("nap", s=PAST)))
    _ran(asyncio.run(ToolExecutor([nap]).execute("nap", {"s": PAST}, timeout=PAST * 5)))
    # the executor's own setting replaces the default too
    _ran(asyncio.run(ToolExecutor([nap], default_timeout=PAST * 5).execute("nap", s=PAST)))


# -- the direct blocking call of a sync tool: the documented exception ----------------------
def test_a_direct_blocking_sync_call_stays_in_the_callers_thread() -> None:
    executor = ToolExecutor([doze])
    result = executor.execute_sync("doze", s=PAST)
    _ran(result)  # not stopped at the default: nothing could stop it in this thread
    assert result.output == threading.get_ident()  # the straight line, in this thread


def test_a_direct_blocking_sync_call_with_hooks_stays_in_the_callers_thread() -> None:
    executor = ToolExecutor([doze])
    seen: list[int] = []
    executor.add_pre_hook(lambda call: seen.append(threading.get_ident()))  # composed, inline
    result = executor.execute_sync("doze", s=PAST)
    _ran(result)
    assert result.output == threading.get_ident() == seen[0]


def test_a_direct_blocking_sync_call_is_bounded_by_a_given_limit() -> None:
    _stopped(ToolExecutor([doze], default_timeout=LIMIT).execute_sync("doze", s=PAST * 5))
    limited = tool(timeout=LIMIT)(doze.__wrapped__)
    _stopped(ToolExecutor([limited]).execute_sync("doze", s=PAST * 5))
    _stopped(ToolExecutor([doze]).execute_sync("doze", {"s": PAST * 5}, timeout=LIMIT))


# -- every tool form --------------------------------------------------------------------------
def _yaml_tools(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Registry:
    (folder / "sleepers_impl.py").write_text(
        "import asyncio, time\n"
        "async def nap(s):\n    await asyncio.sleep(s)\n    return 'awake'\n"
        "def doze(s):\n    time.sleep(s)\n    return 'awake'\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(folder))
    sys.modules.pop("sleepers_impl", None)
    for name, timeout in (
        ("y_nap", ""),
        ("y_null", "timeout: null\n"),
        ("y_none", "timeout: none\n"),
    ):
        (folder / f"{name}.yaml").write_text(
            f"name: {name}\ndescription: Sleep.\n"
            "parameters:\n  - {name: s, type: number, required: true}\n"
            f"executor: sleepers_impl.{'nap' if name != 'y_none' else 'doze'}\n{timeout}",
            encoding="utf-8",
        )
    registry = Registry()
    report = registry.load(folder)
    assert not report.errors, report.errors
    return registry


def test_a_yaml_tool_is_stopped_at_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = _yaml_tools(tmp_path, monkeypatch)
    assert registry.get("y_nap").spec.timeout is UNSET
    _stopped(asyncio.run(ToolExecutor(registry).execute("y_nap", s=PAST * 5)))


@pytest.mark.parametrize("name", ["y_null", "y_none"])
def test_a_yaml_tool_with_timeout_null_or_none_opts_out(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = _yaml_tools(tmp_path, monkeypatch)
    assert registry.get(name).spec.timeout is None
    _ran(asyncio.run(ToolExecutor(registry).execute(name, s=PAST)))


async def _sleep(s: float) -> str:
    await asyncio.sleep(s)
    return "awake"


_PARAMS = {"type": "object", "properties": {"s": {"type": "number"}}, "required": ["s"]}


def test_a_tool_from_data_is_stopped_at_the_default() -> None:
    data = Tool(name="data_nap", description="Sleep.", parameters=_PARAMS, func=_sleep)
    assert data.spec.timeout is UNSET
    _stopped(asyncio.run(ToolExecutor([data]).execute("data_nap", s=PAST * 5)))
    copy = Tool(name="copy_nap", func=_sleep, parameters=_PARAMS, options=data.spec)
    _stopped(asyncio.run(ToolExecutor([copy]).execute("copy_nap", s=PAST * 5)))


def test_a_tool_from_data_with_timeout_none_opts_out() -> None:
    data = Tool(name="data_nap", parameters=_PARAMS, func=_sleep, timeout=None)
    _ran(asyncio.run(ToolExecutor([data]).execute("data_nap", s=PAST)))
    copy = Tool(name="copy_nap", func=_sleep, parameters=_PARAMS, options=data.spec)
    assert copy.spec.timeout is None  # a spec's "no limit" is copied, not taken for unset
    _ran(asyncio.run(ToolExecutor([copy]).execute("copy_nap", s=PAST)))


def _imported(**options: Any) -> Tool:
    async def call(name: str, arguments: dict[str, Any], ctx: Any) -> Any:
        await asyncio.sleep(arguments["s"])
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="ok")])

    remote = mcp_types.Tool(name="nap", description="Sleep.", inputSchema=_PARAMS)
    return build_remote_tool(remote, name="srv__nap", call=call, source="srv", **options)


def test_an_imported_mcp_tool_is_stopped_at_the_default() -> None:
    assert ServerParams(url="http://127.0.0.1:1/mcp").timeout is UNSET
    _stopped(asyncio.run(ToolExecutor([_imported()]).execute("srv__nap", s=PAST * 5)))


def test_an_imported_mcp_tool_with_timeout_none_opts_out() -> None:
    _ran(asyncio.run(ToolExecutor([_imported(timeout=None)]).execute("srv__nap", s=PAST)))


def test_the_agent_stops_a_sync_tool_at_the_default() -> None:
    from toolrig.agent import Agent
    from toolrig.testing import ModelTurn, ScriptedModel

    model = ScriptedModel([ModelTurn(calls=[("doze", {"s": PAST * 5}, "c1")]), "done"])
    result = Agent("Sleeper", "You sleep.", model, [doze]).run("Sleep.")
    (stopped,) = [r for step in result.steps for r in step.results]
    _stopped(stopped)


@needs_fork
def test_a_process_tool_is_stopped_at_the_default() -> None:
    @tool(isolation="process")
    def hang(s: float) -> int:
        """Sleep in a child process."""
        time.sleep(s)
        return os.getpid()

    _stopped(ToolExecutor([hang]).execute_sync("hang", s=PAST * 10))  # blocking, yet stopped
    _stopped(asyncio.run(ToolExecutor([hang]).execute("hang", s=PAST * 10)))


@needs_fork
def test_a_process_tool_with_timeout_none_opts_out() -> None:
    @tool(isolation="process", timeout=None)
    def hang(s: float) -> int:
        """Sleep in a child process."""
        time.sleep(s)
        return os.getpid()

    result = ToolExecutor([hang]).execute_sync("hang", s=PAST)
    _ran(result)
    assert result.output != os.getpid()


# -- the buckets of deadlines -----------------------------------------------------------------
def test_calls_share_buckets_and_only_the_overdue_are_stopped() -> None:
    executor = ToolExecutor([nap])

    async def burst() -> list[ToolResult]:
        return await asyncio.gather(
            *(executor.execute("nap", s=LIMIT / 4 if i % 2 else PAST * 5) for i in range(40))
        )

    results = asyncio.run(burst())
    assert [r.success for r in results] == [i % 2 == 1 for i in range(40)]
    for r in results[::2]:
        _stopped(r)


def test_the_callers_cancellation_still_propagates() -> None:
    executor = ToolExecutor([nap])

    async def main() -> None:
        task = asyncio.ensure_future(executor.execute("nap", s=PAST * 5))
        await asyncio.sleep(LIMIT / 4)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # and the loop goes on: the bucket's timer finds nothing left to stop
        await asyncio.sleep(LIMIT * 1.5)
        assert asyncio.current_task() is not None
        assert not asyncio.current_task().cancelling()  # type: ignore[union-attr]

    asyncio.run(main())


def test_the_default_and_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert DEFAULT_TIMEOUT == 300.0
    monkeypatch.delenv(TIMEOUT_ENV)
    assert CallPolicy().implicit == DEFAULT_TIMEOUT
    monkeypatch.setenv(TIMEOUT_ENV, "none")
    assert CallPolicy().implicit is None
    monkeypatch.setenv(TIMEOUT_ENV, "12.5")
    assert CallPolicy().implicit == 12.5
    for bad in ("0", "-1", "soon"):
        monkeypatch.setenv(TIMEOUT_ENV, bad)
        with pytest.raises(ValueError, match=TIMEOUT_ENV):
            CallPolicy()
    assert CallPolicy(default_timeout=None).implicit is None  # a given setting wins
    with pytest.raises(ValueError, match="default_timeout"):
        CallPolicy(default_timeout=0)

#!/usr/bin/env python3
"""What the result budget costs, and what it saves.

Run from the checkout:  .venv/bin/python bench/result_budget.py [--quick]

1. A small result (a short string, then a small dict) called through the pipeline with the
   budget off and on, interleaved in the same run: the median time per call of each. A small
   result is never cut, so the budget's cost there is one context-variable read and a length
   (a dict: its JSON text is measured).
2. A large result (10 MB of text; 1 MB with --quick) with the budget off and on: the time per
   call (on: the whole kept in memory and cut; with a log: also written to SQLite).
3. An agent run over a noisy MCP tool: a local toolrig MCP server on 127.0.0.1 (streamable
   HTTP) serving a tool that answers 400,000 characters, imported into an agent's tools; the
   scripted model (toolrig.testing.FunctionModel) calls it three times. The characters sent to
   the model over the whole run, with the budget (the default, 32,000) and without; tokens are
   estimated at 4 characters per token (no tokenizer is needed offline).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolrig import ToolExecutor, tool
from toolrig.runtime import DEFAULT_RESULT_CHARS, result_budget

perf = time.perf_counter


@tool
def short() -> str:
    """A short answer."""
    return "the answer is 42"


@tool
def small_dict() -> dict[str, Any]:
    """A small record."""
    return {"id": 7, "name": "widget", "tags": ["a", "b"], "price": 9.5}


def _per_call(fn: Callable[[], Any], calls: int) -> float:
    t0 = perf()
    for _ in range(calls):
        fn()
    return (perf() - t0) / calls


def small_results(calls: int, rounds: int) -> None:
    executor = ToolExecutor([short, small_dict])
    print("1. small results (median per call over interleaved rounds)")
    print(f"   {'result':12} {'budget off':>12} {'budget on':>12} {'difference':>12}")
    for name in ("short", "small_dict"):

        def call(name: str = name) -> Any:
            return executor.execute_sync(name, {})

        off: list[float] = []
        on: list[float] = []
        gc.collect()
        for _ in range(rounds):
            off.append(_per_call(call, calls))
            with result_budget(DEFAULT_RESULT_CHARS):
                on.append(_per_call(call, calls))
        a, b = statistics.median(off), statistics.median(on)
        print(
            f"   {name:12} {a * 1e6:10.2f} µs {b * 1e6:10.2f} µs {(b - a) * 1e6:+10.2f} µs"
            f"  ({(b - a) / a:+.1%})"
        )


def large_result(size: int, repeats: int) -> None:
    text = ("0123456789abcdef" * (size // 16 + 1))[:size]

    @tool
    def dump() -> str:
        """A large answer."""
        return text

    executor = ToolExecutor([dump])
    print(f"\n2. a {size / 1e6:.0f} MB result (median of {repeats} calls)")
    rows: list[tuple[str, float, int]] = []
    times = [_per_call(lambda: executor.execute_sync("dump", {}), 1) for _ in range(repeats)]
    rows.append(("budget off", statistics.median(times), size))
    with result_budget(DEFAULT_RESULT_CHARS):
        shown = len(executor.execute_sync("dump", {}).output)
        times = [_per_call(lambda: executor.execute_sync("dump", {}), 1) for _ in range(repeats)]
    rows.append(("budget on, memory", statistics.median(times), shown))
    from toolrig.storage import SQLiteExecutionLog

    with tempfile.TemporaryDirectory() as folder:
        log = SQLiteExecutionLog(Path(folder) / "log.db")
        with log.run("bench"), result_budget(DEFAULT_RESULT_CHARS):
            times = [
                _per_call(lambda: executor.execute_sync("dump", {}), 1) for _ in range(repeats)
            ]
        log.close()
    rows.append(("budget on, SQLite log", statistics.median(times), shown))
    for label, seconds, chars in rows:
        print(f"   {label:24} {seconds * 1e3:9.2f} ms   {chars:>12,} characters handed on")


NOISE = "".join(f"{i:07d} DEBUG worker heartbeat ok, queue depth nominal\n" for i in range(7_500))


async def agent_over_mcp(calls: int) -> None:
    from toolrig.agent import Agent
    from toolrig.mcp import ToolServer, add_mcp_server_async, serve_http
    from toolrig.registry import Catalog
    from toolrig.testing import FunctionModel, ModelTurn

    @tool
    def tail_logs() -> str:
        """The service's recent log lines."""
        return NOISE

    server = ToolServer(Catalog([tail_logs]), max_result_chars=None)  # the remote sends all
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve_http(server, port=0, on_ready=ready.set_result))
    url = await asyncio.wait_for(ready, 30)
    print(f"\n3. an agent over a noisy MCP tool ({len(NOISE):,} characters a call, {calls} calls)")
    print(f"   {'budget':>14} {'chars sent':>14} {'~tokens':>10} {'largest request':>16}")
    try:
        for budget in (None, DEFAULT_RESULT_CHARS):
            local = Catalog()
            source = await add_mcp_server_async(local, url=url, prefix="svc")
            sent: list[int] = []

            def model(
                messages: list[dict[str, Any]], tools: list[dict[str, Any]], sent: list[int] = sent
            ) -> Any:
                sent.append(sum(len(str(m.get("content") or "")) for m in messages))
                done = sum(1 for m in messages if m["role"] == "tool")
                if done < calls:
                    return ModelTurn(calls=[("svc__tail_logs", {})])
                return ModelTurn(calls=[("attempt_completion", {"result": "checked"})])

            agent = Agent(
                "ops", "Check the service.", FunctionModel(model), local, max_result_chars=budget
            )
            await agent.arun("Is the service healthy?")
            total = sum(sent)
            label = "off" if budget is None else f"{budget:,}"
            print(f"   {label:>14} {total:>14,} {total // 4:>10,} {max(sent):>16,}")
            source.close()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls, a 1 MB result")
    args = parser.parse_args()
    small_results(calls=2_000 if args.quick else 20_000, rounds=5 if args.quick else 15)
    large_result(1_000_000 if args.quick else 10_000_000, repeats=3 if args.quick else 9)
    asyncio.run(agent_over_mcp(calls=3))


if __name__ == "__main__":
    main()

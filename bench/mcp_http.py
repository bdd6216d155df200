#!/usr/bin/env python3
"""Calls per second through `toolrig serve --transport http` with 1 and 32 concurrent clients.

Run from the checkout:  .venv/bin/python bench/mcp_http.py [--seconds S] [--max-calls N] [--quick]

The server is a subprocess serving the demo tools on 127.0.0.1 (a free port); the clients are
real MCP ``ClientSession``s over streamable HTTP in this process, each with its own session,
calling the trivial ``add`` tool back to back. Each scenario runs for ``--seconds`` or until
``--max-calls`` calls, whichever comes first, after a short warm-up. Client and server share
the machine's cores, so the figures bound what one client process can drive.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

perf = time.perf_counter
SERVE = [sys.executable, "-m", "toolrig.cli.main", "serve", "--demo"]


def start_server() -> tuple[subprocess.Popen[str], str]:
    """`toolrig serve --demo` over HTTP on 127.0.0.1; returns the process and its URL."""
    proc = subprocess.Popen(
        [*SERVE, "--transport", "http", "--host", "127.0.0.1", "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    found: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            match = re.search(r"listening on (http://\S+)", line)
            if match and not found:
                found.append(match.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(30) or not found:
        proc.kill()
        raise SystemExit("the server did not start")
    return proc, found[0]


async def client(
    url: str,
    stop_box: list[float],
    budget: list[int],
    latencies: list[float],
    started: asyncio.Barrier,
) -> int:
    """One session calling ``add`` until the stop time or the shared call budget runs out."""
    done = 0
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for i in range(5):  # warm-up
            await session.call_tool("add", {"a": i, "b": 1})
        await started.wait()
        while perf() < stop_box[0] and budget[0] > 0:
            budget[0] -= 1
            t0 = perf()
            result = await session.call_tool("add", {"a": done, "b": 1})
            latencies.append(perf() - t0)
            if result.is_error or result.structured_content != {"result": done + 1}:
                raise RuntimeError(f"unexpected result: {result}")
            done += 1
    return done


async def scenario(url: str, clients: int, seconds: float, max_calls: int) -> None:
    budget = [max_calls]
    latencies: list[float] = []
    started = asyncio.Barrier(clients + 1)
    stop_box = [perf() + 3600.0]  # fixed once every client is connected
    tasks = [
        asyncio.create_task(client(url, stop_box, budget, latencies, started))
        for _ in range(clients)
    ]
    await asyncio.wait_for(started.wait(), 60)
    t0 = perf()
    stop_box[0] = t0 + seconds
    counts = await asyncio.wait_for(asyncio.gather(*tasks), seconds + 60)
    elapsed = perf() - t0
    calls = sum(counts)
    p50 = statistics.median(latencies) * 1000 if latencies else float("nan")
    p95 = statistics.quantiles(latencies, n=20)[18] * 1000 if len(latencies) >= 20 else float("nan")
    print(
        f"{clients:>3} client(s): {calls / elapsed:8.0f} calls/s  "
        f"({calls} calls in {elapsed:.2f} s; latency p50 {p50:.2f} ms, p95 {p95:.2f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per scenario (3)")
    parser.add_argument("--max-calls", type=int, default=20000, help="calls per scenario cap")
    parser.add_argument("--quick", action="store_true", help="smoke run: 0.5 s, 500 calls cap")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.max_calls = 0.5, 500
    print(
        f"toolrig MCP over streamable HTTP, 127.0.0.1; Python {platform.python_version()}, "
        f"{os.cpu_count()} CPU(s); tool: demo `add`"
    )
    proc, url = start_server()
    try:
        for clients in (1, 32):
            asyncio.run(scenario(url, clients, args.seconds, args.max_calls))
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


if __name__ == "__main__":
    main()

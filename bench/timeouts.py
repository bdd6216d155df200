"""How late a ``timeout`` answer comes, and how long the event loop stalls meanwhile, for tools
that sleep, spin in Python, or hold the GIL in one long C call, run in a worker thread
(``isolation="thread"``, the default) or in a child process (``isolation="process"``).

Each cell runs ``--rounds`` rounds of ``--concurrent`` calls at once, every call with a
``--limit`` second time limit that it always overruns. *Lateness* is how long after its limit
each call got its ``timeout`` answer (p50 and p100 over every call of the cell); *stall* is the
largest gap between two ticks of a 10 ms ticker on the same event loop, minus the 10 ms.

    python bench/timeouts.py                  # 25 rounds x 4 calls per cell
    python bench/timeouts.py --rounds 5       # quicker
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

from toolrig import ToolExecutor, tool

TICK = 0.010


def sleeps() -> int:
    """Sleep far past any limit (releases the GIL)."""
    time.sleep(30)
    return 0


def spins() -> int:
    """Spin in Python bytecode, forever."""
    x = 0
    while True:
        x += 1


def holds_gil() -> int:
    """Call C code that holds the GIL for ~0.1 s at a time, forever."""
    while True:
        sum(range(10_000_000))


KINDS: dict[str, Callable[[], int]] = {
    "sleeps": sleeps,
    "spins in Python": spins,
    "holds the GIL in C": holds_gil,
}


async def cell(
    executor: ToolExecutor, name: str | None, rounds: int, concurrent: int, limit: float
) -> tuple[list[float], float]:
    """Lateness of every call (seconds past its limit) and the largest ticker gap beyond TICK;
    with no tool ``name``, the same time spent idle (the machine's own noise)."""
    gaps: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(TICK)
            now = time.perf_counter()
            gaps.append(now - last - TICK)
            last = now

    async def one() -> float:
        t0 = time.perf_counter()
        if name is None:
            await asyncio.sleep(limit)
            return time.perf_counter() - t0 - limit
        result = await executor.execute(name, {})
        assert result.code == "timeout", result
        return time.perf_counter() - t0 - limit

    ticking = asyncio.create_task(ticker())
    late: list[float] = []
    for _ in range(rounds):
        late.extend(await asyncio.gather(*(one() for _ in range(concurrent))))
        await asyncio.sleep(0.05)  # let interrupted threads finish between rounds
    stop.set()
    await ticking
    return late, max(gaps, default=0.0)


async def main(rounds: int, concurrent: int, limit: float) -> None:
    tools: list[Any] = []
    for mode in ("thread", "process"):
        for func in KINDS.values():
            name = f"{func.__name__}_{mode}"
            tools.append(tool(name=name, timeout=limit, isolation=mode)(func))  # type: ignore[arg-type]
    with ToolExecutor(tools) as executor:
        print(f"{rounds} rounds x {concurrent} concurrent calls per cell, limit {limit:g} s\n")
        print(
            "| isolation | the tool               | calls | lateness p50 | lateness p100 | max loop stall |"
        )
        print(
            "|-----------|------------------------|-------|--------------|---------------|----------------|"
        )
        late, stall = await cell(executor, None, rounds, concurrent, limit)
        print(
            f"| -         | nothing (noise floor)  | {len(late):>5} | "
            f"{statistics.median(late) * 1000:>9.1f} ms | {max(late) * 1000:>10.1f} ms | "
            f"{stall * 1000:>11.1f} ms |"
        )
        for mode in ("thread", "process"):
            for label, func in KINDS.items():
                late, stall = await cell(
                    executor, f"{func.__name__}_{mode}", rounds, concurrent, limit
                )
                print(
                    f"| {mode:<9} | {label:<22} | {len(late):>5} | "
                    f"{statistics.median(late) * 1000:>9.1f} ms | {max(late) * 1000:>10.1f} ms | "
                    f"{stall * 1000:>11.1f} ms |"
                )
                await asyncio.sleep(0.5)  # let the last threads of the cell end


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("--concurrent", type=int, default=4)
    ap.add_argument("--limit", type=float, default=0.2, help="each call's time limit, seconds")
    ap.add_argument("--quick", action="store_true", help="smoke run: 2 rounds of 2 calls")
    ns = ap.parse_args()
    if ns.quick:
        ns.rounds, ns.concurrent = 2, 2
    asyncio.run(main(ns.rounds, ns.concurrent, ns.limit))

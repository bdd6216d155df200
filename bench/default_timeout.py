"""What the default time limit costs an awaited call on the straight line.

Every awaited call of a tool that says nothing of its ``timeout`` runs under the default limit
(``DEFAULT_TIMEOUT``); a tool with ``timeout=None`` runs without one, as every call did before
the default existed. This measures CPU per call of both, in alternating batches (so drift on a
shared machine hits both alike), awaited one at a time and in bursts of concurrent calls, and
for scale what ``asyncio.timeout`` (a timer per call) would add instead.

    python bench/default_timeout.py            # 20 batches of 20 000 calls
    python bench/default_timeout.py --quick    # a few batches, to check it runs
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from toolrig import ToolExecutor, tool


@tool
async def limited(x: int) -> int:
    """Says nothing of its timeout: the default limit applies."""
    return x


@tool(timeout=None)
async def unlimited(x: int) -> int:
    """No limit (the path every call took before the default)."""
    return x


@tool(timeout=None)
async def timer_per_call(x: int) -> int:
    """No limit of the pipeline's, but an ``asyncio.timeout`` of its own, for scale."""
    async with asyncio.timeout(300):  # noqa: ASYNC100 - the timer's cost is what is measured
        return x


async def batch(executor: ToolExecutor, name: str, calls: int, burst: int) -> float:
    """CPU microseconds per call of ``calls`` calls of ``name``, ``burst`` at a time."""
    t0 = time.process_time()
    if burst == 1:
        for i in range(calls):
            await executor.execute(name, x=i)
    else:
        for _ in range(0, calls, burst):
            await asyncio.gather(*(executor.execute(name, x=i) for i in range(burst)))
    return (time.process_time() - t0) / calls * 1e6


async def main(batches: int, calls: int) -> None:
    executor = ToolExecutor([limited, unlimited, timer_per_call])
    names = ("unlimited", "limited", "timer_per_call")
    for burst in (1, 100):
        cpu: dict[str, list[float]] = {n: [] for n in names}
        for _ in range(batches):
            for name in names:  # alternating: each batch measures all three
                cpu[name].append(await batch(executor, name, calls, burst))
        base = statistics.median(cpu["unlimited"])
        print(f"burst {burst:>3}: CPU µs per awaited call (median of {batches} batches)")
        for name in names:
            med = statistics.median(cpu[name])
            print(f"  {name:<15} {med:7.2f}  ({med - base:+.2f} vs no limit)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="a few small batches")
    args = parser.parse_args()
    if args.quick:
        args.batches, args.calls = 3, 2_000
    asyncio.run(main(args.batches, args.calls))

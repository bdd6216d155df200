"""Tools ``bench/distributed.py`` calls on Celery workers (workers import this module too).

Their queue comes from ``TOOLRIG_BENCH_QUEUE``, so a run never shares one with another.
"""

from __future__ import annotations

import os
import time

from toolrig import ToolAnnotations, tool

QUEUE = os.environ.get("TOOLRIG_BENCH_QUEUE", "toolrig-bench")


@tool(runs_on=QUEUE, annotations=ToolAnnotations(read_only=True))
def echo(n: int) -> int:
    """Answer ``n`` (the cost of the call path itself)."""
    return n


@tool(runs_on=QUEUE, annotations=ToolAnnotations(read_only=True))
def nap(n: int) -> int:
    """Sleep 50 ms (a tool that waits on I/O)."""
    time.sleep(0.05)
    return n


@tool(runs_on=QUEUE, annotations=ToolAnnotations(read_only=True))
def spin(n: int) -> int:
    """About 20 ms of pure-Python arithmetic (a CPU-bound tool)."""
    total = 0
    for i in range(300_000):
        total += i * i % 7
    return total + n

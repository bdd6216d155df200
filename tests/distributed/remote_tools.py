"""Tools the distributed tests run on real workers (imported by the test and by each worker).

Their queue comes from ``TOOLRIG_TEST_QUEUE`` so concurrent test runs never share one; the
tools that must be observed from outside write their process id to files under
``TOOLRIG_TEST_MARKS``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from toolrig import ToolAnnotations, ToolContext, tool

QUEUE = os.environ.get("TOOLRIG_TEST_QUEUE", "toolrig-test")
IDLE_QUEUE = QUEUE + "-idle"
"""A queue no worker consumes."""


def _mark(name: str) -> Path:
    return Path(os.environ.get("TOOLRIG_TEST_MARKS", ".")) / name


@tool(runs_on=QUEUE, annotations=ToolAnnotations(read_only=True))
def add(a: int, b: int) -> int:
    """The sum of two integers."""
    return a + b


@tool(runs_on=QUEUE)
def divide(a: float, b: float) -> float:
    """``a / b`` (fails on zero)."""
    return a / b


@tool(runs_on=QUEUE)
def shout(text: str, times: int = 1) -> dict[str, Any]:
    """``text`` in capitals, repeated."""
    return {"text": text.upper() * times, "length": len(text) * times}


@tool(runs_on=QUEUE, timeout=1.0)
def nap(seconds: float, mark: str) -> int:
    """Sleep; the worker process id is written to the mark file first."""
    _mark(f"{mark}.pid").write_text(str(os.getpid()))
    time.sleep(seconds)
    return os.getpid()


@tool(runs_on=QUEUE, timeout=30)
def work(tag: str, seconds: float, after: list[Any] | None = None) -> dict[str, Any]:
    """A call with effects, not idempotent: each start appends the process id to a file."""
    with _mark(f"{tag}.starts").open("a") as f:
        f.write(f"{os.getpid()}\n")
    time.sleep(seconds)
    return {"tag": tag, "pid": os.getpid(), "after": after or []}


@tool(runs_on=QUEUE, timeout=30, annotations=ToolAnnotations(idempotent=True))
def settle(tag: str, seconds: float) -> dict[str, Any]:
    """Like ``work``, but idempotent: running it again has no further effect."""
    with _mark(f"{tag}.starts").open("a") as f:
        f.write(f"{os.getpid()}\n")
    time.sleep(seconds)
    return {"tag": tag, "pid": os.getpid()}


@tool(runs_on=IDLE_QUEUE, timeout=0.5)
def unserved(a: int) -> int:
    """Sent to a queue no worker consumes."""
    return a


@tool(runs_on=QUEUE, annotations=ToolAnnotations(read_only=True))
def whoami(ctx: ToolContext) -> dict[str, Any]:
    """The call id and the trace the worker runs this call in."""
    from opentelemetry import trace

    span = trace.get_current_span().get_span_context()
    return {"call_id": ctx.tool_call_id, "trace_id": format(span.trace_id, "032x")}

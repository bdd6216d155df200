#!/usr/bin/env python3
"""Per-call overhead of toolrig, next to a bare call and the pydantic floor.

Run from the checkout:  .venv/bin/python bench/overhead.py [--quick] [--repeats N] [--target-s S]

Everything runs in one process (async sections on one event loop). Each section starts with
``gc.collect(); gc.freeze()`` so it pays only for the garbage it makes itself. A figure is the
median of ``--repeats`` timed batches, each sized to last about ``--target-s`` seconds; the
``±`` column is (max - min) / 2 / median, a noise indicator. On a shared machine, run it twice.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, TypeAdapter
from typing_extensions import TypedDict

import toolrig
from toolrig import ToolExecutor, tool

perf = time.perf_counter

# ---------------------------------------------------------------------------------------------
# The tools
# ---------------------------------------------------------------------------------------------


def add(a: int, b: int, note: str = "") -> int:
    """Add two integers.

    Args:
        a: First addend.
        b: Second addend.
        note: Free-form note, ignored.
    """
    return a + b


async def add_async(a: int, b: int, note: str = "") -> int:
    """Add two integers.

    Args:
        a: First addend.
        b: Second addend.
        note: Free-form note, ignored.
    """
    return a + b


def search(
    query: str,
    max_results: Annotated[int, Field(ge=1, le=100)] = 5,
    tags: list[str] = [],  # noqa: B006 - the default under test
    mode: Literal["fast", "deep"] = "fast",
    min_score: float = 0.0,
) -> dict[str, Any]:
    """Search the corpus.

    Args:
        query: Text to look for.
        max_results: How many hits to return (1..100).
        tags: Only hits with one of these tags.
        mode: Search strategy.
        min_score: Drop hits scoring below this.
    """
    return {"query": query, "max_results": max_results, "tags": tags, "mode": mode}


async def sleepy(a: int, b: int) -> int:
    """Wait 10 ms, then add.

    Args:
        a: First addend.
        b: Second addend.
    """
    await asyncio.sleep(0.01)
    return a + b


ADD_ARGS: dict[str, Any] = {"a": 1, "b": 2}
SEARCH_ARGS: dict[str, Any] = {
    "query": "tool overhead",
    "max_results": 10,
    "tags": ["x", "y"],
    "mode": "deep",
    "min_score": 0.5,
}
BAD_ARGS: dict[str, Any] = {"a": "not a number"}


class AddArgs(TypedDict):
    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    a: int
    b: int
    note: NotRequired[str]


# ---------------------------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------------------------


def settle() -> None:
    """Start a section with a clean heap: later GC passes skip everything alive now."""
    gc.collect()
    gc.freeze()


@dataclass
class Row:
    label: str
    samples: list[float]
    unit: str
    target: float | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def spread(self) -> float:
        med = self.median
        return (max(self.samples) - min(self.samples)) / 2 / med * 100 if med else 0.0


def _sized(batch: Callable[[int], float], target_s: float) -> int:
    """Warm up, then the iteration count for a batch lasting about ``target_s``."""
    n = 8
    while True:
        per_call = batch(n) / n
        if per_call * n >= 0.02 or n >= 1 << 22:
            break
        n *= 4
    return max(10, int(target_s / per_call))


def per_call_sync(call: Callable[[], Any], repeats: int, target_s: float) -> list[float]:
    """µs per call of ``call()``, one sample per timed batch."""

    def batch(n: int) -> float:
        t0 = perf()
        for _ in range(n):
            call()
        return perf() - t0

    n = _sized(batch, target_s)
    settle()
    return [batch(n) / n * 1e6 for _ in range(repeats)]


def per_call_async(
    loop: asyncio.AbstractEventLoop,
    call: Callable[[], Awaitable[Any]],
    repeats: int,
    target_s: float,
) -> list[float]:
    """µs per ``await call()``, awaited in a loop inside one coroutine."""

    async def timed(n: int) -> float:
        t0 = perf()
        for _ in range(n):
            await call()
        return perf() - t0

    def batch(n: int) -> float:
        return loop.run_until_complete(timed(n))

    n = _sized(batch, target_s)
    settle()
    return [batch(n) / n * 1e6 for _ in range(repeats)]


def burst(
    loop: asyncio.AbstractEventLoop,
    make: Callable[[], Awaitable[Any]],
    repeats: int,
) -> list[float]:
    """Wall ms of ``await make()`` (one burst of concurrent calls), per repeat."""

    async def timed() -> float:
        t0 = perf()
        await make()
        return perf() - t0

    loop.run_until_complete(timed())  # warm-up: worker threads, lazy state
    settle()
    out = []
    for _ in range(repeats):
        gc.collect()
        out.append(loop.run_until_complete(timed()) * 1e3)
    return out


def breakdown(executor: ToolExecutor, repeats: int, target_s: float) -> list[Row]:
    """Each part of the straight sync line on its own: what the structure of a call (its
    id, timestamps, result object) costs beside validation and the call itself."""
    from toolrig.core.model._ids import new_call_id
    from toolrig.runtime._outcome import make_result

    entry = executor.catalog.entry("add")
    assert entry is not None
    action = entry[1]
    values = action.validator.validate(ADD_ARGS)
    parts: list[tuple[str, Callable[[], Any]]] = [
        ("catalogue lookup", lambda: executor.catalog.entry("add")),
        ("call id", new_call_id),
        ("two clock reads (start time, duration)", lambda: (time.time(), perf())),
        ("argument validation", lambda: action.validator.validate(ADD_ARGS)),
        ("the function itself", lambda: action.call(values, None)),
        ("result and metadata objects", lambda: make_result(action, 3, None, "c", 0.0, 1.0, 1)),
        ("empty lambda (the harness)", lambda: None),
    ]
    return [
        Row(f"  part: {label}", per_call_sync(call, repeats, target_s), "µs")
        for label, call in parts
    ]


def import_cost(statement: str) -> tuple[float, float, float]:
    """(in-process import ms, process wall ms, peak RSS MiB) of a fresh interpreter.

    Peak RSS is the child's own VmHWM: across fork+exec Linux carries the parent's
    high-water mark into the child's ``ru_maxrss``, which makes that figure useless here.
    """
    code = (
        "import time as _t\n_s = _t.perf_counter()\n"
        f"{statement}\n"
        "_e = _t.perf_counter()\n"
        "_hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
        "print((_e - _s) * 1000, int(_hwm))"
    )
    # Cached bytecode, as an installed package has: without it every run recompiles the
    # package's own modules, which measures the compiler, not the import.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    t0 = perf()
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    wall = (perf() - t0) * 1e3
    ms, hwm_kib = proc.stdout.split()
    return float(ms), wall, int(hwm_kib) / 1024


# ---------------------------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------------------------


def run(repeats: int, target_s: float, n_concurrent: int, import_repeats: int) -> list[Row]:
    rows: list[Row] = []

    def section(title: str) -> None:
        print(f"  {title} ...", file=sys.stderr, flush=True)

    # Imports first, while nothing is cached by this process's children.
    section("import cost")
    bare_stmt, rig_stmt = "pass", "import toolrig"
    pydantic_stmt = "from pydantic import BaseModel, Field, TypeAdapter"
    mcp_rig_stmt, mcp_sdk_stmt = (
        "from toolrig.mcp import ToolServer",
        "from mcp.server import MCPServer",
    )
    statements = (bare_stmt, rig_stmt, pydantic_stmt, mcp_rig_stmt, mcp_sdk_stmt)
    for statement in statements:
        import_cost(statement)  # warm-up: page cache, .pyc files
    costs: dict[str, list[tuple[float, float, float]]] = {s: [] for s in statements}
    for _ in range(import_repeats):  # interleaved, so noise hits all alike
        for statement in statements:
            costs[statement].append(import_cost(statement))
    bare, rig = costs[bare_stmt], costs[rig_stmt]
    bare_wall = statistics.median(x[1] for x in bare)
    bare_rss = statistics.median(x[2] for x in bare)

    sync_ex = ToolExecutor([tool(add), tool(search)])
    async_ex = ToolExecutor([tool(name="add")(add_async), tool(sleepy)])
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    # Sanity: every path answers as expected before anything is timed.
    assert sync_ex.execute_sync("add", ADD_ARGS).output == 3
    assert sync_ex.execute_sync("search", SEARCH_ARGS).success
    assert sync_ex.execute_sync("add", BAD_ARGS).code == "invalid_arguments"
    assert loop.run_until_complete(async_ex.execute("add", ADD_ARGS)).output == 3
    assert loop.run_until_complete(sync_ex.execute("add", ADD_ARGS)).output == 3

    section("bare call")
    rows.append(
        Row(
            'bare call: add(a, b, note="")',
            per_call_sync(lambda: add(1, 2, note=""), repeats, target_s),
            "µs",
        )
    )

    section("pydantic floor")
    validate = TypeAdapter(AddArgs).validate_python
    rows.append(
        Row(
            "pydantic floor: TypeAdapter(TypedDict).validate_python(args) + call",
            per_call_sync(lambda: add(**validate(ADD_ARGS)), repeats, target_s),
            "µs",
        )
    )
    check_int = TypeAdapter(int).validate_python
    rows.append(
        Row(
            "pydantic floor + output check (same work as toolrig)",
            per_call_sync(lambda: check_int(add(**validate(ADD_ARGS))), repeats, target_s),
            "µs",
        )
    )

    section("toolrig sync add")
    rows.append(
        Row(
            "toolrig execute_sync('add', {...})",
            per_call_sync(lambda: sync_ex.execute_sync("add", ADD_ARGS), repeats, target_s),
            "µs",
            target=1.5,
        )
    )

    section("where a sync call's time goes")
    rows.extend(breakdown(sync_ex, repeats, target_s))

    section("toolrig async add")
    rows.append(
        Row(
            "toolrig await execute('add', {...}), async def add",
            per_call_async(loop, lambda: async_ex.execute("add", ADD_ARGS), repeats, target_s),
            "µs",
            target=1.5,
        )
    )

    section("toolrig sync search")
    rows.append(
        Row(
            "toolrig execute_sync('search', 5 params, constraints)",
            per_call_sync(lambda: sync_ex.execute_sync("search", SEARCH_ARGS), repeats, target_s),
            "µs",
        )
    )

    section("toolrig plain def via async")
    rows.append(
        Row(
            "toolrig await execute('add', {...}), plain def add (worker thread)",
            per_call_async(loop, lambda: sync_ex.execute("add", ADD_ARGS), repeats, target_s),
            "µs",
            target=80.0,
        )
    )
    rows.append(
        Row(
            "  reference: await asyncio.to_thread(add, 1, 2)",
            per_call_async(loop, lambda: asyncio.to_thread(add, 1, 2), repeats, target_s),
            "µs",
        )
    )

    section("toolrig invalid arguments")
    rows.append(
        Row(
            "toolrig execute_sync('add', {'a': 'not a number'}) -> error result",
            per_call_sync(lambda: sync_ex.execute_sync("add", BAD_ARGS), repeats, target_s),
            "µs",
        )
    )

    section(f"{n_concurrent:,} concurrent sleeps")
    calls = [("sleepy", {"a": 1, "b": 2})] * n_concurrent
    rows.append(
        Row(
            f"bare asyncio.gather of {n_concurrent:,} x sleepy() (sleep 10 ms)",
            burst(
                loop, lambda: asyncio.gather(*(sleepy(1, 2) for _ in range(n_concurrent))), repeats
            ),
            "ms",
        )
    )
    rows.append(
        Row(
            f"toolrig await execute_many({n_concurrent:,} x sleepy)",
            burst(loop, lambda: async_ex.execute_many(calls), repeats),
            "ms",
        )
    )
    bare_burst, rig_burst = rows[-2].samples, rows[-1].samples
    rows.append(
        Row(
            f"  ratio: toolrig / bare asyncio ({n_concurrent:,} sleeps, repeat by repeat)",
            [r / b for r, b in zip(rig_burst, bare_burst, strict=True)],
            "x",
            target=1.2,
        )
    )

    rows.append(
        Row("import toolrig: in-process import time", [x[0] for x in rig], "ms", target=100.0)
    )
    rows.append(
        Row(
            f"  reference: {pydantic_stmt}",
            [x[0] for x in costs[pydantic_stmt]],
            "ms",
            note="what every pydantic-based library pays first",
        )
    )
    rows.append(Row(f"{mcp_rig_stmt}", [x[0] for x in costs[mcp_rig_stmt]], "ms"))
    rows.append(Row(f"  reference: {mcp_sdk_stmt}", [x[0] for x in costs[mcp_sdk_stmt]], "ms"))
    rows.append(
        Row(
            "  ratio: toolrig MCP server import / the SDK's own",
            [r[0] / s[0] for r, s in zip(costs[mcp_rig_stmt], costs[mcp_sdk_stmt], strict=True)],
            "x",
            target=1.1,
        )
    )
    rows.append(
        Row(
            "import toolrig: process wall time above bare interpreter",
            [x[1] - bare_wall for x in rig],
            "ms",
            note=f"bare interpreter {bare_wall:.0f} ms",
        )
    )
    rows.append(
        Row(
            "import toolrig: peak RSS (VmHWM) above bare interpreter",
            [x[2] - bare_rss for x in rig],
            "MiB",
            target=25.0,
            note=f"bare interpreter {bare_rss:.1f} MiB",
        )
    )

    loop.close()
    sync_ex.close()
    async_ex.close()
    return rows


def report(rows: list[Row], repeats: int, import_repeats: int) -> str:
    head = ["measurement", "median", "±", "unit", "target", "status", "notes"]
    body = []
    for r in rows:
        digits = 2 if r.unit == "µs" else 1
        if r.target is None:
            target, status = "", ""
        else:
            target = f"≤ {r.target:g}"
            status = "ok" if r.median <= r.target else "OVER"
        body.append(
            [r.label, f"{r.median:.{digits}f}", f"{r.spread:.0f}%", r.unit, target, status, r.note]
        )
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    out = [
        "# toolrig per-call overhead",
        "",
        f"- toolrig {toolrig.__version__}, python {platform.python_version()} ({sys.executable})",
        f"- {platform.platform()}, {os.cpu_count()} cpus; {repeats} repeats per figure"
        f" ({import_repeats} fresh interpreters for imports); medians",
        "",
        line(head),
        "|" + "|".join("-" * (w + 2) for w in widths) + "|",
        *(line(b) for b in body),
    ]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=7, help="timed batches per figure")
    ap.add_argument("--target-s", type=float, default=0.2, help="seconds per timed batch")
    ap.add_argument("--concurrent", type=int, default=10_000, help="calls in the sleep burst")
    ap.add_argument("--import-repeats", type=int, default=9, help="fresh interpreters per side")
    ap.add_argument("--quick", action="store_true", help="short run: 3 repeats of 0.03 s")
    ns = ap.parse_args()
    if ns.quick:
        ns.repeats, ns.target_s, ns.import_repeats = 3, 0.03, 3
    rows = run(ns.repeats, ns.target_s, ns.concurrent, ns.import_repeats)
    print(report(rows, ns.repeats, ns.import_repeats))


if __name__ == "__main__":
    main()

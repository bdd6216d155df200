#!/usr/bin/env python3
"""Per-call CPU cost of guardrails: a call with none (the straight line), with one that allows
(the composed path with the guardrails step), with the secret scanner, and in an agent's
guardrail scope with none of its own.

Run from the checkout:  .venv/bin/python bench/guardrails.py [--quick] [--calls N] [--repeats R]

Each figure is the lowest of ``--repeats`` batches of ``--calls`` blocking calls, in
microseconds of process CPU time per call (``time.process_time``), so other load on a shared
machine counts less than with wall-clock time.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable

from toolrig import ToolExecutor, tool
from toolrig.runtime import Call, GuardrailScope, InputGuardrail, Verdict, secret_scanner
from toolrig.runtime._guardrails import GUARDING


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def allow(call: Call) -> Verdict:
    return Verdict.allow()


def per_call(run: Callable[[], object], calls: int, repeats: int) -> float:
    for _ in range(min(calls, 1000)):
        run()
    gc.collect()
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(calls):
            run()
        best = min(best, (time.process_time() - start) / calls * 1e6)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short run: 2,000 calls, 2 repeats")
    ap.add_argument("--calls", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=5)
    opts = ap.parse_args()
    calls, repeats = (2_000, 2) if opts.quick else (opts.calls, opts.repeats)
    args = {"a": 1, "b": 2}

    plain = ToolExecutor([add])
    allowing = ToolExecutor([add])
    allowing.add_guardrail(InputGuardrail(allow))
    scanning = ToolExecutor([add])
    scanning.add_guardrail(secret_scanner())
    rows = [
        ("no guardrail (straight line)", lambda: plain.execute_sync("add", args)),
        ("one input guardrail that allows", lambda: allowing.execute_sync("add", args)),
        ("the secret scanner", lambda: scanning.execute_sync("add", args)),
    ]
    for label, run in rows:
        print(f"{label:40} {per_call(run, calls, repeats):8.2f} us/call")
    token = GUARDING.set(GuardrailScope(inputs=(InputGuardrail(allow),)))
    try:
        scoped = per_call(lambda: plain.execute_sync("add", args), calls, repeats)
    finally:
        GUARDING.reset(token)
    print(f"{'an agent scope with one that allows':40} {scoped:8.2f} us/call")


if __name__ == "__main__":
    main()

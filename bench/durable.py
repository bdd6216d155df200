#!/usr/bin/env python3
"""What a durable agent run costs per step, against the same run in-process, on PostgreSQL.

Run from the checkout:  .venv/bin/python bench/durable.py [--quick] [--turns N] [--runs R]
(needs ``pip install -e '.[dbos]'`` and the PostgreSQL server on 127.0.0.1:5432; a scratch
database is created and dropped).

One agent, a scripted offline model (``toolrig.testing.FunctionModel``): each run is N turns
of one ``add`` call, then an answer, so a run has 2N + 1 steps (N + 1 model requests, N tool
calls). It runs R times in-process (``Agent.arun``) and R times as a durable workflow
(``DurableAgent``: DBOS keeps the workflow and each step's result in PostgreSQL; each tool
call is also claimed and finished in the ledger). The figure is ``(durable - in-process) /
steps``: what durability adds to each step. The engine's own cost is measured apart: a bare
DBOS workflow of the same number of empty steps, per step; the rest of the difference is
toolrig's (the ledger's two writes per call, the session read and write of each run).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from typing import Any

ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


async def _add(a: int, b: int) -> int:
    return a + b


def _model(turns: int) -> Any:
    from toolrig.testing import FunctionModel, ModelTurn

    def answer(messages: list[dict[str, Any]], tools: Any) -> ModelTurn:
        done = sum(1 for m in messages if m.get("role") == "tool")
        if done < turns:
            return ModelTurn(calls=[("add", {"a": done, "b": 1}, f"c{done}")])
        return ModelTurn(text="done")

    return FunctionModel(answer)


async def _measure(dsn: str, turns: int, runs: int) -> dict[str, float]:
    from dbos import DBOS

    from toolrig import tool
    from toolrig.agent import Agent
    from toolrig.durable import DBOSEngine, DurableAgent, StepLedger

    add = tool(_add)
    plain = Agent("bench", "Adds.", _model(turns), [add])
    durable_agent = Agent("bench", "Adds.", _model(turns), [add])
    engine = DBOSEngine(dsn)
    durable = DurableAgent(durable_agent, engine, StepLedger(dsn))

    async def empty() -> int:
        return 0

    async def bare(steps: int) -> int:
        for _ in range(steps):
            await DBOS.run_step_async({"name": "empty"}, empty)
        return steps

    engine.register("bench.bare", bare)
    engine.recover()
    steps = 2 * turns + 1
    await plain.arun("add")  # warm both paths once
    await durable.result(await durable.start("add"))
    timings: dict[str, list[float]] = {"plain": [], "durable": [], "bare": [], "empty": []}
    for _ in range(runs):
        t0 = time.perf_counter()
        await plain.arun("add")
        timings["plain"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        await durable.result(await durable.start("add"))
        timings["durable"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        run_id = f"bare-{uuid.uuid4().hex[:8]}"
        await engine.start("bench.bare", run_id, steps)
        await engine.result(run_id)
        timings["bare"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        run_id = f"bare-{uuid.uuid4().hex[:8]}"
        await engine.start("bench.bare", run_id, 0)
        await engine.result(run_id)
        timings["empty"].append(time.perf_counter() - t0)
    engine.close()
    return {name: statistics.median(values) for name, values in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few turns and runs (CI)")
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    turns, runs = (3, 3) if args.quick else (args.turns, args.runs)
    import psycopg

    name = f"bench_durable_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        dsn = ADMIN.rsplit("/", 1)[0] + "/" + name
        figures = asyncio.run(_measure(dsn, turns, runs))
    finally:
        with psycopg.connect(ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    steps = 2 * turns + 1
    plain, durable, bare = figures["plain"], figures["durable"], figures["bare"]
    empty = figures["empty"]
    print(
        f"durable agent run, {turns} turns of one call + an answer = {steps} steps, median of {runs}"
    )
    print(
        f"  in-process run           {plain * 1000:8.1f} ms  ({plain / steps * 1000:.2f} ms/step)"
    )
    print(
        f"  durable run (DBOS + PG)  {durable * 1000:8.1f} ms  ({durable / steps * 1000:.2f} ms/step)"
    )
    added = (durable - plain) / steps
    print(f"  added per step           {added * 1000:8.2f} ms")
    engine_step = (bare - empty) / steps
    print(f"  engine: one workflow     {empty * 1000:8.1f} ms  (started to result, no step)")
    print(f"  engine: one step         {engine_step * 1000:8.2f} ms  (a bare DBOS workflow's)")
    share = (durable - plain - empty) / steps - engine_step
    print(f"  toolrig's share          {share * 1000:8.2f} ms/step (the ledger, the session steps)")


if __name__ == "__main__":
    main()

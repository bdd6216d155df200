"""A worker process of the durable-run tests: starts or takes over run ``run1``.

``python worker.py DSN DIR start|recover|decide [held]`` (``held``: the call appending
``a`` waits for approval; ``decide`` approves it). The tools and the model pause where the
test asks: a file ``DIR/block_<point>`` makes the process write ``DIR/at_<point>`` and wait
until it is killed (a worker started once ``DIR/release`` exists never waits). ``append`` is
not idempotent and appends to ``DIR/effects.txt``; ``peek`` is read-only. The run's result
goes to ``DIR/result.json``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from toolrig import ToolAnnotations, tool
from toolrig.agent import Agent, ApprovalPolicy
from toolrig.durable import DBOSEngine, DurableAgent, StepLedger
from toolrig.storage import open_log
from toolrig.testing import FunctionModel, ModelTurn

DSN, DIR, MODE = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
HELD = sys.argv[4:] == ["held"]


async def pause(point: str) -> None:
    """Stop here when the test asked for it: tell it, then wait to be killed."""
    if (DIR / f"block_{point}").exists() and not (DIR / "release").exists():
        (DIR / f"at_{point}").write_text("1")
        await asyncio.Event().wait()  # until the test kills this process


@tool
async def append(text: str) -> str:
    """Append ``text`` to the effects file."""
    with (DIR / "effects.txt").open("a") as out:
        out.write(text + "\n")
    await pause(f"append_{text}")
    return f"appended {text}"


@tool(annotations=ToolAnnotations(read_only=True))
async def peek() -> int:
    """How many lines the effects file has."""
    await pause("peek")
    path = DIR / "effects.txt"
    return len(path.read_text().splitlines()) if path.exists() else 0


async def model(messages: list[dict[str, Any]], tools: Any) -> ModelTurn:
    answered = sum(1 for m in messages if m.get("role") == "tool")
    turn = {0: 1, 1: 2, 3: 3}[answered]
    await pause(f"model_{turn}")
    if turn == 1:
        return ModelTurn(calls=[("append", {"text": "a"}, "c1")])
    if turn == 2:  # two calls at once: a side effect and a read
        return ModelTurn(calls=[("append", {"text": "b"}, "c2"), ("peek", {}, "c3")])
    return ModelTurn(text="done")


async def main() -> None:
    log = open_log(str(DIR / "log.sqlite3"))
    agent = Agent(
        "writer",
        "Writes lines.",
        FunctionModel(model),
        [append, peek],
        log=log,
        approval=ApprovalPolicy(when=lambda call: call.arguments.get("text") == "a")
        if HELD
        else None,
    )
    engine = DBOSEngine(DSN)
    durable = DurableAgent(agent, engine, StepLedger(DSN))
    if MODE == "decide":  # no worker takes the run over here: the decision is only sent
        await durable.decide("run1", {"c1": True})
        engine.close()
        return
    durable.recover()
    if MODE == "start":
        await durable.start("write a, then b", run_id="run1")
    result = await durable.result("run1")
    (DIR / "result.json").write_text(
        json.dumps(
            {"output": result.output, "stop_reason": result.stop_reason, "error": result.error}
        )
    )
    engine.close()


if __name__ == "__main__":
    asyncio.run(main())

"""A worker process of the durable-plan tests: starts or takes over plan ``plan1``.

``python plan_worker.py DSN DIR start|recover``. Steps ``a`` and ``b`` append to
``DIR/effects.txt`` at once (``append`` is not idempotent); ``p`` reads it after both
(``peek`` is read-only). A file ``DIR/block_<point>`` pauses the process there until the test
kills it (``DIR/at_<point>`` tells the test it got there); a worker started once
``DIR/release`` exists never pauses. The result goes to ``DIR/result.json``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from toolrig import Plan, PlanRunner, ToolAnnotations, ToolExecutor, open_log, tool
from toolrig.durable import DBOSEngine, DurablePlan, StepLedger

DSN, DIR, MODE = sys.argv[1], Path(sys.argv[2]), sys.argv[3]


async def pause(point: str) -> None:
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
    return len((DIR / "effects.txt").read_text().splitlines())


PLAN = Plan.from_data(
    {
        "id": "plan1",
        "steps": [
            {"id": "a", "tool": "append", "params": {"text": "a"}},
            {"id": "b", "tool": "append", "params": {"text": "b"}},
            {"id": "p", "tool": "peek", "params": {}, "depends_on": ["a", "b"]},
        ],
    }
)


async def main() -> None:
    log = open_log(str(DIR / "log.sqlite3"))
    runner = PlanRunner(ToolExecutor([append, peek]), store=log)
    engine = DBOSEngine(DSN)
    durable = DurablePlan(runner, engine, StepLedger(DSN))
    durable.recover()
    if MODE == "start":
        await durable.start(PLAN)
    result = await durable.result("plan1")
    outcome = {
        step: {"success": r.success, "output": r.output, "error": r.error and r.error.message}
        for step, r in result.results.items()
    }
    (DIR / "result.json").write_text(json.dumps(outcome))
    engine.close()


if __name__ == "__main__":
    asyncio.run(main())

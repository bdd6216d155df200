"""Runs one plan whose steps run on workers, recording them in a PostgreSQL log; the test
kills this process mid-plan and runs it again to resume the plan.

Usage: python plan_runner.py BROKER BACKEND LOG_URL PLAN_ID
"""

from __future__ import annotations

import json
import sys

import remote_tools

from toolrig import ToolExecutor
from toolrig.distributed import CeleryEngine, RemoteDispatch
from toolrig.runtime import Plan, PlanRunner
from toolrig.storage import open_log


def plan(plan_id: str) -> Plan:
    return Plan.from_data(
        {
            "id": plan_id,
            "steps": [
                {"id": "a", "tool": "work", "params": {"tag": f"{plan_id}-a", "seconds": 1.0}},
                {"id": "b", "tool": "work", "params": {"tag": f"{plan_id}-b", "seconds": 1.0}},
                {
                    "id": "c",
                    "tool": "work",
                    "params": {
                        "tag": f"{plan_id}-c",
                        "seconds": 2.0,
                        "after": ["${a.output.pid}", "${b.output.pid}"],
                    },
                },
            ],
        }
    )


def main(broker: str, backend: str, log_url: str, plan_id: str) -> None:
    engine = CeleryEngine(broker, backend)
    executor = ToolExecutor([remote_tools.work])
    executor.dispatch_with(RemoteDispatch(engine, run_id=plan_id))
    with open_log(log_url) as log:
        result = PlanRunner(executor, store=log).run_sync(plan(plan_id))
    print(json.dumps({"success": result.success, "reused": list(result.reused),
                      "outputs": result.outputs}))  # fmt: skip


if __name__ == "__main__":
    main(*sys.argv[1:5])

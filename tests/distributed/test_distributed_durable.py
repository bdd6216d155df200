"""A durable agent run whose calls run on real Celery workers: the call is a step of the
workflow, dispatched by the pipeline inside it, and recorded once by the caller."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest
import remote_tools
from dist_support import BACKEND, BROKER, Worker

from postgres_db import scratch_database
from toolrig import ToolExecutor
from toolrig.agent import Agent
from toolrig.distributed import CeleryEngine, RemoteDispatch
from toolrig.storage import open_log
from toolrig.testing import ModelTurn, ScriptedModel

pytest.importorskip("dbos", reason="durable runs need the dbos extra")


@pytest.fixture
def system_db() -> Iterator[str]:
    with scratch_database("toolrig_durable_dist") as url:
        yield url


def test_a_remote_call_inside_a_durable_run(
    workers: list[Worker], system_db: str, postgres_url: str
) -> None:
    from toolrig.durable import DBOSEngine, DurableAgent, StepLedger

    run_id = f"durable-{uuid.uuid4().hex[:8]}"
    celery = CeleryEngine(BROKER, BACKEND)
    executor = ToolExecutor([remote_tools.add])
    executor.dispatch_with(RemoteDispatch(celery, run_id=run_id))
    log = open_log(postgres_url)
    model = ScriptedModel([ModelTurn(calls=[("add", {"a": 2, "b": 3}, "c1")]), "5"])
    agent = Agent("adder", "Adds.", model, executor, log=log)
    engine = DBOSEngine(system_db)
    durable = DurableAgent(agent, engine, StepLedger(system_db))

    async def run() -> object:
        durable.recover()
        return await durable.result(await durable.start("2 + 3?", run_id=run_id))

    try:
        result = asyncio.run(run())
    finally:
        engine.close()
        celery.close()
    assert getattr(result, "output", None) == "5"
    step = result.steps[0]
    (answer,) = step.results
    assert answer.output == 5
    assert answer.metadata.extra["remote"]["worker"]  # run on a worker, not here
    calls = [r for r in log.get_run(run_id) if r.tool_call_id == "c1"]
    log.close()
    assert len(calls) == 1

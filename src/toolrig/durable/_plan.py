"""`DurablePlan`: plan runs as workflows of a durable engine.

A plan run already resumes from the execution log: a step recorded as succeeded with the same
tool, version and arguments is reused, not run (``PlanRunner``). So the workflow of a durable
plan is the plan run itself, driven again from its start by the worker that takes it over;
what the log cannot tell — whether a step in flight at the crash ran — the `StepLedger` tells,
keyed by the step's call id (the same call id in every life of the run). Parallel steps finish
in any order, which an engine's step order could not replay; the log and the ledger are keyed
by step, so they can.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from toolrig.core.model._options import ToolAnnotations
from toolrig.core.result._result import ToolResult
from toolrig.durable._engine import DurableEngine
from toolrig.durable._ledger import StepLedger
from toolrig.durable._steps import claimed_call
from toolrig.runtime._plan import Plan
from toolrig.runtime._plan_run import PlanResult, PlanRunner

__all__ = ["DurablePlan"]


class DurablePlan:
    """Runs plans on ``runner`` (which must have a store: the log the plan resumes from) as
    workflows of ``engine``; each step's call is claimed in ``ledger``."""

    def __init__(
        self, runner: PlanRunner, engine: DurableEngine, ledger: StepLedger, *, name: str = "plan"
    ) -> None:
        if runner.store is None:
            raise ValueError("a durable plan resumes from its log: give the PlanRunner a store")
        self.runner = runner
        self.engine = engine
        self.ledger = ledger
        runner.call_hooks = self
        self.workflow = f"toolrig.plan.{name}"
        engine.register(self.workflow, self._body)

    async def start(self, plan: Plan) -> str:
        """Start running ``plan``; the run's id (the plan's id: one run per plan id at once)."""
        await self.engine.start(self.workflow, plan.id, plan)
        return plan.id

    async def result(self, run_id: str) -> PlanResult:
        """Wait for the plan run ``run_id`` to end; its result."""
        result: PlanResult = await self.engine.result(run_id)
        return result

    def recover(self) -> None:
        """Start this worker: take over the plan runs whose process died."""
        self.engine.recover()

    async def _body(self, plan: Plan) -> PlanResult:
        return await self.runner.run(plan)

    async def call_step(
        self,
        name: str,
        call_id: str,
        annotations: ToolAnnotations | None,
        run: Callable[[], Awaitable[ToolResult]],
    ) -> ToolResult:
        return await claimed_call(self.ledger, f"plan:{call_id}", name, call_id, annotations, run)

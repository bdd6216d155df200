"""Run a plan: independent steps concurrently, each validated, executed and recorded.

A failing step fails its dependants with ``dependency_failed`` (policy ``skip_dependants``) or
stops the plan (policy ``stop``: running steps finish, nothing new starts). With a store (an
execution log), a re-run of the same plan id re-uses the output of a step that succeeded when it
would run the same tool, at the same version, with the same resolved arguments (see
`._plan_reuse`); each step is recorded with the arguments it actually ran with.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol

from toolrig.core.context._background import run_sync
from toolrig.core.context._events import Listeners
from toolrig.core.context._recording import Recording, recording
from toolrig.core.model._errors import ErrorCode
from toolrig.core.result._result import ToolResult, error_result, success_result
from toolrig.core.schema._validation import ArgumentsInvalid
from toolrig.runtime._call_hooks import CallHooks
from toolrig.runtime._executor import ToolExecutor
from toolrig.runtime._plan import Plan, PlanError, PlanStep, resolve_references
from toolrig.runtime._plan_check import CostFunction, PlanCheck, check_plan
from toolrig.runtime._plan_reuse import RecordedSteps
from toolrig.runtime._tracing import plan_step, workflow_span

__all__ = ["PlanResult", "PlanRunner", "RunStore", "StepEvent", "StepStatus"]

logger = logging.getLogger("toolrig.plans")

FailurePolicy = Literal["skip_dependants", "stop"]

_NOT_RUN = (ErrorCode.DEPENDENCY_FAILED, ErrorCode.CANCELLED)
"""The codes of steps that never ran (skipped, not failed)."""


class RunStore(Protocol):
    """Where a plan's run is recorded and its steps found again (an execution log fits):
    the run is opened, its calls are recorded by the pipeline in the scope it gives, and a
    re-run reads the records back."""

    def start_run(
        self, run_id: str, kind: str, *, name: str | None = None, session_id: str | None = None
    ) -> Recording: ...

    def finish_run(
        self,
        run_id: str,
        status: Any,
        *,
        stop_reason: str | None = None,
        error: str | None = None,
    ) -> None: ...

    def query(self, *, run_id: str | None = None, status: str | None = None) -> list[Any]: ...


class StepStatus(StrEnum):
    """What happened to a step."""

    STARTED = "started"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"
    REUSED = "reused"


@dataclass(frozen=True, slots=True, kw_only=True)
class StepEvent:
    """Progress of a plan: one step changed state; ``done`` of ``total`` steps are finished."""

    plan_id: str
    step_id: str
    status: StepStatus
    done: int
    total: int
    result: ToolResult | None = None


@dataclass(slots=True, kw_only=True)
class PlanResult:
    """The outcome of a plan run."""

    plan_id: str
    results: dict[str, ToolResult]
    """Each step's result, in plan order."""
    reused: tuple[str, ...] = ()
    """Steps whose recorded output was re-used instead of running again."""
    estimated_cost: float = 0.0
    duration_ms: float = 0.0
    timings: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Per step run here: (start, end) in ``time.perf_counter()`` seconds."""

    @property
    def success(self) -> bool:
        """True when every step succeeded."""
        return all(r.success for r in self.results.values())

    @property
    def outputs(self) -> dict[str, Any]:
        """Outputs of the successful steps."""
        return {k: r.output for k, r in self.results.items() if r.success}

    @property
    def failed(self) -> list[str]:
        """Ids of the steps that did not succeed."""
        return [k for k, r in self.results.items() if not r.success]


class PlanRunner:
    """Runs plans through an executor, recording each step in ``store`` when given."""

    def __init__(
        self,
        executor: ToolExecutor,
        *,
        store: RunStore | None = None,
        on_failure: FailurePolicy = "skip_dependants",
        on_step: Callable[[StepEvent], None] | None = None,
        cost_of: CostFunction | None = None,
        call_hooks: CallHooks | None = None,
    ) -> None:
        if on_failure not in ("skip_dependants", "stop"):
            raise ValueError("on_failure must be 'skip_dependants' or 'stop'")
        self.executor = executor
        self.store = store
        self.on_failure = on_failure
        self.cost_of = cost_of
        self.call_hooks = call_hooks
        """Where each step's call runs when a durable engine keeps the plan's runs."""
        self._listeners: Listeners[StepEvent] = Listeners()
        if on_step is not None:
            self._listeners.add(on_step)

    def add_listener(self, listener: Callable[[StepEvent], None]) -> None:
        """``listener(event)`` is told when steps start, succeed, fail, are skipped or reused."""
        self._listeners.add(listener)

    def remove_listener(self, listener: Callable[[StepEvent], None]) -> None:
        """Stop telling ``listener``."""
        self._listeners.remove(listener)

    def check(self, plan: Plan) -> PlanCheck:
        """Every problem of ``plan`` and its estimated cost, without running anything."""
        return check_plan(plan, self.executor, cost_of=self.cost_of)

    def run_sync(self, plan: Plan) -> PlanResult:
        """Blocking `run`."""
        return run_sync(self.run(plan))

    async def run(self, plan: Plan) -> PlanResult:
        """Check then run ``plan``; raises `PlanError` listing every problem."""
        report = self.check(plan)
        if not report.ok:
            raise PlanError(report.problems)
        with workflow_span(plan.id, steps=len(plan.steps)) as span:
            result = await self._run(plan, report)
            if result.failed:
                span.record_error("step_failed", f"failed steps: {', '.join(result.failed)}")
            span.set("toolrig.plan.reused", len(result.reused) or None)
            return result

    async def _run(self, plan: Plan, report: PlanCheck) -> PlanResult:
        store = self.store
        scope = None if store is None else store.start_run(plan.id, "plan", name=plan.id)
        try:
            result = await self._steps(plan, report, scope)
        except BaseException:
            if store is not None:
                store.finish_run(plan.id, "failed", error="the plan run was interrupted")
            raise
        if store is not None:
            failed = [s for s in result.failed if result.results[s].code not in _NOT_RUN]
            store.finish_run(plan.id, "failed" if failed else "succeeded")
        return result

    async def _steps(self, plan: Plan, report: PlanCheck, scope: Recording | None) -> PlanResult:
        t0 = time.perf_counter()
        state = _RunState(plan, report, self._recorded(plan), scope)
        running: dict[asyncio.Task[ToolResult], PlanStep] = {}
        while True:
            ready = state.ready()
            while ready:  # skipping or re-using a step can make others ready at once
                for step in ready:
                    blocked = state.blocked_by(step)
                    if blocked is not None:  # never a call: recorded as skipped
                        step_scope = state.scope_of(step)
                        if step_scope is not None:
                            step_scope.skipped(blocked, dict(step.params))
                        self._finish(state, step, blocked)
                        continue
                    state.pending.pop(step.id)
                    params = _resolved(step, state.outputs)
                    if isinstance(params, ToolResult):  # a reference that does not resolve
                        with recording(state.scope_of(step)):
                            self.executor.pipeline.refuse(params, dict(step.params))
                        self._finish(state, step, params)
                        continue
                    state.params[step.id] = params
                    if self._reuse(state, step, params):
                        continue
                    self._emit(state, step.id, StepStatus.STARTED, None)
                    state.timings[step.id] = (time.perf_counter(), 0.0)
                    call_id = self._call_id(state, step, params)
                    # the step's span is told its step id; its call is recorded as the step
                    with plan_step(step.id), recording(state.scope_of(step)):
                        task = asyncio.ensure_future(self._call(step, params, call_id))
                    running[task] = step
                ready = state.ready()
            if not running:
                break
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                step = running.pop(task)
                state.timings[step.id] = (state.timings[step.id][0], time.perf_counter())
                self._finish(state, step, task.result())
        ordered = {s.id: state.results[s.id] for s in plan.steps}
        return PlanResult(
            plan_id=plan.id,
            results=ordered,
            reused=tuple(state.reused),
            estimated_cost=report.estimated_cost,
            duration_ms=(time.perf_counter() - t0) * 1000,
            timings=dict(state.timings),
        )

    def _reuse(self, state: _RunState, step: PlanStep, params: Mapping[str, Any]) -> bool:
        """Re-use the recorded result of ``step`` if it ran exactly this way; whether it did."""
        action = self.executor.catalog.resolve(step.call_name)
        if action is None or state.recorded is None:
            return False
        try:  # a call is recorded with its validated arguments: compare those
            values = action.validator.validate(
                dict(params), strict=self.executor.pipeline.policy.strict
            )
        except ArgumentsInvalid:  # it would not run as recorded: run it (and fail) again
            return False
        record = state.recorded.reusable(
            step.id,
            tool=action.tool,
            action=action.name,
            version=self._version(action.tool) or "",
            arguments=values,
        )
        if record is None:
            return False
        result = success_result(
            record.output,
            tool=step.tool,
            action=step.action,
            tool_call_id=getattr(record, "tool_call_id", None),
        )
        state.results[step.id] = result
        state.outputs[step.id] = record.output
        state.reused.append(step.id)
        self._emit(state, step.id, StepStatus.REUSED, result)
        return True

    async def _call(
        self, step: PlanStep, params: Mapping[str, Any], call_id: str | None
    ) -> ToolResult:
        """The step's call, through the call hooks when there are any."""
        execute = self.executor.execute
        hooks = self.call_hooks
        if hooks is None or call_id is None:
            return await execute(step.call_name, params, tool_call_id=call_id)
        action = self.executor.catalog.resolve(step.call_name)
        found = None if action is None else self.executor.catalog.find(action.tool)
        annotations = None
        if action is not None and found is not None:
            annotations = found.spec.action_annotations(action.name)
        return await hooks.call_step(
            step.call_name,
            call_id,
            annotations,
            lambda: execute(step.call_name, params, tool_call_id=call_id),
        )

    def _call_id(self, state: _RunState, step: PlanStep, params: Mapping[str, Any]) -> str | None:
        """A call id that a resumed run gives the same call again (with a store), else none."""
        action = self.executor.catalog.resolve(step.call_name)
        if action is None or state.recorded is None:
            return None
        version = self._version(action.tool) or ""
        return state.recorded.call_id(state.plan.id, step.id, version=version, arguments=params)

    def _version(self, tool: str) -> str | None:
        """The version of ``tool`` in the executor's catalogue now (``None``: not there)."""
        found = self.executor.catalog.find(tool)
        return None if found is None else found.spec.version

    def _finish(self, state: _RunState, step: PlanStep, result: ToolResult) -> None:
        state.pending.pop(step.id, None)
        state.results[step.id] = result
        if result.success:
            state.outputs[step.id] = result.output
        elif self.on_failure == "stop" and result.code != ErrorCode.DEPENDENCY_FAILED:
            state.stopped_by = state.stopped_by or step.id
        status = (
            StepStatus.SUCCEEDED
            if result.success
            else (StepStatus.SKIPPED if result.code in _NOT_RUN else StepStatus.FAILED)
        )
        self._emit(state, step.id, status, result)

    def _emit(
        self, state: _RunState, step_id: str, status: StepStatus, result: ToolResult | None
    ) -> None:
        if self._listeners:
            self._listeners.emit(
                StepEvent(
                    plan_id=state.plan.id,
                    step_id=step_id,
                    status=status,
                    done=len(state.results),
                    total=len(state.plan.steps),
                    result=result,
                )
            )

    def _recorded(self, plan: Plan) -> RecordedSteps | None:
        if self.store is None:
            return None
        records = self.store.query(run_id=plan.id)  # every status: their count names calls
        return RecordedSteps(records, (s.id for s in plan.steps))


def _resolved(step: PlanStep, outputs: Mapping[str, Any]) -> dict[str, Any] | ToolResult:
    """The step's arguments with their references resolved, or the result of a step whose
    reference finds nothing."""
    try:
        return dict(resolve_references(step.params, outputs))
    except LookupError as exc:
        return error_result(
            ErrorCode.INVALID_ARGUMENTS,
            str(exc),
            tool=step.tool,
            action=step.action,
            hint="The referenced output does not have that shape.",
        )


class _RunState:
    def __init__(
        self,
        plan: Plan,
        report: PlanCheck,
        recorded: RecordedSteps | None,
        scope: Recording | None,
    ) -> None:
        self.scope = scope
        self.plan = plan
        self.report = report
        self.recorded = recorded
        self.pending = {s.id: s for s in plan.steps}
        self.results: dict[str, ToolResult] = {}
        self.outputs: dict[str, Any] = {}
        self.params: dict[str, dict[str, Any]] = {}
        """Each started step's arguments, references resolved (what it ran with)."""
        self.reused: list[str] = []
        self.timings: dict[str, tuple[float, float]] = {}
        self.stopped_by: str | None = None

    def scope_of(self, step: PlanStep) -> Recording | None:
        """Where the step's call is recorded: the plan's run, as this step, with its
        estimated cost when the call reports none."""
        if self.scope is None:
            return None
        return self.scope.narrowed(step_id=step.id, cost=self.report.step_costs.get(step.id))

    def ready(self) -> list[PlanStep]:
        """Pending steps whose dependencies have all finished (in plan order)."""
        return [
            s for s in list(self.pending.values()) if all(d in self.results for d in s.dependencies)
        ]

    def blocked_by(self, step: PlanStep) -> ToolResult | None:
        """The result to give ``step`` without running it, if it must not run."""
        failed = [d for d in step.dependencies if not self.results[d].success]
        if failed:
            first = failed[0]
            return error_result(
                ErrorCode.DEPENDENCY_FAILED,
                f"Step {step.id!r} was not run: step {first!r} it depends on failed "
                f"({self.results[first].code}).",
                tool=step.tool,
                action=step.action,
            )
        if self.stopped_by is not None:
            return error_result(
                ErrorCode.CANCELLED,
                f"Step {step.id!r} was not run: the plan stopped after step "
                f"{self.stopped_by!r} failed.",
                tool=step.tool,
                action=step.action,
            )
        return None

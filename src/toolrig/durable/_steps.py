"""A durable run's model requests and tool calls as the engine's steps (`StepHooks`).

A model request is a plain step: asked again when the process died inside it. A tool call is
a step that claims its key in the `StepLedger` first, so a call that was in flight when its
process died runs again only when its tool says it may (read-only or idempotent); otherwise
the model is told the call was lost and its effects are unknown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from toolrig.agent._client import LLMTurn
from toolrig.core.context._recording import current_recording
from toolrig.core.model._errors import ErrorCode
from toolrig.core.model._options import ToolAnnotations
from toolrig.core.result._result import ToolResult, error_result
from toolrig.durable._engine import DurableEngine
from toolrig.durable._ledger import StepLedger

__all__ = ["DurableSteps", "claimed_call", "may_repeat"]


def may_repeat(annotations: ToolAnnotations | None) -> bool:
    """Whether a call lost mid-way may run again: its tool is read-only or idempotent (or
    there is no such tool, so nothing would run)."""
    if annotations is None:
        return True
    return bool(annotations.read_only or annotations.idempotent)


class DurableSteps:
    """`StepHooks` on ``engine``, tool calls claimed in ``ledger``."""

    def __init__(self, engine: DurableEngine, ledger: StepLedger) -> None:
        self.engine = engine
        self.ledger = ledger

    async def model_step(self, ask: Callable[[], Awaitable[LLMTurn]]) -> tuple[LLMTurn, bool]:
        return await self.engine.step("toolrig.model", ask)

    async def call_step(
        self,
        name: str,
        call_id: str,
        annotations: ToolAnnotations | None,
        run: Callable[[], Awaitable[ToolResult]],
    ) -> ToolResult:
        async def claimed() -> ToolResult:
            key = self.engine.step_key()
            return await claimed_call(self.ledger, key, name, call_id, annotations, run)

        result, _ = await self.engine.step("toolrig.call", claimed)
        return result


async def claimed_call(
    ledger: StepLedger,
    key: str,
    name: str,
    call_id: str,
    annotations: ToolAnnotations | None,
    run: Callable[[], Awaitable[ToolResult]],
) -> ToolResult:
    """Run call ``name`` claimed as ``key`` in ``ledger``: the stored result when it finished
    before, a "lost" error (recorded as the call's one record) when it was in flight at a
    crash and may not repeat, else ``run()``."""
    claim = ledger.claim(key)
    if isinstance(claim, ToolResult):  # finished before the crash, not yet recorded
        return claim
    if claim == "lost":
        if not may_repeat(annotations):
            result = _lost(name, call_id)
            scope = current_recording()
            if scope is not None:  # the call's one record: it never reached its own
                scope.record(result, None)
            ledger.finish(key, result)
            return result
        ledger.restart(key)
    result = await run()
    ledger.finish(key, result)
    return result


def _lost(name: str, call_id: str) -> ToolResult:
    return error_result(
        ErrorCode.EXECUTION_ERROR,
        f"The process running `{name}` died mid-call; it was not run again because the tool "
        "is not marked idempotent or read-only, so its effects may or may not have happened.",
        hint="Check whether the call took effect before making it again.",
        tool=name,
        tool_call_id=call_id,
    )

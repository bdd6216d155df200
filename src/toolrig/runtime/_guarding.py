"""``Guarding``: the step of the composed path that runs the guardrails of a call.

It sits after validation and the pre-hooks (a guardrail sees the arguments the tool would
get) and before the call is announced: a call its input guardrails reject never starts, and
its output guardrails read the result before the post-hooks, the record and the model do.
A call whose scope has tripped does not run at all. Every verdict other than allow is kept
in the result's ``metadata.extra["guardrail"]``, told to listeners (a ``guarded`` event),
kept in the scope and logged; the result's error code is ``guardrail``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from toolrig.core.context._events import Listeners
from toolrig.core.model._errors import ErrorCode
from toolrig.core.model._on_first_use import asyncio
from toolrig.core.result._result import ErrorInfo, ToolResult
from toolrig.runtime._call import Call, CallNext
from toolrig.runtime._events import EventKind, ToolEvent
from toolrig.runtime._guardrails import (
    GUARDING,
    GuardrailOutcome,
    GuardrailScope,
    InputGuardrail,
    OutputGuardrail,
    Verdict,
    verdict_of,
)
from toolrig.runtime._outcome import make_result
from toolrig.runtime._steps import logger

__all__ = ["Guarding"]

_HINTS = {
    "reject": "A guardrail refused this; do not retry it unchanged.",
    "tripwire": "A guardrail stopped the run.",
    "error": "A guardrail could not check this call, so it was withheld.",
}


class Guarding:
    """Runs the pipeline's guardrails and those of the call's scope around the rest."""

    def __init__(
        self,
        inputs: Sequence[InputGuardrail],
        outputs: Sequence[OutputGuardrail],
        listeners: Listeners[ToolEvent],
    ) -> None:
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.listeners = listeners

    async def __call__(self, call: Call, call_next: CallNext) -> ToolResult:
        scope = GUARDING.get()
        if scope is None:
            refused = await self._inputs(call, None, self.inputs)
            outputs = self.outputs
        else:
            more = scope.by_action.get((call.tool, call.action))
            inputs = (*self.inputs, *scope.inputs, *(more[0] if more else ()))
            outputs = (*self.outputs, *scope.outputs, *(more[1] if more else ()))
            async with scope.checking:  # in the calls' order: none passes a tripwire before it
                if scope.tripped is not None:
                    return self._stopped(call, scope, scope.tripped)
                refused = await self._inputs(call, scope, inputs)
        if refused is not None:
            return refused
        result = await call_next(call)
        for guardrail in outputs:
            if guardrail.applies_to(call):
                verdict = await _checked(guardrail, call, result)
                if verdict.kind != "allow":
                    return self._answer(call, scope, guardrail, "output", verdict, result)
        return result

    async def _inputs(
        self, call: Call, scope: GuardrailScope | None, inputs: Sequence[InputGuardrail]
    ) -> ToolResult | None:
        """The answer of the first input guardrail that does not allow the call, if any."""
        for guardrail in inputs:
            if guardrail.applies_to(call):
                verdict = await _checked(guardrail, call, None)
                if verdict.kind != "allow":
                    return self._answer(call, scope, guardrail, "input", verdict)
        return None

    def _answer(
        self,
        call: Call,
        scope: GuardrailScope | None,
        guardrail: InputGuardrail | OutputGuardrail,
        stage: Literal["input", "output"],
        verdict: Verdict,
        ran: ToolResult | None = None,
    ) -> ToolResult:
        """The result the model reads instead, with the outcome kept and told."""
        outcome = GuardrailOutcome(
            guardrail=guardrail.name,
            stage=stage,
            kind=verdict.kind,
            message=verdict.message,
            tool=call.tool,
            action=call.action,
            tool_call_id=call.tool_call_id,
        )
        if scope is not None:
            scope.outcomes.append(outcome)
            if verdict.kind == "tripwire" and scope.tripped is None:
                scope.tripped = outcome
        logger.warning(
            "guardrail %s: %s on %s (%s): %s",
            guardrail.name,
            verdict.kind,
            call.action,
            stage,
            verdict.message,
        )
        if self.listeners.items:
            self.listeners.emit(
                ToolEvent(
                    kind=EventKind.GUARDED,
                    tool=call.tool,
                    action=call.action,
                    tool_call_id=call.tool_call_id,
                    attempt=call.attempt,
                    arguments=call.arguments,
                    call=call,
                    guardrail=outcome,
                )
            )
        return _result(call, outcome, ran)

    def _stopped(self, call: Call, scope: GuardrailScope, tripped: GuardrailOutcome) -> ToolResult:
        """The answer to a call made after its scope tripped: it does not run."""
        outcome = GuardrailOutcome(
            guardrail=tripped.guardrail,
            stage="input",
            kind="tripwire",
            message=f"not run: the run was stopped by guardrail `{tripped.guardrail}`",
            tool=call.tool,
            action=call.action,
            tool_call_id=call.tool_call_id,
        )
        scope.outcomes.append(outcome)
        return _result(call, outcome, None)


async def _checked(
    guardrail: InputGuardrail | OutputGuardrail, call: Call, result: ToolResult | None
) -> Verdict:
    """The guardrail's verdict; one that raises (or answers something else) is ``error``."""
    try:
        if isinstance(guardrail, InputGuardrail):
            return await verdict_of(guardrail.check(call.snapshot()))
        assert result is not None
        return await verdict_of(guardrail.check(call.snapshot(), result))
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        logger.exception("guardrail %s failed on %s", guardrail.name, call.action)
        return Verdict("error", f"guardrail `{guardrail.name}` failed ({type(exc).__name__})")


def _result(call: Call, outcome: GuardrailOutcome, ran: ToolResult | None) -> ToolResult:
    """An error result carrying ``outcome``; the tool's output (when it ran) is dropped."""
    verb = {"reject": "rejected", "tripwire": "stopped", "error": "withheld"}[outcome.kind]
    what = "the call" if outcome.stage == "input" else "the result"
    error = ErrorInfo(
        code=ErrorCode.GUARDRAIL,
        message=f"Guardrail `{outcome.guardrail}` {verb} {what}: {outcome.message}",
        hint=_HINTS[outcome.kind],
    )
    attempts = 1 if ran is None or ran.metadata is None else ran.metadata.attempts
    result = make_result(
        call.target, None, error, call.tool_call_id, call.started_at, call.t0, attempts
    )
    meta = result.metadata
    assert meta is not None
    meta.extra = {**(meta.extra or {}), "guardrail": outcome.to_dict()}
    return result

"""The pipeline's own middleware: the composed path of a call, one small object per step.

Outermost first::

    Reporting → PostHooks → Validating → PreHooks → [Guarding] → Announcing
      → Guarded(your middleware) → Retrying → attempt (on the call's runner, under its time limit)

``Guarding`` (`._guarding`, the guardrails) is there only on a path composed with it.

Each is a middleware like yours (``await step(call, call_next)``) and sees the one
`Call`. Hooks are adapters over it; retries are one step inside your
middleware, so a call sent to a queue is retried, with its events, like a local one.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, cast

from toolrig.core.context._events import Listeners
from toolrig.core.context._runner import ToolRunner
from toolrig.core.model._on_first_use import asyncio
from toolrig.core.result._result import ToolResult, error_from_exception
from toolrig.core.schema._validation import ArgumentsInvalid
from toolrig.runtime._call import Call, CallNext, Middleware, PostHook, PreHook
from toolrig.runtime._events import EventKind, ToolEvent
from toolrig.runtime._guarding import Guarding
from toolrig.runtime._guardrails import InputGuardrail, OutputGuardrail
from toolrig.runtime._outcome import hook_error, link, make_result, values_or
from toolrig.runtime._policy import CallPolicy
from toolrig.runtime._runners import Placement, pause_inline
from toolrig.runtime._steps import announce, attempt, logger, report, result_of

__all__ = ["Chain", "compose"]

Chain = Callable[[Call], Coroutine[Any, Any, ToolResult]]
"""The composed path: a call in, the coroutine of its result out."""


class Reporting:
    """Outermost: the outcome event and log line of every call, valid or not."""

    def __init__(self, listeners: Listeners[ToolEvent]) -> None:
        self.listeners = listeners

    async def __call__(self, call: Call, call_next: CallNext) -> ToolResult:
        result = await call_next(call)
        return report(
            self.listeners,
            call.target,
            values_or(call.raw),
            result,
            call,
            call.owner,
        )


class PostHooks:
    """Adapter: each ``hook(call, result)`` may replace the result; a failing one answers."""

    def __init__(self, hooks: Sequence[PostHook]) -> None:
        self.hooks = tuple(hooks)

    async def __call__(self, call: Call, call_next: CallNext) -> ToolResult:
        result = await call_next(call)
        for hook in self.hooks:
            try:
                replaced = hook(call.snapshot(), result)
                if inspect.isawaitable(replaced):
                    replaced = await replaced
            except Exception as exc:
                logger.exception("post-execute hook %r failed", hook, exc_info=exc)
                replaced = ToolResult(
                    success=False, error=hook_error(exc, call.target), metadata=result.metadata
                )
            if isinstance(replaced, ToolResult):
                result = replaced
        return result


class Validating:
    """Checks and coerces ``call.raw`` into ``call.arguments``; invalid: the answer."""

    async def __call__(self, call: Call, call_next: CallNext) -> ToolResult:
        try:
            call.arguments = call.raw = call.target.validator.validate(call.raw, strict=call.strict)
        except ArgumentsInvalid as exc:
            return _early(call, exc)
        return await call_next(call)


class PreHooks:
    """Adapter: each ``hook(call)`` may return new arguments (validated again) or refuse."""

    def __init__(self, hooks: Sequence[PreHook]) -> None:
        self.hooks = tuple(hooks)

    async def __call__(self, call: Call, call_next: CallNext) -> ToolResult:
        try:
            for hook in self.hooks:
                replaced = hook(call.snapshot())
                if inspect.isawaitable(replaced):
                    replaced = await replaced
                if replaced is not None:
                    call.arguments = call.raw = call.target.validator.validate(
                        replaced, strict=call.strict
                    )
        except ArgumentsInvalid as exc:
            return _early(call, exc)
        except Exception as exc:  # a hook refused or failed
            return make_result(
                call.target,
                None,
                hook_error(exc, call.target),
                call.tool_call_id,
                call.started_at,
                call.t0,
                1,
            )
        return await call_next(call)


class Announcing:
    """Tells listeners that a call with valid arguments starts."""

    def __init__(self, listeners: Listeners[ToolEvent]) -> None:
        self.listeners = listeners

    async def __call__(self, call: Call, call_next: CallNext) -> ToolResult:
        if self.listeners.items:
            announce(self.listeners, call.target, call.tool_call_id, call.arguments, call)
        return await call_next(call)


class Guarded:
    """Around your middleware: one that raises still gives the call an error result."""

    async def __call__(self, call: Call, call_next: CallNext) -> ToolResult:
        try:
            return await call_next(call)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            logger.exception("middleware failed on %s", call.target.name)
            return result_of(call, None, error_from_exception(exc, call.target.name))


class Retrying:
    """Innermost: another attempt after a retryable failure, per the retry policy."""

    def __init__(self, policy: CallPolicy, listeners: Listeners[ToolEvent]) -> None:
        self.policy = policy
        self.listeners = listeners

    async def __call__(self, call: Call, call_next: CallNext) -> ToolResult:
        retry = self.policy.retry
        while True:
            result = await call_next(call)
            error = result.error
            if error is None or not retry.should_retry(error, call.attempt, call.max_retries):
                return result
            delay = retry.delay(call.attempt)
            if self.listeners.items:
                self.listeners.emit(
                    ToolEvent(
                        kind=EventKind.RETRIED,
                        tool=call.target.tool,
                        action=call.target.name,
                        tool_call_id=call.tool_call_id,
                        attempt=call.attempt,
                        delay=delay,
                        result=result,
                        call=call,
                    )
                )
            if call.runner is not None and call.runner.inline:
                pause_inline(delay)
            else:
                await asyncio.sleep(delay)
            call.attempt += 1


class Attempting:
    """The end of the chain: one attempt on the call's runner."""

    def __init__(
        self,
        placement: Placement,
        state: Mapping[str, Any],
        validate_output: bool,
        pipeline: ToolRunner,
    ) -> None:
        self.placement = placement
        self.state = state
        self.validate_output = validate_output
        self.pipeline = pipeline

    async def __call__(self, call: Call) -> ToolResult:
        if call.runner is None:
            call.runner = self.placement.runner_for(call)
        output, error = await attempt(call, self.state, self.validate_output, self.pipeline)
        return result_of(call, output, error)


def compose(
    *,
    policy: CallPolicy,
    listeners: Listeners[ToolEvent],
    placement: Placement,
    state: Mapping[str, Any],
    pre: Sequence[PreHook],
    post: Sequence[PostHook],
    middleware: Sequence[Middleware],
    pipeline: ToolRunner,
    guardrails: Sequence[InputGuardrail | OutputGuardrail] = (),
) -> tuple[Chain, Chain, tuple[Middleware, ...]]:
    """The composed path, the same path with the guardrails step (for the calls of a
    guardrail scope; the first is it too when ``guardrails`` is set), and the first's steps
    outermost first (for reading and tests)."""
    head: list[Middleware] = [Reporting(listeners)]
    if post:
        head.append(PostHooks(post))
    head.append(Validating())
    if pre:
        head.append(PreHooks(pre))
    tail: list[Middleware] = [Announcing(listeners)]
    if middleware:
        tail.append(Guarded())
        tail.extend(middleware)
    tail.append(Retrying(policy, listeners))
    inputs = [g for g in guardrails if isinstance(g, InputGuardrail)]
    outputs = [g for g in guardrails if isinstance(g, OutputGuardrail)]
    guarded: tuple[Middleware, ...] = (*head, Guarding(inputs, outputs, listeners), *tail)
    steps: tuple[Middleware, ...] = guarded if guardrails else (*head, *tail)
    end = Attempting(placement, state, policy.validate_output, pipeline)
    return _linked(steps, end), _linked(guarded, end), steps


def _linked(steps: Sequence[Middleware], end: CallNext) -> Chain:
    """``steps`` linked, outermost first, in front of ``end``."""
    chain = end
    for outer in reversed(steps):
        chain = link(outer, chain)
    return cast(Chain, chain)


def _early(call: Call, exc: ArgumentsInvalid) -> ToolResult:
    """The answer to a call stopped before its first attempt."""
    return make_result(call.target, None, exc.error, call.tool_call_id, call.started_at, call.t0, 1)

"""``Pipeline``: the one call path, composed of small steps, every call goes through.

    Reporting → PostHooks → Validating → PreHooks → [Guarding] → Announcing → your middleware
      → Retrying → attempt on a runner (inline, thread, process, async or a queue)

Its parts are separate objects: a frozen `CallPolicy` (time limits, retries,
strictness, output checks), a `Placement` that picks each
call's runner, and the ordered steps of `._links`. Hooks, middleware, listeners and
runners all see one `Call`. Every outcome is a `ToolResult`: nothing
escapes but the caller's own cancellation.

Every call comes in through `Pipeline.start`, the one place that decides how it runs: on a
straight line (`._straight`) when nothing on the composed path would act (no hook,
middleware, guardrail, time limit, retry, cap, dispatcher or tracing), on the composed path
driven in the caller's thread when nothing on it can suspend, or as a coroutine. The
straight lines call the same step functions (`._steps`) in the same order; a test runs every
way on the same calls.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, Literal, final, overload

from toolrig.core.context._background import run_sync
from toolrig.core.context._context import ProgressCallback
from toolrig.core.context._events import Listeners
from toolrig.core.define._action import Action
from toolrig.core.define._base import BaseTool
from toolrig.core.model._ids import new_call_id
from toolrig.core.model._names import ActionRef
from toolrig.core.model._on_first_use import asyncio
from toolrig.core.model._suggest import not_found_message
from toolrig.core.result._result import ToolResult
from toolrig.runtime._call import UNSET, Call, Middleware, PostHook, PreHook, Unset
from toolrig.runtime._events import Listener, ToolEvent
from toolrig.runtime._guardrails import GUARDING, InputGuardrail, OutputGuardrail
from toolrig.runtime._links import compose
from toolrig.runtime._policy import CallPolicy
from toolrig.runtime._retry import RetryPolicy
from toolrig.runtime._runners import INLINE, Dispatcher, Placement
from toolrig.runtime._steps import not_found, refused
from toolrig.runtime._straight import StraightLine
from toolrig.runtime._tracing import follow, traced_call, tracing_enabled

__all__ = ["Pipeline"]


@final
class Pipeline:
    """The call path and its policy: time limits, retries, strictness, hooks and middleware.

    ``default_timeout`` applies to tools that say nothing of their ``timeout``: left out,
    the default limit (`DEFAULT_TIMEOUT`, or ``$TOOLRIG_DEFAULT_TIMEOUT``) on every path off
    the caller's thread; given (seconds, or ``None`` for no limit), on every path.
    ``max_concurrency`` caps calls running at once on the async path (``None``: no cap).
    ``strict`` refuses type coercion (``"5"`` for an integer) unless overridden per call.
    ``state`` is handed to tools that ask for a `ToolContext`.
    ``max_workers`` bounds the worker threads of sync calls (and, separately, the child
    processes of tools with ``isolation="process"``) running at once.
    """

    def __init__(
        self,
        *,
        default_timeout: float | Unset | None = UNSET,
        max_concurrency: int | None = None,
        retry: RetryPolicy | None = None,
        strict: bool = False,
        validate_output: bool = True,
        state: Mapping[str, Any] | None = None,
        max_workers: int = 32,
        middleware: Sequence[Middleware] = (),
        policy: CallPolicy | None = None,
        placement: Placement | None = None,
    ) -> None:
        self._policy = policy or CallPolicy(
            default_timeout=default_timeout,
            max_concurrency=max_concurrency,
            retry=retry or RetryPolicy(),
            strict=strict,
            validate_output=validate_output,
        )
        self.state: Mapping[str, Any] = state or {}
        self.placement = placement or Placement(max_workers)
        self.listeners: Listeners[ToolEvent] = Listeners()
        self._pre: tuple[PreHook, ...] = ()
        self._post: tuple[PostHook, ...] = ()
        self._middleware: tuple[Middleware, ...] = tuple(middleware)
        self._guardrails: tuple[InputGuardrail | OutputGuardrail, ...] = ()
        self._semaphores: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}
        self._refresh()
        follow(self._refresh)

    # -- configuration ---------------------------------------------------------------------
    @property
    def policy(self) -> CallPolicy:
        """The settings every call follows (replace it to change them)."""
        return self._policy

    @policy.setter
    def policy(self, value: CallPolicy) -> None:
        if value.max_concurrency != self._policy.max_concurrency:
            self._semaphores = {}  # the calls started from now on count against the new cap
        self._policy = value
        self._refresh()

    @property
    def middleware(self) -> tuple[Middleware, ...]:
        """The composed path's steps, outermost first (the built-in ones included)."""
        return self._steps

    def add_pre_hook(self, hook: PreHook) -> None:
        """``hook(call)`` runs before each call; returning a mapping replaces the arguments
        (they are validated again); raising ``ToolError``/``PermissionError`` refuses the call."""
        self._pre = (*self._pre, hook)
        self._refresh()

    def add_post_hook(self, hook: PostHook) -> None:
        """``hook(call, result)`` runs after each call; returning a result replaces it."""
        self._post = (*self._post, hook)
        self._refresh()

    def add_middleware(self, middleware: Middleware) -> None:
        """Wrap the attempts of every valid call; the first added is the outermost."""
        self._middleware = (*self._middleware, middleware)
        self._refresh()

    def add_guardrail(self, guardrail: InputGuardrail | OutputGuardrail) -> None:
        """Check every call (or those of ``guardrail.tools``) with ``guardrail`` (in order)."""
        if not isinstance(guardrail, (InputGuardrail, OutputGuardrail)):
            raise TypeError("add_guardrail takes an InputGuardrail or an OutputGuardrail")
        self._guardrails = (*self._guardrails, guardrail)
        self._refresh()

    def dispatch_with(self, dispatcher: Dispatcher) -> None:
        """Send the calls ``dispatcher`` claims to its queues (retried like local ones)."""
        self.placement.dispatcher = dispatcher
        self._refresh()

    def add_listener(self, listener: Listener) -> None:
        """``listener(event)`` is told when calls start, succeed, fail and are retried."""
        self.listeners.add(listener)

    def remove_listener(self, listener: Listener) -> None:
        """Stop telling ``listener``."""
        self.listeners.remove(listener)

    def with_middleware(self, *middleware: Middleware) -> Pipeline:
        """A pipeline with this one's policy, state, hooks, listeners and runners, and
        ``middleware`` added innermost; this pipeline does not change."""
        derived = Pipeline(
            policy=self._policy,
            state=self.state,
            middleware=(*self._middleware, *middleware),
            placement=self.placement,
        )
        derived.listeners = self.listeners
        derived._pre, derived._post = self._pre, self._post
        derived._guardrails = self._guardrails
        derived._refresh()
        return derived

    def close(self) -> None:
        """Stop the worker threads (running calls finish first)."""
        self.placement.threads.shutdown()

    def _refresh(self) -> None:
        """Compose the path again and decide what `start` may skip (never the composed path
        while tracing is on: the switch calls this, so `start` never checks for it).

        Sets ``_straight`` (whether a plain action's call may take ``_line``, the straight
        lines) and ``_inline`` (whether a blocking call may drive the composed path in the
        caller's thread), read by `start` alone."""
        self._traced = tracing_enabled()
        policy = self._policy
        # the guarded path: the calls of a guardrail scope's, or all when some are set here
        self._chain, self._guarded, self._steps = compose(
            policy=policy,
            listeners=self.listeners,
            placement=self.placement,
            state=self.state,
            pre=self._pre,
            post=self._post,
            middleware=self._middleware,
            pipeline=self,
            guardrails=self._guardrails,
        )
        self._strict = policy.strict
        self._line = StraightLine(
            listeners=self.listeners,
            threads=self.placement.threads,
            state=self.state,
            validate_output=policy.validate_output,
            runner=self,
        )
        async_hooks = any(inspect.iscoroutinefunction(h) for h in (*self._pre, *self._post))
        self._straight = (
            not self._traced
            and not self._guardrails
            and not self._pre
            and not self._post
            and not self._middleware
            and policy.max_concurrency is None
            and self.placement.dispatcher is None
            and not self.placement.overrides
        )
        # the limits of a straight line's call that says nothing: awaited, and in this thread
        self._default_limit = policy.implicit
        self._sync_limit = policy.limit(UNSET, UNSET, implicit=False)
        self._inline = (
            not async_hooks
            and not self._middleware
            and policy.max_concurrency is None
            and self.placement.dispatcher is None
            and not self.placement.overrides
        )

    # -- running ---------------------------------------------------------------------------
    @overload
    def start(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        call_id: str,
        timeout: float | Unset | None,
        strict: bool | None,
        max_retries: int | None,
        progress: ProgressCallback | None,
        blocking: Literal[False],
    ) -> Coroutine[Any, Any, ToolResult]: ...

    @overload
    def start(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        call_id: str,
        timeout: float | Unset | None,
        strict: bool | None,
        max_retries: int | None,
        progress: ProgressCallback | None,
        blocking: Literal[True],
    ) -> ToolResult: ...

    def start(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        call_id: str,
        timeout: float | Unset | None,
        strict: bool | None,
        max_retries: int | None,
        progress: ProgressCallback | None,
        blocking: bool,
    ) -> Coroutine[Any, Any, ToolResult] | ToolResult:
        """The one entrance: run ``action`` of ``tool`` on the way this pipeline decides.

        ``blocking`` answers with the result, else with a coroutine to await. Here, and only
        here, a call takes a straight line (nothing on the composed path would act), the
        composed path driven in this thread (nothing on it can suspend), or the composed path
        as a coroutine, traced and under the concurrency cap when they are on.
        ``timeout`` is `UNSET` for the tool's own limit; ``strict`` and ``max_retries`` are
        ``None`` for the policy's and the tool's."""
        if strict is None:
            strict = self._strict
        guarded = GUARDING.get() is not None
        if self._straight and not guarded and action.plain and timeout is UNSET and not max_retries:
            if blocking and not action.is_async:  # in this thread: only a given limit applies
                if self._sync_limit is None or tool.spec.timeout is None:
                    return self._line.run_sync(tool, action, args, call_id, strict, progress)
            else:
                limit = None if tool.spec.timeout is None else self._default_limit
                line = self._line.run_async(tool, action, args, call_id, strict, progress, limit)
                return run_sync(line) if blocking else line
        spec = tool.spec
        # a blocking sync call may run in this thread (nothing stops it): only a given limit
        here = blocking and self._inline and not action.is_async
        here = here and spec.isolation == "thread" and spec.runs_on is None
        limit = self._policy.limit(spec.timeout, timeout, implicit=not here)
        call = self._call(tool, action, args, call_id, limit, strict, max_retries, progress)
        if here and limit is None:
            call.runner = INLINE
            return self._driven(call, guarded)
        run = self._guarded(call) if guarded else self._chain(call)
        if self._traced:
            run = traced_call(run, action, call_id)
        if self._policy.max_concurrency is not None:
            run = self._limited(run)
        return run_sync(run) if blocking else run

    def run_tool(
        self,
        tool: BaseTool,
        action: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        strict: bool | None = None,
        tool_call_id: str | None = None,
    ) -> Coroutine[Any, Any, ToolResult]:
        """Run ``action`` of ``tool`` (which need not be in any catalogue) through the pipeline:
        a coroutine resolving to its result."""
        call_id = tool_call_id or new_call_id()
        bound = tool.get_action(action)
        if bound is None:
            return _ready(self._missing_action(tool, action, call_id))
        return self.start(tool, bound, arguments, call_id, UNSET, strict, None, None, False)

    def run_tool_sync(
        self,
        tool: BaseTool,
        action: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        strict: bool | None = None,
        tool_call_id: str | None = None,
    ) -> ToolResult:
        """Blocking `run_tool`."""
        call_id = tool_call_id or new_call_id()
        bound = tool.get_action(action)
        if bound is None:
            return self._missing_action(tool, action, call_id)
        return self.start(tool, bound, arguments, call_id, UNSET, strict, None, None, True)

    def not_found(
        self, name: str, message: str, call_id: str, *, action: str | None = None
    ) -> ToolResult:
        """The one structured answer to a call of something that does not exist."""
        return not_found(self.listeners, self._traced, name, message, call_id, action)

    def refuse(self, result: ToolResult, arguments: Mapping[str, Any] | None = None) -> ToolResult:
        """Report ``result``, the answer to a call that could not reach a tool (disabled, or
        unreadable), as every call is reported: recorded, told, logged."""
        return refused(self.listeners, self._traced, result, arguments)

    def _missing_action(self, tool: BaseTool, action: str, call_id: str) -> ToolResult:
        asked = ActionRef(tool.spec.name, str(action), True).call_name
        message = not_found_message(asked, {tool.spec.name: tool.spec})
        return self.not_found(tool.spec.name, message, call_id, action=str(action))

    def _driven(self, call: Call, guarded: bool) -> ToolResult:
        """The composed path driven to its end in this thread (its runner is inline, so
        nothing on it suspends): no event loop, no coroutine scheduling."""
        coro = self._guarded(call) if guarded else self._chain(call)
        if self._traced:
            coro = traced_call(coro, call.target, call.tool_call_id)
        try:
            coro.send(None)
        except StopIteration as done:
            result: ToolResult = done.value
            return result
        coro.close()  # unreachable by construction: nothing on this path suspends
        raise RuntimeError("the inline call path suspended")

    def _call(
        self,
        tool: BaseTool,
        action: Action,
        args: Any,
        call_id: str,
        limit: float | None,
        strict: bool,
        max_retries: int | None,
        progress: ProgressCallback | None,
    ) -> Call:
        spec = tool.spec
        return Call(
            owner=tool,
            target=action,
            arguments={},
            raw=args,
            strict=strict,
            tool_call_id=call_id,
            timeout=limit,
            max_retries=spec.max_retries if max_retries is None else max_retries,
            progress=progress,
            started_at=time.time(),
            t0=time.perf_counter(),
        )

    async def _limited(self, run: Coroutine[Any, Any, ToolResult]) -> ToolResult:
        loop = asyncio.get_running_loop()
        sem = self._semaphores.get(loop)
        if sem is None:
            assert self._policy.max_concurrency is not None
            sem = self._semaphores[loop] = asyncio.Semaphore(self._policy.max_concurrency)
        async with sem:
            return await run

    def __repr__(self) -> str:
        return f"<Pipeline steps={len(self._steps)}>"


async def _ready(result: ToolResult) -> ToolResult:
    return result

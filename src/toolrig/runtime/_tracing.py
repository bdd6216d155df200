"""Tracing of tool calls, plan runs and agent runs, switched on and off for the whole process.

Spans follow OpenTelemetry's GenAI semantic conventions (``execute_tool {tool}``,
``chat {model}``, ``invoke_agent {agent}``, ``invoke_workflow {plan}``); they are written in
`._spans`, which is the only module that imports OpenTelemetry, and only once tracing is
switched on. Off (the default), tracing costs nothing on the pipeline's straight-line paths:
the switch flips each pipeline's own "plain" flag, so no call tests anything, and the helpers
here answer with one shared do-nothing scope.

The switch and the pipelines that follow it belong to a `Tracing` object; `TRACING` is the
process's one instance, which `enable_tracing` flips and every helper here reads.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final

from toolrig.core.define._action import Action
from toolrig.core.result._result import ToolResult

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer, TracerProvider

__all__ = [
    "TRACING",
    "SpanScope",
    "Tracing",
    "agent_span",
    "chat_span",
    "disable_tracing",
    "enable_tracing",
    "follow",
    "log_fields",
    "plan_step",
    "tool_span",
    "traced_call",
    "tracing_enabled",
    "workflow_span",
]

STEP_ID: Final[ContextVar[str | None]] = ContextVar("toolrig_plan_step", default=None)
"""The plan step whose call is being started (read only while tracing is on)."""


class Tracing:
    """A tracing switch: the tracer spans go to (``None``: off) and the pipelines told when it
    flips, so that their calls test nothing while it is off."""

    __slots__ = ("_followers", "_lock", "_pruned_at", "impl", "tracer")

    def __init__(self) -> None:
        self.tracer: Tracer | None = None
        """Where spans go while tracing is on."""
        self.impl: Any = None
        """The module ``_spans`` once imported (typed through the helpers below)."""
        self._lock = threading.Lock()
        self._followers: list[weakref.WeakMethod[Callable[[], None]]] = []
        self._pruned_at = 16

    def enable(self, tracer_provider: TracerProvider | None = None) -> None:
        """Record spans from now on, to ``tracer_provider`` or OpenTelemetry's global one."""
        try:
            from opentelemetry import trace

            from toolrig.runtime import _spans
        except ImportError as exc:
            raise ImportError("tracing needs OpenTelemetry: pip install 'toolrig[otel]'") from exc
        with self._lock:
            self.impl = _spans
            self.tracer = trace.get_tracer(
                "toolrig", _version(), tracer_provider, schema_url=_spans.SCHEMA_URL
            )
        self._refresh()

    def disable(self) -> None:
        """Stop recording spans; the followers take their fast paths again."""
        with self._lock:
            self.tracer = None
        self._refresh()

    @property
    def enabled(self) -> bool:
        """Whether spans are being recorded."""
        return self.tracer is not None

    def follow(self, refresh: Callable[[], None]) -> None:
        """Call ``refresh`` (a bound method, held weakly) whenever the switch flips."""
        with self._lock:
            self._followers.append(weakref.WeakMethod(refresh))
            if len(self._followers) >= self._pruned_at:
                self._followers[:] = [ref for ref in self._followers if ref() is not None]
                self._pruned_at = max(16, 2 * len(self._followers))

    def _refresh(self) -> None:
        with self._lock:
            alive = [ref() for ref in self._followers]
        for refresh in alive:
            if refresh is not None:
                refresh()


TRACING: Final = Tracing()
"""The process's tracing switch: `enable_tracing` flips it, every pipeline follows it, and the
span helpers of this module read it."""


def _version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("toolrig")
    except PackageNotFoundError:  # run from a source tree that is not installed
        return None


def enable_tracing(tracer_provider: TracerProvider | None = None) -> None:
    """Record spans of every tool call, plan run and agent run from now on.

    Spans go to ``tracer_provider``, or to OpenTelemetry's global provider (set by your SDK
    setup). Needs ``opentelemetry-api``: ``pip install 'toolrig[otel]'``.
    """
    TRACING.enable(tracer_provider)


def disable_tracing() -> None:
    """Stop recording spans; calls take their fast paths again."""
    TRACING.disable()


def tracing_enabled() -> bool:
    """Whether spans are being recorded."""
    return TRACING.tracer is not None


def follow(refresh: Callable[[], None]) -> None:
    """Call ``refresh`` (a bound method, held weakly) whenever tracing is switched on or off.

    Pipelines hand their own flag update here, so the switch costs their calls nothing.
    """
    TRACING.follow(refresh)


def log_fields(result: ToolResult) -> dict[str, Any]:
    """The structured fields of a call's log record (``extra=``): the facts its span holds."""
    meta = result.metadata
    return {
        "tool": meta.tool if meta else "",
        "action": meta.action if meta else None,
        "tool_call_id": meta.tool_call_id if meta else "",
        "error_code": result.error.code if result.error is not None else None,
        "duration_ms": meta.duration_ms if meta else 0.0,
        "attempts": meta.attempts if meta else 0,
    }


# -- the pipeline's step -----------------------------------------------------------------------
def traced_call(
    run: Coroutine[Any, Any, ToolResult], action: Action, call_id: str
) -> Coroutine[Any, Any, ToolResult]:
    """``run`` (a call of ``action`` through the pipeline) inside an ``execute_tool`` span.

    The parent is taken now, in the caller's context, so a call that then runs on another
    thread's loop still nests under the caller's span.
    """
    tracer, impl = TRACING.tracer, TRACING.impl
    if tracer is None:
        return run
    traced: Coroutine[Any, Any, ToolResult] = impl.traced_call(
        tracer, run, action, call_id, STEP_ID.get()
    )
    return traced


def record_missing(name: str, call_id: str, result: ToolResult) -> None:
    """An ``execute_tool`` span for a call of a tool that does not exist."""
    tracer, impl = TRACING.tracer, TRACING.impl
    if tracer is not None:
        impl.record_missing(tracer, name, call_id, result)


# -- scopes for code that drives calls ------------------------------------------------------------
class SpanScope:
    """A span open over a block (``with``): record what the block learns on it.

    When tracing is off every scope is the same do-nothing object, so a ``with`` costs about a
    tenth of a microsecond.
    """

    __slots__ = ("_span", "_start")

    def __init__(self, start: Callable[[], Any] | None = None) -> None:
        self._start = start
        self._span: Any = None

    def __enter__(self) -> SpanScope:
        if self._start is not None:
            self._span = self._start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._span is not None:
            span, self._span = self._span, None
            span.close(exc)

    def set(self, key: str, value: Any) -> None:
        """Set an attribute (``None`` values are left out)."""
        if self._span is not None and value is not None:
            self._span.span.set_attribute(key, value)

    def record_usage(self, input_tokens: int, output_tokens: int) -> None:
        """Tokens spent (``gen_ai.usage.input_tokens`` / ``output_tokens``)."""
        if self._span is not None:
            self._span.usage(input_tokens, output_tokens)

    def record_result(self, result: ToolResult) -> None:
        """The outcome of a tool call: its error code as ``error.type`` when it failed."""
        if self._span is not None:
            self._span.result(result)

    def record_error(self, error_type: str, message: str | None = None) -> None:
        """The block failed with ``error_type`` (a low-cardinality name, such as a code)."""
        if self._span is not None:
            self._span.error(error_type, message)

    def record_run(
        self, stop_reason: str, error: str | None, input_tokens: int, output_tokens: int
    ) -> None:
        """How an agent run ended: its stop reason, its token totals, and its error (an
        ``"ExceptionName: message"`` text gives ``error.type=ExceptionName``)."""
        if self._span is None:
            return
        self._span.span.set_attribute("toolrig.agent.stop_reason", stop_reason)
        self._span.usage(input_tokens, output_tokens)
        if stop_reason == "error":
            name = (error or "").partition(":")[0]
            self._span.error(name if name.isidentifier() else "_OTHER", error)


_OFF: Final = SpanScope()


def _scope(opener: Callable[..., Any], *args: Any, **kwargs: Any) -> SpanScope:
    tracer = TRACING.tracer
    if tracer is None:
        return _OFF
    return SpanScope(lambda: opener(tracer, *args, **kwargs))


def agent_span(
    agent: str,
    *,
    model: str | None = None,
    provider: str | None = None,
    run_id: str | None = None,
    conversation_id: str | None = None,
) -> SpanScope:
    """An ``invoke_agent {agent}`` span over one agent run (its turns and calls nest in it)."""
    if TRACING.tracer is None:
        return _OFF
    return _scope(
        TRACING.impl.open_agent,
        agent,
        model=model,
        provider=provider,
        run_id=run_id,
        conversation_id=conversation_id,
    )


def chat_span(model: str, *, provider: str | None = None, server: str | None = None) -> SpanScope:
    """A ``chat {model}`` span over one model request; ``server`` is its base URL."""
    if TRACING.tracer is None:
        return _OFF
    return _scope(TRACING.impl.open_chat, model, provider=provider, server=server)


def tool_span(
    tool: str, *, call_id: str | None = None, description: str | None = None
) -> SpanScope:
    """An ``execute_tool {tool}`` span, for a tool run outside the pipeline (the pipeline's
    own calls get one without asking)."""
    if TRACING.tracer is None:
        return _OFF
    return _scope(TRACING.impl.open_tool, tool, call_id=call_id, description=description)


def workflow_span(plan_id: str, *, steps: int) -> SpanScope:
    """An ``invoke_workflow {plan}`` span over one plan run (its steps' calls nest in it)."""
    if TRACING.tracer is None:
        return _OFF
    return _scope(TRACING.impl.open_workflow, plan_id, steps=steps)


class plan_step:  # lower case: used like a function, in a ``with`` statement
    """Calls started inside ``with plan_step(step_id):`` carry that plan step id."""

    __slots__ = ("_step", "_token")

    def __init__(self, step_id: str) -> None:
        self._step = step_id
        self._token: Any = None

    def __enter__(self) -> None:
        if TRACING.tracer is not None:
            self._token = STEP_ID.set(self._step)

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            STEP_ID.reset(self._token)
            self._token = None

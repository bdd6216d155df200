"""The spans, written with OpenTelemetry's API; imported only when tracing is switched on.

Names, kinds and attributes follow the GenAI semantic conventions (schema 1.37):
``execute_tool {tool}`` (INTERNAL), ``chat {model}`` (CLIENT), ``invoke_agent {agent}``
(INTERNAL: the agent runs in this process) and ``invoke_workflow {plan}`` (INTERNAL). A failed
tool call sets ``error.type`` to its stable error code (``timeout``, ``invalid_arguments``,
...); an exception sets it to the exception's class name. A guardrail's verdict adds
``toolrig.guardrail.name``, ``.stage`` and ``.verdict``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from typing import Any, Final
from urllib.parse import urlsplit

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from toolrig.core.define._action import Action
from toolrig.core.model._names import ActionRef
from toolrig.core.result._result import ToolResult

__all__ = [
    "SCHEMA_URL",
    "Open",
    "open_agent",
    "open_chat",
    "open_tool",
    "open_workflow",
    "record_missing",
    "traced_call",
]

SCHEMA_URL: Final = "https://opentelemetry.io/schemas/1.37.0"

OPERATION: Final = "gen_ai.operation.name"
TOOL_NAME: Final = "gen_ai.tool.name"
CALL_ID: Final = "gen_ai.tool.call.id"
ERROR_TYPE: Final = "error.type"


class Open:
    """A started span, current in this context until `close`."""

    __slots__ = ("_token", "span")

    def __init__(self, span: Span, parent: otel_context.Context | None) -> None:
        self.span = span
        self._token = otel_context.attach(trace.set_span_in_context(span, parent))

    def usage(self, input_tokens: int, output_tokens: int) -> None:
        self.span.set_attribute("gen_ai.usage.input_tokens", input_tokens)
        self.span.set_attribute("gen_ai.usage.output_tokens", output_tokens)

    def result(self, result: ToolResult) -> None:
        if result.error is not None:
            first = result.error.message.splitlines()[0] if result.error.message else None
            self.error(result.error.code, first)
            extra = result.metadata.extra if result.metadata is not None else None
            guarded = extra.get("guardrail") if extra else None
            if isinstance(guarded, dict):
                self.span.set_attribute("toolrig.guardrail.name", str(guarded.get("guardrail")))
                self.span.set_attribute("toolrig.guardrail.stage", str(guarded.get("stage")))
                self.span.set_attribute("toolrig.guardrail.verdict", str(guarded.get("verdict")))

    def error(self, error_type: str, message: str | None) -> None:
        self.span.set_attribute(ERROR_TYPE, error_type)
        self.span.set_status(Status(StatusCode.ERROR, message))

    def close(self, exc: BaseException | None) -> None:
        """Record ``exc`` (if any), stop being current, and end the span."""
        if isinstance(exc, asyncio.CancelledError):
            self.error("cancelled", None)
        elif isinstance(exc, Exception):
            self.span.record_exception(exc)
            self.error(type(exc).__qualname__, str(exc) or None)
        if trace.get_current_span() is self.span:
            otel_context.detach(self._token)
        # else: closed from another context (an abandoned async generator finalized by the
        # event loop), where this span was never current: nothing to restore there
        self.span.end()


def _start(
    tracer: Tracer,
    name: str,
    kind: SpanKind,
    attributes: Mapping[str, Any],
    parent: otel_context.Context | None = None,
) -> Open:
    kept = {k: v for k, v in attributes.items() if v is not None}
    span = tracer.start_span(name, context=parent, kind=kind, attributes=kept)
    return Open(span, parent)


def call_name(action: Action) -> str:
    """The name a call of ``action`` goes by (``tool`` or ``tool.action``)."""
    return ActionRef.of_record(action.tool or action.name, action.name).call_name


def open_tool(
    tracer: Tracer,
    tool: str,
    *,
    call_id: str | None,
    description: str | None,
    step_id: str | None = None,
    parent: otel_context.Context | None = None,
) -> Open:
    return _start(
        tracer,
        f"execute_tool {tool}",
        SpanKind.INTERNAL,
        {
            OPERATION: "execute_tool",
            TOOL_NAME: tool,
            CALL_ID: call_id,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.description": description,
            "toolrig.plan.step.id": step_id,
        },
        parent,
    )


def traced_call(
    tracer: Tracer,
    run: Coroutine[Any, Any, ToolResult],
    action: Action,
    call_id: str,
    step_id: str | None,
) -> Coroutine[Any, Any, ToolResult]:
    """``run`` inside an ``execute_tool`` span whose parent is the current span now."""
    return _traced(tracer, run, action, call_id, step_id, otel_context.get_current())


async def _traced(
    tracer: Tracer,
    run: Coroutine[Any, Any, ToolResult],
    action: Action,
    call_id: str,
    step_id: str | None,
    parent: otel_context.Context,
) -> ToolResult:
    scope = open_tool(
        tracer,
        call_name(action),
        call_id=call_id,
        description=action.spec.description or None,
        step_id=step_id,
        parent=parent,
    )
    try:
        result = await run
    except BaseException as exc:  # only the caller's own cancellation gets here
        scope.close(exc)
        raise
    scope.result(result)
    scope.close(None)
    return result


def record_missing(tracer: Tracer, name: str, call_id: str, result: ToolResult) -> None:
    """A finished ``execute_tool`` span for a call of a tool that does not exist."""
    scope = open_tool(tracer, name, call_id=call_id, description=None)
    scope.result(result)
    scope.close(None)


def open_agent(
    tracer: Tracer,
    agent: str,
    *,
    model: str | None,
    provider: str | None,
    run_id: str | None,
    conversation_id: str | None,
) -> Open:
    return _start(
        tracer,
        f"invoke_agent {agent}",
        SpanKind.INTERNAL,
        {
            OPERATION: "invoke_agent",
            "gen_ai.agent.name": agent,
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": model,
            "gen_ai.conversation.id": conversation_id,
            "toolrig.agent.run_id": run_id,
        },
    )


def open_chat(tracer: Tracer, model: str, *, provider: str | None, server: str | None) -> Open:
    host: str | None = None
    port: int | None = None
    if server:
        parts = urlsplit(server)
        host = parts.hostname
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80 if host else None)
        except ValueError:
            port = None
    return _start(
        tracer,
        f"chat {model}",
        SpanKind.CLIENT,
        {
            OPERATION: "chat",
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": model,
            "server.address": host,
            "server.port": port,
        },
    )


def open_workflow(tracer: Tracer, plan_id: str, *, steps: int) -> Open:
    return _start(
        tracer,
        f"invoke_workflow {plan_id}",
        SpanKind.INTERNAL,
        {
            OPERATION: "invoke_workflow",
            "gen_ai.workflow.name": plan_id,
            "toolrig.plan.steps": steps,
        },
    )

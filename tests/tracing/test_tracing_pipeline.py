"""``execute_tool`` spans from the call pipeline, on every path a call can take: the blocking
straight line, the inline coroutine, the background loop, the awaited path, middleware, plans;
error codes as ``error.type``; parents taken from the caller; the same facts in log records."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import SpanKind, StatusCode
from tracing_support import Spans, parent_of, span_id

from toolrig import ToolContext, ToolExecutor, tool
from toolrig.runtime import Call, CallNext, Plan, PlanRunner

# a tracer of the test's own, standing for the application around toolrig
APP = TracerProvider()


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def shout(text: str) -> str:
    """Upper-case a text."""
    await asyncio.sleep(0)
    return text.upper()


@tool
def boom(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(reason)


@tool(timeout=5)
def limited(x: int) -> int:
    """A sync tool with a time limit (so a blocking call goes through the background loop)."""
    return x


@tool(timeout=0.05)
async def slow() -> str:
    """Never finishes in time."""
    await asyncio.sleep(5)
    return "late"


SEEN: dict[str, Any] = {}


@tool
def inner(ctx: ToolContext) -> str:
    """Opens a span of its own while it runs."""
    from opentelemetry import trace

    with trace.get_tracer("app", tracer_provider=SEEN["provider"]).start_as_current_span("work"):
        SEEN["thread"] = threading.current_thread().name
    return ctx.tool_call_id


def executor() -> ToolExecutor:
    return ToolExecutor([add, shout, boom, limited, slow, inner])


def test_a_fast_path_call_is_one_execute_tool_span(spans: Spans) -> None:
    with executor() as ex:
        result = ex.execute_sync("add", {"a": 2, "b": 3}, tool_call_id="call_7")
    assert result.output == 5
    span = spans.one("execute_tool add")
    assert span.kind is SpanKind.INTERNAL
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "add",
        "gen_ai.tool.call.id": "call_7",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "Add two integers.",
    }
    assert span.status.status_code is StatusCode.UNSET
    assert span.end_time is not None and span.start_time is not None
    assert span.end_time >= span.start_time
    assert span.instrumentation_scope is not None
    assert span.instrumentation_scope.name == "toolrig"


async def test_failures_carry_their_error_code_as_error_type(spans: Spans) -> None:
    with executor() as ex:
        results = await asyncio.gather(
            ex.execute("boom", {"reason": "no"}, tool_call_id="c1"),
            ex.execute("add", {"a": "x"}, tool_call_id="c2"),
            ex.execute("slow", tool_call_id="c3"),
            ex.execute("nope", tool_call_id="c4"),
        )
        assert ex.execute_sync("ad", {"a": 1, "b": 2}).code == "not_found"
    assert [r.code for r in results] == [
        "execution_error",
        "invalid_arguments",
        "timeout",
        "not_found",
    ]
    by_call = {s.attributes["gen_ai.tool.call.id"]: s for s in spans.all() if s.attributes}
    for call_id, code in [
        ("c1", "execution_error"),
        ("c2", "invalid_arguments"),
        ("c3", "timeout"),
        ("c4", "not_found"),
    ]:
        span = by_call[call_id]
        assert span.attributes is not None
        assert span.attributes["error.type"] == code, call_id
        assert span.status.status_code is StatusCode.ERROR
    assert by_call["c4"].name == "execute_tool nope"
    assert len(spans.named("execute_tool ad")) == 1
    assert "no" in (by_call["c1"].status.description or "")


async def test_every_path_nests_under_the_callers_span(spans: Spans) -> None:
    outer_tracer = spans.provider.get_tracer("app")
    with executor() as ex, outer_tracer.start_as_current_span("request") as request:
        assert ex.execute_sync("add", {"a": 1, "b": 1}).success  # straight line
        assert ex.execute_sync("add", {"a": 1, "b": 1}, max_retries=1).success  # inline
        assert ex.execute_sync("limited", {"x": 1}).success  # background loop
        assert (await ex.execute("shout", {"text": "hi"})).success  # awaited
        assert (await ex.execute("add", {"a": 1, "b": 2})).success  # worker thread
        assert ex.execute_many_sync([("add", {"a": 1, "b": 2})])[0].success
    request_id = request.get_span_context().span_id
    calls = [s for s in spans.all() if s.name.startswith("execute_tool")]
    assert len(calls) == 6
    assert all(parent_of(s) == request_id for s in calls), [(s.name, s.parent) for s in calls]
    trace_ids = {s.get_span_context().trace_id for s in spans.all()}  # type: ignore[union-attr]
    assert len(trace_ids) == 1


async def test_spans_a_tool_opens_are_children_of_its_call(spans: Spans) -> None:
    SEEN["provider"] = spans.provider
    with executor() as ex:
        assert ex.execute_sync("inner").success
        assert (await ex.execute("inner")).success  # on a worker thread
    work = spans.named("work")
    calls = spans.named("execute_tool inner")
    assert len(work) == 2 and len(calls) == 2
    assert sorted(parent_of(w) or 0 for w in work) == sorted(span_id(c) for c in calls)


async def test_middleware_calls_get_one_span_each(spans: Spans) -> None:
    seen: list[str] = []

    async def audit(call: Call, call_next: CallNext) -> Any:
        seen.append(call.tool_call_id)
        return await call_next(call)

    with ToolExecutor([add], middleware=[audit]) as ex:
        assert ex.execute_sync("add", {"a": 1, "b": 2}, tool_call_id="m1").output == 3
        assert (await ex.execute("add", {"a": 1, "b": 2}, tool_call_id="m2")).output == 3
    assert seen == ["m1", "m2"]
    ids = [s.attributes["gen_ai.tool.call.id"] for s in spans.named("execute_tool add")]  # type: ignore[index]
    assert ids == ["m1", "m2"]


async def test_a_plan_is_a_workflow_span_over_its_steps(spans: Spans) -> None:
    plan = Plan.from_data(
        {
            "id": "sum-then-shout",
            "steps": [
                {"id": "s1", "tool": "add", "params": {"a": 1, "b": 2}},
                {"id": "s2", "tool": "shout", "params": {"text": "x"}, "depends_on": ["s1"]},
                {"id": "s3", "tool": "boom", "params": {"reason": "bad"}},
                {"id": "s4", "tool": "add", "params": {"a": 1, "b": 1}, "depends_on": ["s3"]},
            ],
        }
    )
    with executor() as ex:
        result = await PlanRunner(ex).run(plan)
    assert result.failed == ["s3", "s4"]
    workflow = spans.one("invoke_workflow sum-then-shout")
    attrs = dict(workflow.attributes or {})
    assert attrs["gen_ai.operation.name"] == "invoke_workflow"
    assert attrs["gen_ai.workflow.name"] == "sum-then-shout"
    assert attrs["toolrig.plan.steps"] == 4
    assert attrs["error.type"] == "step_failed"
    steps = {
        str(s.attributes["toolrig.plan.step.id"]): s  # type: ignore[index]
        for s in spans.all()
        if s.name.startswith("execute_tool")
    }
    assert sorted(steps) == ["s1", "s2", "s3"]  # s4 never ran: its dependency failed
    assert all(parent_of(s) == span_id(workflow) for s in steps.values())
    assert steps["s3"].attributes["error.type"] == "execution_error"  # type: ignore[index]


def test_an_executor_made_before_the_switch_follows_it(spans: Spans) -> None:
    from toolrig.runtime import disable_tracing, enable_tracing

    disable_tracing()
    ex = executor()
    ex.execute_sync("add", {"a": 1, "b": 2})
    assert spans.all() == []
    enable_tracing(spans.provider)
    ex.execute_sync("add", {"a": 1, "b": 2})
    assert spans.names() == ["execute_tool add"]
    disable_tracing()
    ex.execute_sync("add", {"a": 1, "b": 2})
    assert spans.names() == ["execute_tool add"]
    ex.close()


def test_log_records_carry_the_calls_fields(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="toolrig.executor"), executor() as ex:
        ex.execute_sync("add", {"a": 1, "b": 2}, tool_call_id="l1")
        ex.execute_sync("boom", {"reason": "no"}, tool_call_id="l2")
        ex.execute_sync("missing", tool_call_id="l3")
    records = {getattr(r, "tool_call_id", None): r for r in caplog.records}
    ok, failed, missing = records["l1"], records["l2"], records["l3"]
    assert (ok.tool, ok.action, ok.error_code, ok.attempts) == ("add", "add", None, 1)  # type: ignore[attr-defined]
    assert ok.levelno == logging.DEBUG and ok.duration_ms >= 0  # type: ignore[attr-defined]
    assert failed.error_code == "execution_error" and failed.levelno == logging.INFO  # type: ignore[attr-defined]
    assert missing.error_code == "not_found" and missing.tool == "missing"  # type: ignore[attr-defined]

"""A guarded call's span: its error type is ``guardrail`` and it names the guardrail, its
stage and its verdict (the straight line is off while tracing, so one path is tried)."""

from __future__ import annotations

from tracing_support import Spans

from toolrig import ToolExecutor, tool
from toolrig.runtime import Call, InputGuardrail, Verdict


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def no_drop(call: Call) -> Verdict:
    return Verdict.reject("no") if call.arguments["text"] == "drop" else Verdict.allow()


def test_a_guarded_call_span_names_the_verdict(spans: Spans) -> None:
    ex = ToolExecutor([echo])
    ex.add_guardrail(InputGuardrail(no_drop, name="no-drop"))
    assert ex.execute_sync("echo", {"text": "drop"}, tool_call_id="g1").code == "guardrail"
    attributes = dict(spans.one("execute_tool echo").attributes or {})
    assert attributes["error.type"] == "guardrail"
    assert attributes["toolrig.guardrail.name"] == "no-drop"
    assert attributes["toolrig.guardrail.stage"] == "input"
    assert attributes["toolrig.guardrail.verdict"] == "reject"

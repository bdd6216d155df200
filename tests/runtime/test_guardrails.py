"""Guardrails on the pipeline, tried on every path a call can take and every tool form.

Each promise (its boundary), and the test that tries it:

- an input reject answers the model's message and the tool does not run; an output reject
  drops the output (the secret is nowhere in the result) though the tool ran (every path:
  the straight lines are skipped when a guardrail is set, or in a guardrail scope):
  ``test_reject_on_every_path``, ``test_a_scope_skips_the_straight_line``;
- a guardrail that raises or answers something else than a `Verdict` is a ``guardrail``
  failure, never an escaped exception, and fails closed:
  ``test_a_failing_guardrail_fails_closed``;
- a tripwire stops every later call of its scope: ``test_a_tripwire_stops_the_scope``;
- outcomes reach listeners (a ``guarded`` event) and the result's metadata:
  ``test_outcomes_in_events_and_metadata``;
- ``tools=`` limits a guardrail to some tools: ``test_a_guardrail_checks_only_its_tools``;
- every tool form (@tool sync and async, BaseTool action, Tool from data, YAML) passes
  through the guardrails: ``test_every_tool_form_is_guarded`` (an imported MCP tool:
  ``tests/mcp_server/test_mcp_guardrails.py``);
- the shipped checks: ``test_the_secret_scanner_finds_each_shape``, ``test_the_size_check``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from toolrig import BaseTool, Tool, ToolExecutor, ToolResult, action, tool
from toolrig.registry import Registry
from toolrig.runtime import (
    Call,
    CallNext,
    EventKind,
    GuardrailScope,
    InputGuardrail,
    OutputGuardrail,
    ToolEvent,
    Verdict,
    secret_scanner,
    size_check,
)
from toolrig.runtime._guardrails import GUARDING

KEY = "AKIA" + "ABCDEFGHIJKLMNOP"
RAN: list[str] = []


@tool
def echo(text: str) -> str:
    """Echo the text."""
    RAN.append(text)
    return text


@tool
async def aecho(text: str) -> str:
    """Echo the text, awaited."""
    RAN.append(text)
    return text


def no_drop(call: Call) -> Verdict:
    if "drop" in str(call.arguments.get("text", "")):
        return Verdict.reject("dropping is not allowed here")
    return Verdict.allow()


async def _through(call: Call, call_next: CallNext) -> ToolResult:
    return await call_next(call)


PATHS = ("straight-sync", "straight-async", "composed-async", "composed-blocking")


def _run(path: str, executor: ToolExecutor, name: str, args: dict[str, Any]) -> ToolResult:
    if path == "straight-sync":
        return executor.execute_sync(name, args)
    if path == "composed-blocking":
        return executor.execute_sync(name, args, timeout=30.0)
    return asyncio.run(executor.execute(name, args))  # type: ignore[arg-type]


def _executor(path: str, *guardrails: Any) -> ToolExecutor:
    ex = ToolExecutor([echo, aecho], middleware=[_through] if "composed" in path else [])
    for guardrail in guardrails:
        ex.add_guardrail(guardrail)
    return ex


@pytest.fixture(autouse=True)
def _clear() -> None:
    RAN.clear()


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", ["echo", "aecho"])
def test_reject_on_every_path(path: str, name: str) -> None:
    ex = _executor(path, InputGuardrail(no_drop), secret_scanner())
    refused = _run(path, ex, name, {"text": "drop table"})
    assert refused.code == "guardrail" and "dropping is not allowed here" in str(refused)
    assert RAN == []  # the tool did not run
    withheld = _run(path, ex, name, {"text": f"key={KEY}"})
    assert [f"key={KEY}"] == RAN  # it ran; its output does not reach anyone
    assert withheld.code == "guardrail" and withheld.output is None
    assert KEY not in withheld.to_json() and KEY not in str(withheld)
    assert _run(path, ex, name, {"text": "fine"}).output == "fine"


@pytest.mark.parametrize("name", ["echo", "aecho"])
def test_a_scope_skips_the_straight_line(name: str) -> None:
    ex = ToolExecutor([echo, aecho])  # no guardrail of its own: the straight lines
    assert ex.execute_sync(name, {"text": "drop"}).output == "drop"
    token = GUARDING.set(GuardrailScope(inputs=(InputGuardrail(no_drop),)))
    try:
        RAN.clear()
        assert ex.execute_sync(name, {"text": "drop"}).code == "guardrail"
        assert asyncio.run(ex.execute(name, {"text": "drop"})).code == "guardrail"  # type: ignore[arg-type]
        assert RAN == []
    finally:
        GUARDING.reset(token)
    assert ex.execute_sync(name, {"text": "drop"}).output == "drop"


def _raises(call: Call) -> Verdict:
    raise RuntimeError("the checker broke")


def _wrong(call: Call, result: ToolResult) -> Any:
    return True


async def _raises_late(call: Call, result: ToolResult) -> Verdict:
    raise ValueError("no")


@pytest.mark.parametrize("path", PATHS)
def test_a_failing_guardrail_fails_closed(path: str) -> None:
    ex = _executor(path, InputGuardrail(_raises))
    result = _run(path, ex, "echo", {"text": "x"})
    assert result.code == "guardrail" and "failed (RuntimeError)" in str(result)
    assert result.metadata is not None and result.metadata.extra is not None
    assert result.metadata.extra["guardrail"]["verdict"] == "error"
    assert RAN == []
    for check in (_wrong, _raises_late):
        ex = _executor(path, OutputGuardrail(check))
        result = _run(path, ex, "echo", {"text": "secret-ish"})
        assert result.code == "guardrail" and result.output is None


@pytest.mark.parametrize("path", PATHS)
def test_a_tripwire_stops_the_scope(path: str) -> None:
    def stop(call: Call) -> Verdict:
        return Verdict.tripwire("stop") if call.arguments["text"] == "halt" else Verdict.allow()

    ex = _executor(path, InputGuardrail(stop))
    scope = GuardrailScope()
    token = GUARDING.set(scope)
    try:
        tripped = _run(path, ex, "echo", {"text": "halt"})
        after = _run(path, ex, "aecho", {"text": "later"})
    finally:
        GUARDING.reset(token)
    assert tripped.code == "guardrail" and after.code == "guardrail" and RAN == []
    assert scope.tripped is not None and scope.tripped.guardrail == "stop"
    assert [o.kind for o in scope.outcomes] == ["tripwire", "tripwire"]
    assert "not run" in str(after)


@pytest.mark.parametrize("path", PATHS)
def test_outcomes_in_events_and_metadata(path: str) -> None:
    ex = _executor(path, InputGuardrail(no_drop, name="no-drop"))
    heard: list[ToolEvent] = []
    ex.add_listener(heard.append)
    result = _run(path, ex, "echo", {"text": "drop"})
    assert result.metadata is not None and result.metadata.extra == {
        "guardrail": {
            "guardrail": "no-drop",
            "stage": "input",
            "verdict": "reject",
            "message": "dropping is not allowed here",
        }
    }
    kinds = [e.kind for e in heard]
    assert kinds == [EventKind.GUARDED, EventKind.FAILED]  # never started
    assert heard[0].guardrail is not None and heard[0].guardrail.tool_call_id
    assert heard[0].guardrail.guardrail == "no-drop" and heard[0].guardrail.stage == "input"


def test_a_guardrail_checks_only_its_tools() -> None:
    ex = _executor("straight-sync", InputGuardrail(no_drop, tools={"aecho"}))
    assert ex.execute_sync("echo", {"text": "drop"}).output == "drop"
    assert ex.execute_sync("aecho", {"text": "drop"}).code == "guardrail"
    with pytest.raises(TypeError):
        ex.add_guardrail(no_drop)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not 'maybe'"):
        Verdict("maybe")  # type: ignore[arg-type]


class Notes(BaseTool):
    """Notes."""

    name = "notes"

    @action
    def write(self, text: str) -> str:
        """Write a note."""
        RAN.append(text)
        return text


def _data_tool() -> Tool:
    def impl(text: str) -> str:
        RAN.append(text)
        return text

    params = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    return Tool(name="datum", func=impl, parameters=params, description="Echo, from data.")


def yaml_echo(text: str) -> str:
    RAN.append(text)
    return text


YAML = f"""\
name: yamled
description: Echo, from YAML.
parameters:
  - {{name: text, type: string, required: true}}
executor: {__name__}.yaml_echo
"""


def _check_forms(ex: ToolExecutor, names: list[str]) -> None:
    ex.add_guardrail(InputGuardrail(no_drop))
    ex.add_guardrail(secret_scanner())
    for name in names:
        RAN.clear()
        assert ex.execute_sync(name, {"text": "drop"}).code == "guardrail", name
        assert RAN == [], name
        withheld = ex.execute_sync(name, {"text": KEY})
        assert withheld.code == "guardrail" and KEY not in withheld.to_json(), name
        assert ex.execute_sync(name, {"text": "ok"}).output == "ok", name


def test_every_tool_form_is_guarded(tmp_path: Path) -> None:
    (tmp_path / "yamled.yaml").write_text(YAML, encoding="utf-8")
    registry = Registry([echo, aecho, Notes(), _data_tool()])
    registry.load_file(tmp_path / "yamled.yaml")
    ex = ToolExecutor(registry)
    _check_forms(ex, ["echo", "aecho", "notes.write", "datum", "yamled"])


SHAPES = {
    "aws_access_key": KEY,
    "github_token": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2",
    "openai_key": "sk-" + "proj-abcdefghijklmnop1234",
    "anthropic_key": "sk-ant-" + "api03-abcdefghijklmnop",
    "jwt": "eyJhbGciOiJIUzI1NiJ9."
    + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlF",
    "private_key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
}


@pytest.mark.parametrize("kind", sorted(SHAPES))
def test_the_secret_scanner_finds_each_shape(kind: str) -> None:
    ex = ToolExecutor([echo])
    ex.add_guardrail(secret_scanner())
    nested = {"rows": [{"note": f"here: {SHAPES[kind]} ok"}]}
    result = ex.execute_sync("echo", {"text": json.dumps(nested)})
    assert result.code == "guardrail" and f"({kind})" in str(result)
    assert SHAPES[kind] not in result.to_json()


def test_the_secret_scanner_trips_when_asked_and_passes_plain_text() -> None:
    ex = ToolExecutor([echo])
    ex.add_guardrail(secret_scanner(trip=True))
    assert ex.execute_sync("echo", {"text": "sk- is a prefix, ghp_ too"}).output
    result = ex.execute_sync("echo", {"text": KEY})
    assert result.metadata is not None and result.metadata.extra is not None
    assert result.metadata.extra["guardrail"]["verdict"] == "tripwire"


@tool
def rows(count: int, depth: int = 0, odd: bool = False) -> Any:
    """Rows."""
    if odd:
        return {1, 2}
    value: Any = "x" * count
    for _ in range(depth):
        value = [value]
    return value


def test_the_size_check() -> None:
    ex = ToolExecutor([rows])
    ex.add_guardrail(size_check(max_chars=100, max_depth=3))
    assert ex.execute_sync("rows", {"count": 50}).output == "x" * 50
    too_big = ex.execute_sync("rows", {"count": 500})
    assert too_big.code == "guardrail" and "more than the 100 allowed" in str(too_big)
    assert "nests deeper than 3" in str(ex.execute_sync("rows", {"count": 1, "depth": 5}))
    assert ex.execute_sync("rows", {"count": 1, "depth": 3}).success
    assert "not plain JSON" in str(ex.execute_sync("rows", {"count": 1, "odd": True}))
    with pytest.raises(ValueError, match="at least 1"):
        size_check(max_chars=0)

"""Guardrails in an agent run: the agent's, a toolset's; outcomes in the result and the log.

Each promise (its boundary), and the test that tries it:

- an input tripwire ends the run with ``GuardrailTripped``: no later call of the same turn
  runs and the model is not asked again: ``test_an_input_tripwire_ends_the_run``;
- a tripwire from a guardrail that suspends still stops the calls started after it:
  ``test_a_suspending_tripwire_still_stops_the_later_calls``;
- an output tripwire cancels the calls of the turn still running, and its output never
  reaches the model: ``test_an_output_tripwire_cancels_the_running_calls``;
- ``raise_on_error=False`` answers the result, stopped for ``guardrail``:
  ``test_without_raising_the_result_says_guardrail``;
- reject: the model reads the message and the tool did not run (input); the output never
  reaches the model (output); the run goes on: ``test_a_reject_answers_the_model``;
- a toolset's guardrails check only its actions: ``test_a_toolsets_guardrails_are_its_own``;
- the log keeps the outcome on the call's record (its error code and message, and the outcome
  as the record's output), never the withheld output: ``test_the_log_keeps_the_outcome``;
- a guardrail that raises is a failure the model reads, not an escaped exception:
  ``test_a_raising_guardrail_does_not_escape_the_run``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from toolrig import tool
from toolrig.agent import Agent, CatalogToolset, GuardrailTripped
from toolrig.registry import Registry
from toolrig.runtime import Call, InputGuardrail, OutputGuardrail, Verdict, secret_scanner
from toolrig.storage import open_log
from toolrig.testing import ModelTurn, ScriptedModel

KEY = "AKIA" + "ABCDEFGHIJKLMNOP"
RAN: list[str] = []


@tool
def note(text: str) -> str:
    """Write a note."""
    RAN.append(f"note:{text}")
    return text


@tool
async def slow(text: str) -> str:
    """Write a note slowly."""
    await asyncio.sleep(5)
    RAN.append(f"slow:{text}")
    return text


def halt_on(word: str) -> InputGuardrail:
    def halt(call: Call) -> Verdict:
        if word in str(call.arguments.get("text")):
            return Verdict.tripwire(f"`{word}` ends the run")
        return Verdict.allow()

    return InputGuardrail(halt)


def no_drop(call: Call) -> Verdict:
    if "drop" in str(call.arguments.get("text")):
        return Verdict.reject("dropping is not allowed")
    return Verdict.allow()


@pytest.fixture(autouse=True)
def _clear() -> None:
    RAN.clear()


def _tool_messages(model: ScriptedModel, index: int) -> list[str]:
    return [m["content"] for m in model.requests[index].messages if m["role"] == "tool"]


def test_an_input_tripwire_ends_the_run() -> None:
    calls = [
        ("note", {"text": "halt"}, "a"),
        ("note", {"text": "x"}, "b"),
        ("slow", {"text": "y"}, "c"),
    ]
    model = ScriptedModel([ModelTurn(calls=calls), "never asked"])
    agent = Agent("Scribe", "You write.", model, [note, slow], guardrails=[halt_on("halt")])
    with pytest.raises(GuardrailTripped) as raised:
        agent.run("Write.")
    assert RAN == []  # not the tripped call, nor any later call of the turn
    assert len(model.requests) == 1  # no further model turn
    result = raised.value.result
    assert result.stop_reason == "guardrail" and "`halt` ends the run" in (result.error or "")
    assert raised.value.outcome is not None and raised.value.outcome.tool_call_id == "a"
    assert [o.kind for o in result.guardrails] == ["tripwire"] * 3
    assert [r.code for r in result.steps[0].results] == ["guardrail"] * 3


def test_a_suspending_tripwire_still_stops_the_later_calls() -> None:
    async def slow_halt(call: Call) -> Verdict:
        if call.arguments["text"] == "halt":
            await asyncio.sleep(0.2)  # the later calls start meanwhile, and wait their turn
            return Verdict.tripwire("stop")
        return Verdict.allow()

    calls = [
        ("note", {"text": "halt"}, "a"),
        ("note", {"text": "x"}, "b"),
        ("note", {"text": "y"}, "c"),
    ]
    model = ScriptedModel([ModelTurn(calls=calls), "never asked"])
    agent = Agent("Scribe", "You write.", model, [note], guardrails=[InputGuardrail(slow_halt)])
    with pytest.raises(GuardrailTripped):
        agent.run("Write.")
    assert RAN == [] and len(model.requests) == 1


def test_an_output_tripwire_cancels_the_running_calls() -> None:
    def trip(call: Call, result: object) -> Verdict:
        return Verdict.tripwire("a key leaked")

    guard = OutputGuardrail(trip, tools={"note"})
    calls = [("slow", {"text": "y"}, "c"), ("note", {"text": KEY}, "a")]
    model = ScriptedModel([ModelTurn(calls=calls), "never asked"])
    agent = Agent("Scribe", "You write.", model, [note, slow], guardrails=[guard])
    with pytest.raises(GuardrailTripped) as raised:
        agent.run("Write.")
    assert [f"note:{KEY}"] == RAN  # the slow call was cancelled, not finished
    assert len(model.requests) == 1
    results = raised.value.result.steps[0].results
    assert [r.code for r in results] == ["guardrail", "guardrail"]
    assert all(KEY not in r.to_json() for r in results)


def test_without_raising_the_result_says_guardrail() -> None:
    model = ScriptedModel([ModelTurn(calls=[("note", {"text": "halt"})]), "never asked"])
    agent = Agent(
        "Scribe", "You write.", model, [note], guardrails=[halt_on("halt")], raise_on_error=False
    )
    result = agent.run("Write.")
    assert result.stop_reason == "guardrail" and result.output is None and RAN == []
    assert not result.completed


def test_a_reject_answers_the_model() -> None:
    calls = [("note", {"text": "drop it"}, "a"), ("note", {"text": KEY}, "b")]
    model = ScriptedModel([ModelTurn(calls=calls), "done"])
    agent = Agent(
        "Scribe",
        "You write.",
        model,
        [note],
        guardrails=[InputGuardrail(no_drop), secret_scanner()],
    )
    result = agent.run("Write.")
    assert result.output == "done" and result.stop_reason == "answer"
    assert [f"note:{KEY}"] == RAN  # the rejected call did not run; the other did
    told = _tool_messages(model, 1)
    assert "dropping is not allowed" in told[0]
    assert "secret" in told[1] and all(KEY not in text for text in told)
    assert [(o.stage, o.kind) for o in result.guardrails] == [
        ("input", "reject"),
        ("output", "reject"),
    ]


def test_a_toolsets_guardrails_are_its_own() -> None:
    guarded = CatalogToolset(Registry([note])).guarded(InputGuardrail(no_drop))
    free = CatalogToolset(Registry([slow])).prefixed("free")
    calls = [("note", {"text": "drop"}, "a"), ("free_slow", {"text": "drop"}, "b")]
    model = ScriptedModel([ModelTurn(calls=calls), "done"])
    agent = Agent("Scribe", "You write.", model, [note, slow], toolsets=guarded + free)
    agent.run("Write.")
    told = _tool_messages(model, 1)
    assert "dropping is not allowed" in told[0] and told[1] == "drop"
    assert RAN == ["slow:drop"]


def test_the_log_keeps_the_outcome(tmp_path: Path) -> None:
    log = open_log(str(tmp_path / "log.sqlite3"))
    calls = [("note", {"text": "drop"}, "a"), ("note", {"text": KEY}, "b")]
    model = ScriptedModel([ModelTurn(calls=calls), "done"])
    agent = Agent(
        "Scribe",
        "You write.",
        model,
        [note],
        guardrails=[InputGuardrail(no_drop), secret_scanner()],
        log=log,
    )
    agent.run("Write.")
    records = {r.tool_call_id: r for r in log.query() if r.executor_type == "tool"}
    assert records["a"].error_code == "guardrail" and records["b"].error_code == "guardrail"
    assert "no_drop" in (records["a"].error_message or "")
    assert "secret_scanner" in (records["b"].error_message or "")
    assert records["a"].output == {
        "guardrail": {
            "guardrail": "no_drop",
            "stage": "input",
            "verdict": "reject",
            "message": "dropping is not allowed",
        }
    }
    assert records["b"].output["guardrail"]["stage"] == "output"
    assert KEY not in json.dumps([r.output for r in records.values()], default=str)


def test_a_raising_guardrail_does_not_escape_the_run() -> None:
    def broken(call: Call) -> Verdict:
        raise RuntimeError("bug in the check")

    model = ScriptedModel([ModelTurn(calls=[("note", {"text": "x"})]), "done"])
    agent = Agent("Scribe", "You write.", model, [note], guardrails=[InputGuardrail(broken)])
    result = agent.run("Write.")
    assert result.output == "done" and RAN == []
    assert "guardrail `broken` failed (RuntimeError)" in _tool_messages(model, 1)[0]
    with pytest.raises(TypeError):
        Agent("Scribe", "You write.", model, [note], guardrails=[broken])  # type: ignore[list-item]

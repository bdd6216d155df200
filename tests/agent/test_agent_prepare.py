"""``Agent(prepare=...)``: each step's tools changed for that step only (a description, the
schema's strictness, hidden), and the export cache still hit when nothing changed.

Each promise (its boundary), and the test that tries it:

- a change holds for its step only; the next step offers the tools as they are:
  ``test_prepare_changes_one_step_only``;
- a hidden tool is neither offered nor callable on that step (``not_found``):
  ``test_a_hidden_tool_cannot_be_called``;
- prepare returning the same definitions (the entries themselves, or equal copies) reuses
  the export (counted on the name map), and a changed one is exported anew:
  ``test_the_export_cache_is_hit_when_nothing_changed``;
- prepare returning something other than entries is a clear error:
  ``test_prepare_must_return_entries``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from toolrig import tool
from toolrig.agent import Agent, RunContext, ToolEntry
from toolrig.providers._names import NameMap
from toolrig.testing import ModelTurn, ScriptedModel


@tool
def note(text: str, tag: str | None = None) -> str:
    """Write a note."""
    return text


@tool
def erase(text: str) -> str:
    """Erase a note."""
    return text


def _offered(model: ScriptedModel, index: int) -> dict[str, dict[str, Any]]:
    return {t["function"]["name"]: t["function"] for t in model.requests[index].tools}


def on_step_two(ctx: RunContext[Any], entries: list[ToolEntry]) -> list[ToolEntry]:
    if ctx.step != 2:
        return entries
    return [
        dataclasses.replace(e, description="Write a short note.", strict=True)
        for e in entries
        if e.name != "erase"
    ]


def test_prepare_changes_one_step_only() -> None:
    model = ScriptedModel(
        [
            ModelTurn(calls=[("note", {"text": "a"})]),
            ModelTurn(calls=[("note", {"text": "b", "tag": None})]),
            ModelTurn(calls=[("note", {"text": "c"})]),
            "done",
        ]
    )
    agent = Agent("Scribe", "You write.", model, [note, erase], prepare=on_step_two)
    result = agent.run("Write.")
    assert result.output == "done"
    first, second, third = (_offered(model, i) for i in range(3))
    assert first["note"]["description"] == "Write a note." and "strict" not in first["note"]
    assert second["note"]["description"] == "Write a short note."
    assert second["note"]["strict"] is True and "erase" not in second
    assert second["note"]["parameters"]["additionalProperties"] is False  # rewritten strict
    assert third == first  # the next step: as the tools are
    assert [r.output for s in result.steps for r in s.results] == ["a", "b", "c"]


def test_a_hidden_tool_cannot_be_called() -> None:
    model = ScriptedModel([ModelTurn(calls=[("erase", {"text": "x"})]), "done"])
    hide = lambda ctx, entries: [e for e in entries if e.name != "erase"]  # noqa: E731
    agent = Agent("Scribe", "You write.", model, [note, erase], prepare=hide)
    result = agent.run("Write.")
    assert "erase" not in _offered(model, 0)
    assert result.steps[0].results[0].code == "not_found"


def _maps(agent: Agent[Any, Any]) -> list[NameMap]:
    """The name map offered at each step, as the agent's ``offer`` gives it."""
    seen: list[NameMap] = []
    offer = agent.offer

    def recording(entries: Any) -> NameMap:
        names = offer(entries)
        seen.append(names)
        return names

    agent.offer = recording  # type: ignore[method-assign]
    return seen


@pytest.mark.parametrize("same", ["identical", "equal copies"])
def test_the_export_cache_is_hit_when_nothing_changed(same: str) -> None:
    def prepare(ctx: RunContext[Any], entries: list[ToolEntry]) -> list[ToolEntry]:
        if same == "identical":
            return entries
        return [dataclasses.replace(e, description=None) for e in entries]

    script: list[Any] = [ModelTurn(calls=[("note", {"text": str(i)})]) for i in range(3)]
    model = ScriptedModel([*script, "done"])
    agent = Agent("Scribe", "You write.", model, [note, erase], prepare=prepare)
    maps = _maps(agent)
    agent.run("Write.")
    assert len(maps) == 4 and all(m is maps[0] for m in maps)
    assert (maps[0].built, maps[0].reused) == (1, 3)  # one export, then hits


def test_a_changed_definition_is_exported_anew() -> None:
    model = ScriptedModel([ModelTurn(calls=[("note", {"text": "a"})]), "done"])
    agent = Agent("Scribe", "You write.", model, [note, erase], prepare=on_step_two)
    maps = _maps(agent)
    agent.run("Write.")
    assert maps[0] is not maps[1] and maps[1].built == 1


def test_prepare_must_return_entries() -> None:
    model = ScriptedModel(["done"])
    agent = Agent("Scribe", "You write.", model, [note], prepare=lambda ctx, entries: ["note"])  # type: ignore[arg-type,list-item,return-value]
    with pytest.raises(TypeError, match="prepare must return a list of ToolEntry"):
        agent.run("Write.")

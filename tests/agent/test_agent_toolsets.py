"""Toolsets: per agent or per run, combine, filter (name, tag, annotation, a function of the
run), prefix, rename and disable with a reason; views over the catalogue, never copies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from agent_support import config

from llm_server import ScriptedLLM, Turn, tool_names, tool_results
from toolrig import ToolAnnotations, ToolDefinitionError, tool
from toolrig.agent import Agent, CatalogToolset, RunContext, ToolEntry
from toolrig.registry import Registry
from toolrig.testing import ModelTurn, ScriptedModel


@tool(tags=("read",), annotations=ToolAnnotations(read_only=True))
def search(query: str) -> str:
    """Search the notes."""
    return f"found {query}"


@tool(tags=("write",), annotations=ToolAnnotations(read_only=False, destructive=True))
def erase(note: str) -> str:
    """Erase a note."""
    return f"erased {note}"


@tool(tags=("read",), annotations=ToolAnnotations(read_only=True))
def stats() -> int:
    """Count the notes."""
    return 3


@dataclass
class User:
    admin: bool


def test_filters_prefixes_renames_and_disables_over_the_real_sdk() -> None:
    notes = Registry([search, erase, stats])
    archive = Registry([search])
    toolset = (
        CatalogToolset(notes).filter(tags={"read"}).renamed({"stats": "count_notes"})
        + CatalogToolset(archive).prefixed("archive")
        + CatalogToolset(notes).filter(names={"erase"}).disabled(reason="the notes are frozen")
    )

    def check(request: dict[str, Any]) -> Turn:
        assert sorted(tool_names(request)) == [
            "archive_search",
            "attempt_completion",
            "count_notes",
            "search",
        ]
        return Turn(
            calls=[
                ("archive_search", {"query": "q"}, "p"),
                ("count_notes", {}, "c"),
                ("erase", {"note": "n"}, "e"),
                ("stats", {}, "s"),
            ]
        )

    def results(request: dict[str, Any]) -> Turn:
        found = tool_results(request)
        assert found["p"] == ("found q", False) and found["c"] == ("3", False)
        assert found["e"][1] and "disabled: the notes are frozen" in found["e"][0]
        assert found["s"][1] and "not_found" in found["s"][0] and "count_notes" in found["s"][0]
        return Turn(text="ok")

    with ScriptedLLM([check, results]) as server:
        agent = Agent("Notes", "You keep notes.", config("openai", server), notes, toolsets=toolset)
        result = agent.run("Look around.")
    assert server.errors == [] and server.refusals == [] and result.output == "ok"
    assert notes.names() == ["search", "erase", "stats"]  # nothing added or copied
    assert result.steps[0].results[0].metadata is not None
    assert result.steps[0].results[0].metadata.tool == "search"


def test_a_run_replaces_the_toolset_and_filters_by_annotation_and_run_context() -> None:
    notes = Registry([search, erase, stats])

    def admins_only(ctx: RunContext[Any], entry: ToolEntry) -> bool:
        return bool(ctx.deps.admin) or entry.annotations.read_only is True

    model = ScriptedModel(["a", "b", "c"])
    agent = Agent("Notes", "You keep notes.", model, notes, deps_type=User)
    agent.run("x", deps=User(admin=False))
    agent.run("x", deps=User(admin=False), toolsets=agent.toolset.filter(where=admins_only))
    agent.run("x", toolsets=CatalogToolset(notes).filter(annotations={"destructive": True}))
    offered = [r.tool_names for r in model.requests]
    assert offered == [
        ["search", "erase", "stats", "attempt_completion"],
        ["search", "stats", "attempt_completion"],
        ["erase", "attempt_completion"],
    ]


def test_the_catalogue_is_read_live_each_turn() -> None:
    notes = Registry([search])
    model = ScriptedModel([ModelTurn(calls=[("search", {"query": "a"})]), "done"])
    agent = Agent("Notes", "You keep notes.", model, toolsets=CatalogToolset(notes).prefixed("n"))
    notes.add(stats)  # after the agent was built
    agent.run("x")
    assert model.requests[0].tool_names == ["n_search", "n_stats", "attempt_completion"]


def test_two_actions_under_one_name_are_refused_naming_both() -> None:
    notes = Registry([search])
    model = ScriptedModel(["never"])
    agent = Agent(
        "Notes", "You keep notes.", model, toolsets=CatalogToolset(notes) + CatalogToolset(notes)
    )
    with pytest.raises(ToolDefinitionError, match="both be exported as 'search'"):
        agent.run("x")
    with pytest.raises(ValueError, match="unknown annotation"):
        CatalogToolset(notes).filter(annotations={"readonly": True})
    with pytest.raises(ValueError, match="say why"):
        CatalogToolset(notes).disabled(reason=" ")
    with pytest.raises(ValueError, match="names must match"):
        CatalogToolset(notes).renamed({"search": "find things"})

"""Toolsets per agent and per run: views over catalogues that filter, prefix, rename, combine
and disable tools (with a reason the model reads); nothing is copied.

Run: python examples/agent_toolsets.py
"""

from __future__ import annotations

from toolrig import ToolAnnotations, tool
from toolrig.agent import Agent, CatalogToolset
from toolrig.registry import Registry
from toolrig.testing import ModelTurn, ScriptedModel


@tool(tags=("read",), annotations=ToolAnnotations(read_only=True))
def list_issues(repo: str) -> list[str]:
    """List a repository's open issues."""
    return ["#1 crash on start"]


@tool(tags=("write",), annotations=ToolAnnotations(read_only=False, destructive=True))
def close_issue(repo: str, number: int) -> str:
    """Close an issue."""
    return f"closed #{number}"


github = Registry([list_issues, close_issue])
gitlab = Registry([list_issues])
toolset = CatalogToolset(github).prefixed("gh") + CatalogToolset(gitlab).prefixed("gl").renamed(
    {"gl_list_issues": "gl_issues"}
)
model = ScriptedModel(
    [
        ModelTurn(calls=[("gh_close_issue", {"repo": "toolrig", "number": 1})]),
        "I may not close issues today.",
        "Two open issues.",
    ]
)
agent = Agent("Triage", "You triage issues.", model, toolsets=toolset)

# this run: read-only tools only, and closing is switched off with a reason
read_only = toolset.filter(annotations={"read_only": True}) + CatalogToolset(github).filter(
    names={"close_issue"}
).prefixed("gh").disabled(reason="closing is frozen during the release")
result = agent.run("Close the crash issue.", toolsets=read_only)
print("offered:", model.requests[0].tool_names)
print("answer to the call:", result.steps[0].results[0].to_text())
print(agent.run("How many open issues?").output, "| offered:", model.requests[-1].tool_names)
assert github.names() == ["list_issues", "close_issue"]  # the catalogue is untouched

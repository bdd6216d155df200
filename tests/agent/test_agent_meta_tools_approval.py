"""``call_tool`` from ``meta_tools(index, executor)`` must not step around the approval gate:
a call that reaches a destructive tool through it is held like a direct call.

The meta-tool finds the tool in the executor it was given and runs it through the pipeline
running ``call_tool`` itself (``ctx.run_tool``), where the agent's gate sits, whether
``meta_tools`` is bound to another executor or to the one the agent was given.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from file_tools import delete_file

from toolrig import ToolExecutor
from toolrig.agent import Agent, ApprovalPolicy
from toolrig.registry import Registry
from toolrig.search import SearchConfig, ToolIndex, meta_tools
from toolrig.testing import ModelTurn, ScriptedModel


def _agent_executor(bound: str) -> tuple[ToolExecutor, list[ToolExecutor]]:
    """The executor the agent is given, with ``search_tools``/``call_tool`` bound to another
    executor holding ``delete_file`` (``"other"``) or to that same executor (``"same"``)."""
    index = ToolIndex([delete_file.spec], config=SearchConfig(embedders=()))
    if bound == "other":
        inner = ToolExecutor([delete_file])
        return ToolExecutor(meta_tools(index, inner)), [inner]
    registry = Registry()
    registry.add(delete_file)
    executor = ToolExecutor(registry)
    for meta in meta_tools(index, executor):
        registry.add(meta)
    return executor, []


@pytest.mark.parametrize("bound", ["other", "same"])
def test_call_tool_on_a_destructive_tool_is_held(bound: str, tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("t", encoding="utf-8")
    executor, others = _agent_executor(bound)
    call = ("call_tool", {"name": "delete_file", "arguments": {"path": str(target)}}, "m1")
    model = ScriptedModel([ModelTurn(calls=[call]), "Done."])
    agent = Agent(
        "Cleaner", "You tidy.", model, executor, approval=ApprovalPolicy(destructive=True)
    )
    try:
        held = agent.run("Delete t.txt.")
        assert target.exists(), "the destructive tool ran with no approval"
        assert held.stop_reason == "approval"
        assert [p.tool_call_id for p in held.pending] == ["m1"]  # the id the person approves
        done = agent.run(session_id=held.session_id, approvals={"m1": True})
        assert done.output == "Done." and not target.exists()
    finally:
        executor.close()
        for other in others:
            other.close()

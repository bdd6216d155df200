"""The conformance tools, unchanged, run in-process by the agent: one definition, both worlds.

Under MCP their context reaches the client (tests in ``test_mcp_conformance.py``); here the
same ``ctx.elicit`` goes to the application's input hook, ``ctx.sample`` to the agent's own
model (a scripted one), ``ctx.log`` to Python's logging, and rich results reach the model in
its provider's form. Where nothing can answer, a tool fails at once with a clear code.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from toolrig import ToolExecutor
from toolrig.agent import Agent
from toolrig.core import Elicitation, Image, tool_interaction
from toolrig.registry import Catalog
from toolrig.testing import ModelTurn, ScriptedModel

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conformance_server.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("conformance_server_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_agent_runs_the_same_tools_with_its_hooks(
    example: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def approve(message: str, schema: Mapping[str, Any]) -> Elicitation:
        asked.append((message, dict(schema)))
        return Elicitation(action="accept", content={"username": "ada", "email": "a@x.org"})

    model = ScriptedModel(
        [
            ModelTurn(
                calls=[
                    ("test_elicitation", {"message": "Who are you?"}),
                    ("test_sampling", {"prompt": "Say hi"}),
                    ("test_tool_with_logging", {}),
                    ("test_image_content", {}),
                ]
            ),
            "hi from the scripted model",  # the answer to the tool's sampling request
            "All done.",
        ]
    )
    agent = Agent("conformance", "Runs the conformance tools.", model, Catalog(example.tools))

    async def main() -> Any:
        with tool_interaction(elicitor=approve):
            return await agent.arun("Run the tools.")

    with caplog.at_level(logging.INFO, logger="toolrig.tool"):
        result = asyncio.run(main())
    outputs = {r.metadata.tool: r for r in result.steps[0].results}
    assert outputs["test_elicitation"].output == (
        'User response: action=accept, content={"username": "ada", "email": "a@x.org"}'
    )
    assert asked == [("Who are you?", example.USER_SCHEMA)]
    assert outputs["test_sampling"].output == "LLM response: hi from the scripted model"
    sampling_request = model.requests[1].messages
    assert sampling_request[-1] == {"role": "user", "content": "Say hi"}
    assert isinstance(outputs["test_image_content"].output, Image)
    assert [r.getMessage() for r in caplog.records if r.name == "toolrig.tool"] == [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    # the model read the image as a notice (Chat Completions carry no images in tool results)
    tool_messages = [m for m in model.requests[2].messages if m["role"] == "tool"]
    assert any("[image: image/png" in m["content"] for m in tool_messages)
    assert result.output == "All done."


def test_without_hooks_a_tool_gets_a_clear_error_at_once(example: ModuleType) -> None:
    with ToolExecutor(Catalog(example.tools)) as executor:
        elicited = executor.execute_sync("test_elicitation", {"message": "Anyone?"})
        sampled = executor.execute_sync("test_sampling", {"prompt": "hello"})
    assert elicited.code == "permission_denied"
    assert "no one can be asked" in elicited.error.message  # type: ignore[union-attr]
    assert sampled.code == "not_supported"
    assert sampled.error is not None and sampled.error.hint
    assert elicited.metadata is not None and elicited.metadata.duration_ms < 5000  # no hang


def test_the_agent_answers_elicitation_with_its_own_elicitor(example: ModuleType) -> None:
    asked: list[str] = []

    async def confirm(message: str, schema: Mapping[str, Any]) -> Elicitation:
        asked.append(message)
        return Elicitation(action="decline")

    model = ScriptedModel(
        [ModelTurn(calls=[("test_elicitation", {"message": "Delete it?"})]), "Declined."]
    )
    agent = Agent("c", "Runs tools.", model, Catalog(example.tools), elicitor=confirm)
    result = agent.run("Run it.")
    (answer,) = result.steps[0].results
    assert asked == ["Delete it?"]
    assert answer.success and "action=decline" in str(answer.output)
    # outside a run, nothing answers: the same tool fails at once
    with ToolExecutor(Catalog(example.tools)) as executor:
        alone = executor.execute_sync("test_elicitation", {"message": "Delete it?"})
    assert alone.code == "permission_denied" and asked == ["Delete it?"]

"""Typed output, per-run deps, and failed runs: the answer is validated against
``output_type`` with one precise retry; ``deps`` reach the tools of each run; a failed run
raises ``AgentRunError`` unless ``raise_on_error=False``; the result is typed for mypy."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agent_support import ROOT, config
from pydantic import BaseModel

from llm_server import ScriptedLLM, Turn, last_user_text
from toolrig import ToolContext, ToolExecutor, tool
from toolrig.agent import Agent, AgentRunError
from toolrig.testing import ModelTurn, ScriptedModel


class City(BaseModel):
    name: str
    population: int


@dataclass
class Point:
    x: float
    y: float


@dataclass
class User:
    name: str


@tool
async def whoami(ctx: ToolContext[User]) -> str:
    """The name of the user asking."""
    await asyncio.sleep(0.05)  # let the two runs below overlap
    return ctx.deps.name


@tool
def whoami_sync(ctx: ToolContext[User]) -> str:
    """The name of the user asking (on a worker thread)."""
    return ctx.deps.name


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic"])
def test_typed_output_with_one_precise_retry(provider: str) -> None:
    def retried(request: dict[str, Any]) -> Turn:
        last = request.get("messages", request.get("input"))[-1]
        assert last["role"] == "user", last
        text = last_user_text(request)
        assert "at `population`: Input should be a valid integer" in text, text
        assert 'received "many"' in text, text
        assert "at `name`: required, but missing" in text, text
        return Turn(text='```json\n{"name": "Oslo", "population": 709000}\n```')

    with ScriptedLLM([Turn(text='{"population": "many"}'), retried]) as server:
        agent = Agent("Geo", "You know cities.", config(provider, server), output_type=City)
        result = agent.run("Biggest city in Norway?")
    assert server.errors == [] and server.refusals == []
    assert result.output == City(name="Oslo", population=709000)
    first = server.requests[0]
    system = {
        "openai": lambda: first["messages"][0]["content"],
        "openai-responses": lambda: first["instructions"],
        "anthropic": lambda: first["system"],
    }[provider]()
    assert '"population"' in system and "JSON Schema" in system


def test_a_second_mismatch_fails_the_run_and_the_error_carries_the_result() -> None:
    model = ScriptedModel(["not json", ModelTurn(output={"x": 1})])
    agent = Agent("Geo", "You draw.", model, output_type=Point)
    with pytest.raises(AgentRunError, match="does not match the output type") as caught:
        agent.run("Where?")
    result = caught.value.result
    assert result.stop_reason == "error" and result.output is None and len(result.steps) == 2
    model = ScriptedModel(["not json", ModelTurn(output={"x": 1})])
    quiet = Agent("Geo", "You draw.", model, output_type=Point, raise_on_error=False)
    assert quiet.run("Where?").stop_reason == "error"


def test_dataclass_and_scalar_outputs_and_attempt_completion() -> None:
    model = ScriptedModel([ModelTurn(output={"x": 1, "y": 2.5})])
    assert Agent("Geo", "You draw.", model, output_type=Point).run("Where?").output == Point(
        x=1, y=2.5
    )
    model = ScriptedModel([ModelTurn(calls=[("attempt_completion", {"result": "42"})])])
    result = Agent("Calc", "You count.", model, output_type=int).run("How many?")
    assert result.output == 42 and result.stop_reason == "completion"


def test_a_failed_run_raises_by_default_and_returns_on_request() -> None:
    with ScriptedLLM([]) as server:  # answers 500 to everything
        agent = Agent("Helper", "You help.", config("openai", server))
        with pytest.raises(AgentRunError, match="InternalServerError") as caught:
            agent.run("Anything?")
        assert caught.value.result.stop_reason == "error"
        result = agent.run("Anything?", raise_on_error=False)
    assert result.stop_reason == "error" and "InternalServerError" in (result.error or "")


def test_deps_reach_the_tools_of_each_run() -> None:
    def model() -> ScriptedModel:
        return ScriptedModel([ModelTurn(calls=[("whoami", {}), ("whoami_sync", {})]), "done"])

    async def both() -> list[Any]:
        ann = Agent("A", "You help.", model(), [whoami, whoami_sync], deps_type=User)
        bob = Agent("A", "You help.", model(), ann.executor, deps_type=User)
        return list(
            await asyncio.gather(
                ann.arun("who?", deps=User("ann")), bob.arun("who?", deps=User("bob"))
            )
        )

    first, second = asyncio.run(both())
    assert [r.output for r in first.steps[0].results] == ["ann", "ann"]
    assert [r.output for r in second.steps[0].results] == ["bob", "bob"]
    outside = ToolExecutor([whoami_sync]).execute_sync("whoami_sync")
    assert outside.code == "execution_error"  # no run, no deps: ctx.deps is None


SAMPLE = """\
from dataclasses import dataclass
from pydantic import BaseModel
from toolrig.agent import Agent
from toolrig.testing import ScriptedModel


class City(BaseModel):
    name: str


@dataclass
class User:
    admin: bool


agent = Agent("a", "b", ScriptedModel([]), output_type=City, deps_type=User)
result = agent.run("x", deps=User(admin=True))
city: City | None = result.output
text: str | None = Agent("a", "b", ScriptedModel([])).run("x").output
wrong: int | None = result.output  # error: a City
agent.run("x", deps=3)  # error: not a User
"""


def test_mypy_types_the_output_and_the_deps(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(SAMPLE, encoding="utf-8")
    done = subprocess.run(  # the project's own cache: toolrig is checked once, not per run
        [sys.executable, "-m", "mypy", "--strict", str(sample)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "MYPY_FORCE_COLOR": "0"},
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert [line.split(":")[1] for line in lines] == ["20", "21"], done.stdout
    assert 'has type "City | None", variable has type "int | None"' in lines[0]
    assert 'incompatible type "int"; expected "User | None"' in lines[1]

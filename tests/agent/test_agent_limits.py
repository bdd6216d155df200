"""Run limits: a run stops cleanly at a budget of tool calls, tokens or cost, says which limit
stopped it, leaves a conversation the API accepts, and a later run of the session goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolrig import tool
from toolrig.agent import Agent, ModelPrice, RunLimits, Usage
from toolrig.storage import SQLiteExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel

RAN: list[int] = []


@tool
def step(n: int) -> int:
    """Do step n."""
    RAN.append(n)
    return n


def _turn(*numbers: int, tokens: int = 10) -> ModelTurn:
    return ModelTurn(
        calls=[("step", {"n": n}) for n in numbers],
        usage=Usage(input_tokens=tokens, output_tokens=tokens),
    )


async def test_a_turn_over_the_tool_call_budget_is_not_run_and_the_session_resumes(
    tmp_path: Path,
) -> None:
    RAN.clear()
    log = SQLiteExecutionLog(tmp_path / "log.db")
    # the model asks 2 calls, then 2 more: the second turn would make 4 of a budget of 3
    model = ScriptedModel([_turn(1, 2), _turn(3, 4), _turn(3, 4), "done"])
    agent: Agent[None, str] = Agent(
        "worker", "You do steps.", model, [step], limits=RunLimits(tool_calls=3), log=log
    )
    first = await agent.arun("do steps 1 to 4", raise_on_error=False)
    assert first.stop_reason == "usage_limit"
    assert first.error is not None and "tool_calls limit (3)" in first.error
    # stopped before the turn that would pass the budget ran anything (a turn's calls run at once)
    assert sorted(RAN) == [1, 2]
    assert not first.completed and first.output is None

    agent.limits = RunLimits(tool_calls=10)  # a larger budget; the session goes on
    second = await agent.arun(session_id=first.session_id)
    assert second.stop_reason == "answer" and second.output == "done"
    assert sorted(RAN) == [1, 2, 3, 4]
    # the API would have refused a history with unanswered calls (ScriptedModel checks it)
    assert model.remaining == 0
    await agent.aclose()
    log.close()


@pytest.mark.parametrize(
    ("limits", "named"),
    [
        (RunLimits(total_tokens=40), "total_tokens limit (40)"),
        (RunLimits(output_tokens=20), "output_tokens limit (20)"),
        (
            RunLimits(
                cost=0.004,
                price=ModelPrice(input_per_million=100.0, output_per_million=100.0),
            ),
            "cost limit (0.004)",
        ),
    ],
)
async def test_tokens_and_cost_stop_before_the_next_request(limits: RunLimits, named: str) -> None:
    RAN.clear()
    # each turn reports 10 + 10 tokens (0.002 at 100 per million): the third request is not made
    model = ScriptedModel([_turn(1), _turn(2), _turn(3), "done"])
    agent: Agent[None, str] = Agent("worker", "You do steps.", model, [step], limits=limits)
    result = await agent.arun("go", raise_on_error=False)
    assert result.stop_reason == "usage_limit"
    assert result.error is not None and named in result.error
    assert len(model.requests) == 2 and sorted(RAN) == [1, 2]
    assert result.usage.total_tokens == 40
    if limits.price is None:
        assert result.cost is None  # no price given: no cost known
    else:
        assert result.cost == pytest.approx(0.004)  # 40 tokens at 100 per million
    await agent.aclose()


async def test_the_result_gives_the_cost_spent_at_the_price_given() -> None:
    """A price without a cost limit still prices the run: ``result.cost``."""
    model = ScriptedModel([_turn(1), "done"])
    price = ModelPrice(input_per_million=3.0, output_per_million=15.0)
    agent: Agent[None, str] = Agent(
        "worker", "You do steps.", model, [step], limits=RunLimits(price=price)
    )
    result = await agent.arun("go")
    usage = result.usage
    assert usage.input_tokens > 0 and usage.output_tokens > 0
    expected = (usage.input_tokens * 3.0 + usage.output_tokens * 15.0) / 1_000_000
    assert result.cost == pytest.approx(expected)
    await agent.aclose()


def test_limits_are_checked_when_given() -> None:
    with pytest.raises(ValueError, match="cannot be negative"):
        RunLimits(tool_calls=-1)
    with pytest.raises(ValueError, match="needs the model's price"):
        RunLimits(cost=1.0)

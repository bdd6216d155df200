"""Run limits and fallback models, boundary by boundary (docs/agent/limits.md).

The promise: a turn whose calls would pass the ``tool_calls`` budget is neither run nor kept,
and one that reaches it exactly runs; token and cost limits stop the run before the next
request once reached (``>=``), never before a request that is still under them; every limit
names itself in ``error`` with ``stop_reason == "usage_limit"`` and does not raise;
``attempt_completion`` is not counted; each run has its own budget; limits are checked when
given. `FallbackModel` sends each request to its models in order until one answers, passing
over a model that raises or does not answer within ``timeout``; ``fallback_on`` narrows which
errors move on; when every model fails the run fails naming each.

| promise | boundary | test |
|---|---|---|
| `tool_calls` | a budget met exactly, in one turn or two: run | `..._tool_calls` |
| `tool_calls` | one call past it (one turn, or the second): not run; budget 0 | `..._tool_calls` |
| not counted | `attempt_completion` under a budget of 0 still ends the run | `..._completion` |
| tokens, cost | each limit one above what two turns spend: the third request made | `..._reached` |
| tokens, cost | each limit equal to it: not made (`>=`), the limit named | `..._reached` |
| zero | each token limit 0: stopped before the first request | `..._first_request` |
| own budget | a second run on the same agent counts from zero | `..._own_budget` |
| checked | each field negative (named); 0 allowed; `cost` without a price | `..._checked` |
| fallback | the first raises: the second answers; `model` names it | `..._moves_on` |
| `timeout` | late: passed over, whatever `fallback_on`; within it: answers | `test_timeout` |
| `fallback_on` | outside the rule: the run's error, the second never asked | `..._failing` |
| all fail | each model named with its error | `..._failing` |

Breaks tried (each made the named test fail, then was undone): `before_calls` with
``made + asked < tool_calls`` (the exact budget refused: ``..._tool_calls``); `before_request`
with ``used > limit`` (``..._reached``); `FallbackModel` moving on from any exception,
ignoring ``fallback_on`` (``..._failing``); ``fallback_on`` without ``TimeoutError`` added
(``test_timeout``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolrig import tool
from toolrig.agent import Agent, FallbackModel, ModelPrice, RunLimits, Usage
from toolrig.testing import FunctionModel, ModelTurn, ScriptedModel

RAN: list[int] = []


@tool
def step(n: int) -> int:
    """Do step n."""
    RAN.append(n)
    return n


def _turn(*numbers: int) -> ModelTurn:
    return ModelTurn(
        calls=[("step", {"n": n}) for n in numbers],
        usage=Usage(input_tokens=10, output_tokens=5),
    )


async def _run(model: Any, limits: RunLimits | None) -> Any:
    agent: Agent[None, str] = Agent("worker", "You do steps.", model, [step], limits=limits)
    try:
        return await agent.arun("go", raise_on_error=False)
    finally:
        await agent.aclose()


@pytest.mark.parametrize(
    ("budget", "turns", "ran", "stopped"),
    [
        (2, [(1, 2)], [1, 2], False),  # met exactly
        (2, [(1,), (2,)], [1, 2], False),  # met exactly over two turns
        (2, [(1, 2, 3)], [], True),  # one past, in one turn
        (2, [(1,), (2, 3)], [1], True),  # one past, on the second turn
        (0, [(1,)], [], True),
    ],
)
async def test_tool_calls(
    budget: int, turns: list[tuple[int, ...]], ran: list[int], stopped: bool
) -> None:
    RAN.clear()
    model = ScriptedModel([*(_turn(*t) for t in turns), "done"])
    result = await _run(model, RunLimits(tool_calls=budget))
    assert sorted(RAN) == ran
    if stopped:
        assert result.stop_reason == "usage_limit" and result.output is None
        assert f"tool_calls limit ({budget})" in result.error
    else:
        assert result.stop_reason == "answer" and result.output == "done"


async def test_attempt_completion_is_not_counted() -> None:
    RAN.clear()
    model = ScriptedModel([ModelTurn(calls=[("attempt_completion", {"result": "all done"})])])
    result = await _run(model, RunLimits(tool_calls=0))
    assert result.error is None and RAN == []
    assert result.stop_reason != "usage_limit"


# two turns spend 20 input, 10 output, 30 total tokens; at 1,000 per million: 0.03
SPENT: dict[str, Any] = {"input_tokens": 20, "output_tokens": 10, "total_tokens": 30}
PRICE = ModelPrice(input_per_million=1000.0, output_per_million=1000.0)


@pytest.mark.parametrize("field", [*SPENT, "cost"])
@pytest.mark.parametrize("offset", [1, 0])
async def test_token_and_cost_limits_stop_once_reached(field: str, offset: int) -> None:
    """``offset`` 1: the limit is one unit above what two turns spend, so the third request is
    made; 0: the limit equals it, so the run stops before the third request."""
    if field == "cost":
        limits = RunLimits(cost=0.03 + offset * 0.001, price=PRICE)
    else:
        limits = RunLimits(**{field: SPENT[field] + offset})
    RAN.clear()
    model = ScriptedModel([_turn(1), _turn(2), _turn(3), "done"])
    result = await _run(model, limits)
    # offset 1: the third request is made (then its answer passes the limit: no fourth)
    assert len(model.requests) == 2 + offset and result.stop_reason == "usage_limit"
    assert f"{field} limit (" in result.error and RAN[-1:] != [4]


@pytest.mark.parametrize("field", list(SPENT))
async def test_a_zero_token_limit_stops_before_the_first_request(field: str) -> None:
    model = ScriptedModel(["never asked"])
    result = await _run(model, RunLimits(**{field: 0}))  # type: ignore[arg-type]
    assert model.requests == [] and result.stop_reason == "usage_limit"


async def test_each_run_has_its_own_budget() -> None:
    RAN.clear()
    model = ScriptedModel([_turn(1, 2), "first", _turn(3, 4), "second"])
    agent: Agent[None, str] = Agent(
        "worker", "You do steps.", model, [step], limits=RunLimits(tool_calls=2)
    )
    first = await agent.arun("go", raise_on_error=False)
    second = await agent.arun("again", raise_on_error=False)
    await agent.aclose()
    assert (first.output, second.output) == ("first", "second")
    assert sorted(RAN) == [1, 2, 3, 4]


@pytest.mark.parametrize("field", ["tool_calls", *SPENT, "cost"])
def test_limits_are_checked(field: str) -> None:
    price: dict[str, Any] = {"price": PRICE} if field == "cost" else {}
    with pytest.raises(ValueError, match=f"{field} cannot be negative"):
        RunLimits(**{field: -1}, **price)  # type: ignore[arg-type]
    RunLimits(**{field: 0}, **price)  # type: ignore[arg-type]  # zero is a budget, not an error
    with pytest.raises(ValueError, match="needs the model's price"):
        RunLimits(cost=0)


def _raising(error: Exception) -> FunctionModel:
    asked: list[int] = []

    def answer(messages: Any, tools: Any) -> str:
        asked.append(1)
        raise error

    model = FunctionModel(answer, model=f"raises-{type(error).__name__}")
    model.asked = asked  # type: ignore[attr-defined]
    return model


async def test_a_raising_model_moves_on() -> None:
    second = ScriptedModel(["from the second"], model="second")
    model = FallbackModel(_raising(ConnectionError("503")), second)
    result = await _run(model, None)
    assert result.output == "from the second" and model.model == "second"


def _slow(seconds: float, text: str) -> FunctionModel:
    async def answer(messages: Any, tools: Any) -> str:
        await asyncio.sleep(seconds)
        return text

    return FunctionModel(answer, model=f"slow-{text}")


async def test_timeout() -> None:
    late = FallbackModel(_slow(5.0, "late"), ScriptedModel(["quick"]), timeout=0.2)
    assert (await _run(late, None)).output == "quick"
    narrowed = FallbackModel(
        _slow(5.0, "late"), ScriptedModel(["quick"]), timeout=0.2, fallback_on=(KeyError,)
    )
    assert (await _run(narrowed, None)).output == "quick"  # a rule never drops the timeout
    within = FallbackModel(_slow(0.0, "first"), ScriptedModel(["unused"]), timeout=30)
    assert (await _run(within, None)).output == "first"


async def test_fallback_rule_and_every_model_failing() -> None:
    first = _raising(ValueError("bad request"))
    second = ScriptedModel(["never"], model="second")
    narrowed = FallbackModel(first, second, fallback_on=(ConnectionError,))
    result = await _run(narrowed, None)
    assert result.stop_reason == "error" and "bad request" in result.error
    assert second.requests == []
    both = FallbackModel(_raising(ConnectionError("one down")), _raising(TimeoutError("two")))
    result = await _run(both, None)
    assert result.stop_reason == "error"
    assert "raises-ConnectionError" in result.error and "one down" in result.error
    assert "raises-TimeoutError" in result.error

"""The edges of a run's limits and a model's price, at the values themselves (the run-level
behaviour is in test_agent_limits.py).

| promise | boundary | test |
|---|---|---|
| a price is never negative | each side alone negative; zero allowed | ``test_a_price_...`` |
| a limit is never negative | each alone negative, named with its value; 0 allowed | ``test_each`` |
| a cost limit needs a price | the exact message; a price alone is fine | ``test_a_cost_...`` |
| requests stop at a limit | one under: allowed; at it: refused, named | ``test_requests_...`` |
| calls stop before passing it | exactly reaching it runs; one more does not | ``test_calls_...`` |
"""

from __future__ import annotations

import pytest

from toolrig.agent import ModelPrice, RunLimits, Usage

FIELDS = ("tool_calls", "input_tokens", "output_tokens", "total_tokens", "cost")


@pytest.mark.parametrize("side", ["input_per_million", "output_per_million"])
def test_a_price_is_refused_when_either_side_is_negative(side: str) -> None:
    prices = {"input_per_million": 0.0, "output_per_million": 0.0}
    ModelPrice(**prices)  # zero is a price (a free model)
    with pytest.raises(ValueError, match=r"^ModelPrice: prices cannot be negative$"):
        ModelPrice(**{**prices, side: -0.5})
    assert ModelPrice(**{**prices, side: 0.5}).cost(Usage(input_tokens=2, output_tokens=2)) == 1e-6


@pytest.mark.parametrize("name", FIELDS)
def test_each_limit_is_refused_negative_and_allowed_at_zero(name: str) -> None:
    price = ModelPrice(input_per_million=1, output_per_million=1)
    assert getattr(RunLimits(**{name: 0}, price=price), name) == 0
    with pytest.raises(ValueError, match="cannot be negative") as raised:
        RunLimits(**{name: -1}, price=price)
    assert str(raised.value) == f"RunLimits: {name} cannot be negative (got -1)"


def test_a_cost_limit_needs_a_price_and_a_price_alone_is_fine() -> None:
    with pytest.raises(ValueError, match="needs the model's price") as raised:
        RunLimits(cost=1.0)
    assert str(raised.value) == (
        "RunLimits: a cost limit needs the model's price: "
        "price=ModelPrice(input_per_million=..., output_per_million=...)"
    )
    alone = RunLimits(price=ModelPrice(input_per_million=1e6, output_per_million=1e6))
    assert alone.before_request(Usage(input_tokens=10**9)) is None


def test_requests_stop_at_each_limit_not_before() -> None:
    limits = RunLimits(input_tokens=10, output_tokens=20, total_tokens=25)
    assert limits.before_request(Usage(input_tokens=9, output_tokens=15)) is None
    assert limits.before_request(Usage(input_tokens=10)) == (
        "the input_tokens limit (10) is reached: 10 spent"
    )
    assert limits.before_request(Usage(output_tokens=20)) == (
        "the output_tokens limit (20) is reached: 20 spent"
    )
    assert limits.before_request(Usage(input_tokens=9, output_tokens=16)) == (
        "the total_tokens limit (25) is reached: 25 spent"
    )
    priced = RunLimits(cost=2.0, price=ModelPrice(input_per_million=1e6, output_per_million=0))
    assert priced.before_request(Usage(input_tokens=1, output_tokens=100)) is None
    assert priced.before_request(Usage(input_tokens=2)) == (
        "the cost limit (2) is reached: 2 spent"
    )


def test_calls_may_reach_the_limit_exactly_but_not_pass_it() -> None:
    limits = RunLimits(tool_calls=3)
    assert limits.before_calls(1, 2) is None
    assert limits.before_calls(0, 3) is None
    assert limits.before_calls(2, 2) == (
        "the tool_calls limit (3) would be passed: 2 made, 2 more asked "
        "(the turn asking them was not run)"
    )
    assert RunLimits().before_calls(10**6, 10**6) is None
    assert RunLimits(tool_calls=0).before_calls(0, 0) is None
    assert RunLimits(tool_calls=0).before_calls(0, 1) is not None

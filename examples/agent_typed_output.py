"""Typed output and per-run dependencies: the answer is checked against a pydantic model (one
precise retry when it does not match) and each run hands its own ``deps`` to the tools.

Run: python examples/agent_typed_output.py
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from toolrig import ToolContext, tool
from toolrig.agent import Agent
from toolrig.testing import ModelTurn, ScriptedModel


class Forecast(BaseModel):
    city: str
    celsius: float


@dataclass
class Deps:
    units: str


@tool
def temperature(city: str, ctx: ToolContext[Deps]) -> str:
    """Today's temperature in a city."""
    return f"21.5 {ctx.deps.units}"


model = ScriptedModel(
    [
        ModelTurn(calls=[("temperature", {"city": "Lyon"})]),
        ModelTurn(text='{"city": "Lyon", "celsius": "warm"}'),  # not a number: retried once
        ModelTurn(output=Forecast(city="Lyon", celsius=21.5)),
    ]
)
agent = Agent(
    "Weather", "You report the weather.", model, [temperature], output_type=Forecast, deps_type=Deps
)
result = agent.run("How warm is Lyon?", deps=Deps(units="°C"))
forecast: Forecast | None = result.output
print(forecast, "| tool said:", result.steps[0].results[0].output)
print("retry message:", model.requests[2].messages[-1]["content"].splitlines()[1])
assert forecast == Forecast(city="Lyon", celsius=21.5)

"""Run limits: a budget of tool calls, tokens or cost that stops a run cleanly.

A run checks its budget while it works, not after: before each model request (tokens and cost
spent so far) and before it runs a turn's calls (the calls that turn would add). A turn whose
calls would go over the budget is not run and not kept, so the stored conversation stays valid
and a later run of the same session (with a larger budget) asks the model again from there.
The number of model turns is ``Agent(max_steps=...)``, the budget that already exists.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolrig.agent._client import Usage

__all__ = ["ModelPrice", "RunLimits"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelPrice:
    """What a model costs, per million tokens, in the currency the cost limit is given in."""

    input_per_million: float
    output_per_million: float

    def __post_init__(self) -> None:
        if self.input_per_million < 0 or self.output_per_million < 0:
            raise ValueError("ModelPrice: prices cannot be negative")

    def cost(self, usage: Usage) -> float:
        """The cost of ``usage``."""
        return (
            usage.input_tokens * self.input_per_million
            + usage.output_tokens * self.output_per_million
        ) / 1_000_000


@dataclass(frozen=True, slots=True, kw_only=True)
class RunLimits:
    """The most one run may spend; ``None`` leaves a measure unlimited.

    ``tool_calls``: calls run (``attempt_completion`` not counted). ``input_tokens``,
    ``output_tokens``, ``total_tokens``: tokens the model reported. ``cost``: spent according to
    ``price`` (required with ``cost``). A run that reaches one stops with
    ``stop_reason="usage_limit"`` and an error naming the limit; continue it with
    ``agent.run(session_id=result.session_id)`` after raising the limit.
    """

    tool_calls: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cost: float | None = None
    price: ModelPrice | None = None

    def __post_init__(self) -> None:
        for name in ("tool_calls", "input_tokens", "output_tokens", "total_tokens", "cost"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"RunLimits: {name} cannot be negative (got {value})")
        if self.cost is not None and self.price is None:
            raise ValueError(
                "RunLimits: a cost limit needs the model's price: "
                "price=ModelPrice(input_per_million=..., output_per_million=...)"
            )

    def before_request(self, usage: Usage) -> str | None:
        """Why no further model request may be made after spending ``usage``, or ``None``."""
        for name, used in (
            ("input_tokens", usage.input_tokens),
            ("output_tokens", usage.output_tokens),
            ("total_tokens", usage.total_tokens),
        ):
            limit = getattr(self, name)
            if limit is not None and used >= limit:
                return f"the {name} limit ({limit}) is reached: {used} spent"
        if self.cost is not None and self.price is not None:
            cost = self.price.cost(usage)
            if cost >= self.cost:
                return f"the cost limit ({self.cost:g}) is reached: {cost:.6g} spent"
        return None

    def before_calls(self, made: int, asked: int) -> str | None:
        """Why ``asked`` more calls may not run after ``made``, or ``None``."""
        if self.tool_calls is None or made + asked <= self.tool_calls:
            return None
        return (
            f"the tool_calls limit ({self.tool_calls}) would be passed: {made} made, "
            f"{asked} more asked (the turn asking them was not run)"
        )

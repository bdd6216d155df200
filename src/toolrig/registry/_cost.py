"""Cost estimates: ``base_cost + per_item_cost x items`` per call, summed over a plan."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolrig.core.model._cost import count_items, estimate_spec_cost

__all__ = ["PlanCost", "Step", "count_items", "estimate_spec_cost"]

Step = str | tuple[str, Mapping[str, Any] | None] | Mapping[str, Any]
"""A plan step: a tool name, ``(name, params)``, or ``{"tool": name, "params": {...}}``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanCost:
    """The estimated cost of a plan: the total and each step's share, in order."""

    total: float
    steps: tuple[tuple[str, float], ...]
    unit: str = "USD"

    def __float__(self) -> float:
        return self.total


def split_step(step: Step) -> tuple[str, Mapping[str, Any] | None]:
    """``(call name, params)`` of a plan step in any of its accepted shapes."""
    if isinstance(step, str):
        return step, None
    if isinstance(step, Mapping):
        name = step.get("tool") or step.get("name")
        if not isinstance(name, str):
            raise ValueError(f"plan step {step!r} names no tool (`tool` key)")
        params = step.get("params", step.get("arguments"))
        return name, params
    name, params = step
    return name, params


def plan_cost(steps: Iterable[tuple[str, float]], unit: str = "USD") -> PlanCost:
    """Sum step costs into a :class:`PlanCost`."""
    items = tuple(steps)
    return PlanCost(total=sum(c for _, c in items), steps=items, unit=unit)

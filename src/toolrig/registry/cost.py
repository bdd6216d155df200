"""Cost estimates: ``base_cost + per_item_cost x items`` per call, summed over a plan."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolrig.core.spec import ToolSpec

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


def count_items(spec: ToolSpec, action: str | None, params: Mapping[str, Any] | None) -> int:
    """The size of the first array parameter given (declaration order), else 0."""
    if not params:
        return 0
    act = spec.actions.get(action or spec.name) or next(iter(spec.actions.values()))
    for name, schema in (act.parameters.get("properties") or {}).items():
        value = params.get(name)
        if isinstance(value, list | tuple) and _is_array(schema):
            return len(value)
    for value in params.values():  # undeclared arrays still count (free-form parameters)
        if isinstance(value, list | tuple):
            return len(value)
    return 0


def _is_array(schema: Any) -> bool:
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def estimate_spec_cost(
    spec: ToolSpec, params: Mapping[str, Any] | None = None, action: str | None = None
) -> float:
    """One call's estimated cost; tools without a declared cost cost 0."""
    if spec.cost is None:
        return 0.0
    return spec.cost.base_cost + spec.cost.per_item_cost * count_items(spec, action, params)


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

"""What one call costs: ``base_cost + per_item_cost x items`` from a tool's declared cost."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolrig.core.model._spec import ToolSpec

__all__ = ["count_items", "estimate_spec_cost"]


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

"""Fill in the ``default`` of properties a call left out, as a JSON Schema declares them.

JSON Schema only annotates defaults; a tool applies them, so a function defined from a schema
receives every parameter that has one. A default is filled in where it is unambiguous: in
``properties`` of the object itself, of the schemas it combines with ``allOf`` and of local
``$ref`` targets, and inside present values through ``properties``, ``items`` and
``prefixItems`` (not inside embedded resources with their own ``$id``). Defaults inside
``anyOf``/``oneOf`` branches and conditionals are not, since which branch applies is a matter
of interpretation.

The plan of what to fill is built once per schema; a call then costs a dict merge when only
top-level scalar defaults exist, and nothing more than a copy when there are none. Mutable
defaults are copied for each call, so no call sees another's changes. The caller's arguments
are never modified.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from toolrig.core.schema._argument_errors import resolve

__all__ = ["Defaults"]

_MAX_DEPTH: Final = 64
_IMMUTABLE: Final = (str, int, float, bool, type(None))


class _Plan:
    """What to fill at one place of the arguments."""

    __slots__ = ("defaults", "items", "prefix", "props")

    def __init__(self) -> None:
        self.defaults: dict[str, Any] = {}
        self.props: dict[str, _Plan] = {}
        self.items: _Plan | None = None
        self.prefix: list[_Plan | None] = []

    def empty(self) -> bool:
        return not (self.defaults or self.props or self.items or any(self.prefix))

    def fill(self, value: Any, depth: int) -> Any:
        """``value`` with defaults filled in (a copy where anything changed)."""
        if depth > _MAX_DEPTH:
            return value
        if isinstance(value, dict):
            out: dict[str, Any] | None = None
            for name, default in self.defaults.items():
                if name not in value:
                    out = dict(value) if out is None else out
                    out[name] = default if isinstance(default, _IMMUTABLE) else _copy(default)
            for name, plan in self.props.items():
                if name in value:
                    new = plan.fill(value[name], depth + 1)
                    if new is not value[name]:
                        out = dict(value) if out is None else out
                        out[name] = new
            return value if out is None else out
        if isinstance(value, list) and (self.items is not None or self.prefix):
            filled = [self._item(i, v, depth) for i, v in enumerate(value)]
            changed = any(a is not b for a, b in zip(filled, value, strict=True))
            return filled if changed else value
        return value

    def _item(self, index: int, value: Any, depth: int) -> Any:
        plan = self.prefix[index] if index < len(self.prefix) else self.items
        return value if plan is None else plan.fill(value, depth + 1)


class Defaults:
    """The defaults of one parameter schema, ready to fill into validated arguments."""

    __slots__ = ("_flat", "_plan")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        plan = _Builder(schema).plan(schema, 0)
        self._plan = None if plan is None or plan.empty() else plan
        self._flat: dict[str, Any] | None = None
        if (
            plan is not None
            and self._plan is not None
            and not plan.props
            and all(isinstance(v, _IMMUTABLE) for v in plan.defaults.values())
        ):
            self._flat = dict(plan.defaults)

    def fill(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """A new dict: ``arguments`` with every applicable default filled in."""
        if self._flat is not None:
            return {**self._flat, **arguments}
        if self._plan is None:
            return dict(arguments)
        filled = self._plan.fill(arguments, 0)
        return dict(filled) if filled is arguments else filled


class _Builder:
    """Builds plans, sharing one per schema node (so recursive schemas make cyclic plans,
    which filling follows only as deep as the arguments go)."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.done: dict[int, _Plan | None] = {}

    def plan(self, node: Any, depth: int) -> _Plan | None:
        if not isinstance(node, Mapping) or depth > _MAX_DEPTH:
            return None
        if depth and "$id" in node:
            return None  # another resource: its "#" references are not the root's
        key = id(node)
        if key in self.done:
            return self.done[key]
        plan = _Plan()
        self.done[key] = plan
        for part in self._parts(node):
            self._merge(plan, part, depth)
        result = None if plan.empty() else plan
        self.done[key] = result
        return result

    def _parts(self, node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """``node`` and what it combines unambiguously: ``allOf`` members, ``$ref`` targets."""
        parts: list[Mapping[str, Any]] = []
        todo: list[Any] = [node]
        while todo and len(parts) < 32:
            current = todo.pop(0)
            if not isinstance(current, Mapping) or any(p is current for p in parts):
                continue
            parts.append(current)
            ref = current.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                todo.append(resolve({"$ref": ref}, self.root))
            members = current.get("allOf")
            todo.extend(members if isinstance(members, list) else [])
        return parts

    def _merge(self, plan: _Plan, part: Mapping[str, Any], depth: int) -> None:
        props = part.get("properties")
        required = part.get("required")
        needed = set(required) if isinstance(required, list) else set()
        if isinstance(props, Mapping):
            for name, sub in props.items():
                if not isinstance(name, str):
                    continue
                target = resolve(sub, self.root)
                if isinstance(sub, Mapping) and "default" in sub:
                    target = sub
                if isinstance(target, Mapping) and "default" in target and name not in needed:
                    plan.defaults.setdefault(name, target["default"])
                child = self.plan(sub, depth + 1)
                if child is not None:
                    plan.props.setdefault(name, child)
        items = part.get("items")
        if isinstance(items, Mapping) and plan.items is None:
            plan.items = self.plan(items, depth + 1)
        prefix = part.get("prefixItems")
        if isinstance(prefix, list) and not plan.prefix:
            plan.prefix = [self.plan(p, depth + 1) for p in prefix]


def _copy(value: Any) -> Any:
    try:
        return copy.deepcopy(value)
    except Exception:  # an uncopyable object as a default: share it, as Python does
        return value

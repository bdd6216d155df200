"""pydantic-core schemas of tool parameters, tightened to what their JSON Schema promises.

pydantic's defaults suit Python callers, not a model reading the exported schema. Three of them
let through what the schema refuses, so the argument validators are compiled from a tightened
copy of the core schema:

* a nested ``BaseModel`` ignores unknown keys unless its config says ``extra``; the top level of
  the arguments refuses them, and so, now, does every model that does not choose otherwise
  (:mod:`toolrig.core._model_check`);
* ``set[...]`` and ``frozenset[...]`` drop duplicates silently while the schema says
  ``uniqueItems``: a sequence whose items collapse is refused;
* an ``IntEnum`` or a ``Literal`` of integers accepts ``true`` as ``1`` (and a ``Literal`` of
  booleans ``0`` as ``false``): the schema's ``enum`` lists integers, and JSON's ``true`` is not
  ``1``, so the other kind is refused.

Each check runs only where such a type is: other parameters cost what they did (plain ``int``
parameters keep pydantic's lax reading of ``true`` as ``1``: a check on every integer would
cost every call; strict calls refuse it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sized
from typing import Any, Final, cast

from pydantic_core import CoreSchema, PydanticCustomError

from toolrig.core._model_check import model_check

__all__ = ["tighten"]

_SKIP: Final = frozenset({"metadata", "serialization", "config", "cls", "function", "default"})
_MAX_DEPTH: Final = 200


def tighten(core: CoreSchema) -> CoreSchema:
    """``core`` tightened (the same object when nothing needed to change)."""
    return cast(CoreSchema, _walk(core, 0))


def _walk(node: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        return node
    if isinstance(node, list):
        items = [_walk(item, depth + 1) for item in node]
        return items if any(a is not b for a, b in zip(items, node, strict=True)) else node
    if not isinstance(node, dict):
        return node
    changed = {
        key: new
        for key, value in node.items()
        if key not in _SKIP and (new := _walk(value, depth + 1)) is not value
    }
    out = {**node, **changed} if changed else node
    return _tightened(out)


def _tightened(node: dict[str, Any]) -> dict[str, Any]:
    kind = node.get("type")
    if kind == "model":
        keys = model_check(node, tighten)
        if keys is not None:
            return _wrap(node, keys)
    elif kind in ("set", "frozenset"):
        return _wrap(node, _no_duplicates)
    elif kind in ("enum", "literal"):
        values = (
            [getattr(member, "value", member) for member in node.get("members", ())]
            if kind == "enum"
            else list(node.get("expected", ()))
        )
        check = _exact_kind(values, kind)
        if check is not None:
            return _wrap(node, check, "function-before")
    return node


def _wrap(
    node: dict[str, Any], check: Callable[..., Any], kind: str = "function-wrap"
) -> dict[str, Any]:
    """``node`` behind a check; a ``ref`` moves to the wrapper, so references reach the check."""
    inner = {k: v for k, v in node.items() if k != "ref"}
    wrapper = {"type": kind, "function": {"type": "no-info", "function": check}, "schema": inner}
    if "ref" in node:
        wrapper["ref"] = node["ref"]
    return wrapper


def _no_duplicates(value: Any, handler: Callable[[Any], Any]) -> Any:
    result = handler(value)
    if (
        isinstance(value, Sized)
        and not isinstance(value, set | frozenset | str | bytes)
        and len(result) != len(value)
    ):
        duplicates = len(value) - len(result)
        raise PydanticCustomError(
            "unique_items",
            "Input should be an array without duplicate items ({count} found)",
            {"count": duplicates},
        )
    return result


def _exact_kind(values: list[Any], kind: str) -> Callable[[Any], Any] | None:
    """For choices among integers, a check refusing booleans; among booleans, refusing
    integers (Python counts ``True == 1``, JSON does not). ``None`` when neither applies."""
    bools = any(isinstance(v, bool) for v in values)
    ints = any(isinstance(v, int) and not isinstance(v, bool) for v in values)
    if bools == ints:  # neither, or both: nothing can be mistaken
        return None
    expected = " or ".join(
        json.dumps(v) if isinstance(v, bool | str) else str(v) for v in values[:20]
    )

    def check(value: Any) -> Any:
        mistaken = (
            isinstance(value, bool)
            if ints
            else (isinstance(value, int) and not isinstance(value, bool))
        )
        if mistaken:
            raise PydanticCustomError(kind, "Input should be {expected}", {"expected": expected})
        return value

    return check

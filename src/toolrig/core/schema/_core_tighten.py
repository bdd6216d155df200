"""pydantic-core schemas of tool parameters, tightened to what their JSON Schema promises.

pydantic's defaults suit Python callers, not a model reading the exported schema. Several of
them let through what the schema refuses, so the argument validators are compiled from a
tightened copy of the core schema:

* a nested ``BaseModel`` ignores unknown keys unless its config says ``extra``; the top level of
  the arguments refuses them, and so, now, does every model that does not choose otherwise
  (`toolrig.core.schema._model_check`);
* ``set[...]`` and ``frozenset[...]`` drop duplicates silently while the schema says
  ``uniqueItems``: a sequence whose items collapse is refused. JSON has no set, so an array is
  a set's wire form, in strict calls too (pydantic's strict mode wants a Python ``set``): the
  items are validated as a list, then gathered;
* an ``IntEnum`` or a ``Literal`` of integers accepts ``true`` as ``1`` (and a ``Literal`` of
  booleans ``0`` as ``false``): the schema's ``enum`` lists integers, and JSON's ``true`` is not
  ``1``, so the other kind is refused;
* a ``float`` accepts ``NaN`` and ``Infinity``, which are not JSON numbers: refused (unless the
  field says ``allow_inf_nan``), nested models included;
* ``str`` accepts text with a lone surrogate, which is not Unicode: a length bound of 0 makes
  pydantic-core read the text as Unicode and refuse it (about 20 ns a parameter);
* ``Any`` (the schema ``{}``: any JSON value) accepts any Python object: only JSON data passes
  (finite numbers, text keys, valid text, bounded nesting); a plain ``dict``'s keys are text.
* ``datetime`` is exported as ``format: date-time`` (RFC 3339: a date, ``T``, a time and an
  offset) but accepts naive values, a space for the ``T`` and digits for a timestamp: text must
  be an RFC 3339 date-time, in strict and lax calls alike, and the value a tool receives always
  carries its offset (a Python ``datetime`` must be aware; a number in a lax call is read as a
  Unix time, in UTC). See docs/validation.md.

Each check runs only where such a type is: other parameters cost what they did (plain ``int``
parameters keep pydantic's lax reading of ``true`` as ``1``: a check on every integer would
cost every call; strict calls refuse it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, Final, cast

from pydantic_core import CoreSchema, PydanticCustomError

from toolrig.core.schema._json_data import data_problems
from toolrig.core.schema._model_check import model_check

__all__ = ["tighten"]

_SKIP: Final = frozenset({"metadata", "serialization", "config", "cls", "function", "default"})
_MAX_DEPTH: Final = 200
_TEXT_CHECKED: Final = frozenset({"min_length", "max_length", "pattern"})
"""Keys that make pydantic-core read text as Unicode (so a lone surrogate is refused)."""
_LIST_KEYS: Final = frozenset({"items_schema", "min_length", "max_length", "strict", "fail_fast"})


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
    if kind in ("float", "decimal"):
        return node if "allow_inf_nan" in node else {**node, "allow_inf_nan": False}
    if kind == "str":
        return node if _TEXT_CHECKED & node.keys() else {**node, "min_length": 0}
    if kind == "any":
        return _wrap(node, _json_data, "function-after")
    if kind == "datetime" and "tz_constraint" not in node:
        return _wrap({**node, "tz_constraint": "aware"}, _rfc3339_text, "function-before")
    if kind == "dict" and node.get("keys_schema", {}).get("type") in ("any", "function-after"):
        keys = node["keys_schema"]
        if keys.get("type") == "any" or keys.get("function", {}).get("function") is _json_data:
            return {**node, "keys_schema": {"type": "str", "min_length": 0}}
    if kind == "model":
        keys = model_check(node, tighten)
        if keys is not None:
            return _wrap(node, keys)
    elif kind in ("set", "frozenset"):
        items = {k: v for k, v in node.items() if k in _LIST_KEYS}
        return _wrap({**items, "type": "list"}, _gathered(kind), ref=node.get("ref"))
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
    node: dict[str, Any],
    check: Callable[..., Any],
    kind: str = "function-wrap",
    ref: str | None = None,
) -> dict[str, Any]:
    """``node`` behind a check; a ``ref`` moves to the wrapper, so references reach the check."""
    ref = node.get("ref", ref)
    inner = {k: v for k, v in node.items() if k != "ref"}
    wrapper = {"type": kind, "function": {"type": "no-info", "function": check}, "schema": inner}
    if ref is not None:
        wrapper["ref"] = ref
    return wrapper


def _gathered(kind: str) -> Callable[[Any, Callable[[Any], Any]], Any]:
    """A check validating a set's items as a list, then gathering them: an array is accepted in
    strict calls too, and items that collapse (also once coerced) are refused."""
    make: type[set[Any]] | type[frozenset[Any]] = set if kind == "set" else frozenset

    def check(value: Any, handler: Callable[[Any], Any]) -> Any:
        if isinstance(value, set | frozenset):
            value = list(value)  # a Python caller's set: its items are distinct already
        items = handler(value)
        try:
            result = make(items)
        except TypeError:
            raise PydanticCustomError(
                "set_type", "Input should be an array of items that can form a set"
            ) from None
        if len(result) != len(items):
            raise PydanticCustomError(
                "unique_items",
                "Input should be an array without duplicate items ({count} found)",
                {"count": len(items) - len(result)},
            )
        return result

    return check


_RFC3339: Final = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})\Z"
)


def _rfc3339_text(value: Any) -> Any:
    """Text given for a date-time is what ``format: date-time`` says: RFC 3339, with its
    offset, read here (so a strict call reads it as its JSON text); values of other types go
    on to pydantic, which wants them aware."""
    if not isinstance(value, str):
        return value
    if _RFC3339.match(value):
        try:
            return datetime.fromisoformat(value[:-1] + "+00:00" if value[-1] in "Zz" else value)
        except ValueError:
            pass  # a date that does not exist (2024-02-30): said below
    raise PydanticCustomError(
        "date_time_format",
        "Input should be an RFC 3339 date-time with its offset, such as "
        "2024-05-01T10:00:00Z or 2024-05-01T12:00:00+02:00",
    )


def _json_data(value: Any) -> Any:
    """Only JSON data passes a parameter typed ``Any`` (its schema: any JSON value)."""
    kind = type(value)
    if kind is int or kind is bool or value is None or (kind is str and value.isascii()):
        return value
    problems = data_problems(value, 1, long_ints=True)
    if problems:
        loc, _code, text = problems[0]
        where = f"at {''.join(f'[{part!r}]' for part in loc)}: " if loc else ""
        raise PydanticCustomError(
            "json_data", "Input should be JSON data ({problem})", {"problem": where + text}
        )
    return value


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

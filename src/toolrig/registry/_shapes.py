"""Parameter lists validated and turned into JSON Schema once per distinct shape.

Generated and hand-written definitions repeat the same parameter lists; validating each list
(`ToolParameter` models, a compiled regex per ``pattern``) and building its schema (with every
default checked against its own parameter) cost about a sixth of loading a definition, for
results that depend only on the list as written. Here a list written the same way (the same
YAML data, compared exactly: ``1`` is not ``true``) gets the same validated, frozen
`ToolParameter` tuple, and that tuple's schema is built once and then handed out as a fresh
copy (callers may change their schema without reaching another tool's).

Nothing is skipped for a list seen for the first time, and nothing is remembered for a list
that fails: it is validated (and refused) as before, with the same located problems.
"""

from __future__ import annotations

import marshal
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from toolrig.core.schema._params import ToolParameter, parameters_to_schema

__all__ = ["CACHE_SIZE", "parameter_schema", "shared_parameters"]

CACHE_SIZE: Final = 1024
"""Distinct parameter lists remembered (least recently used first out)."""

Parameters = tuple[ToolParameter, ...]


@dataclass(slots=True)
class _Shape:
    """One distinct parameter list: its validated parameters and, once built, its schema
    (marshalled: unpacking gives each caller its own copy)."""

    params: Parameters
    schema: bytes | None = None


_by_data: OrderedDict[bytes, _Shape] = OrderedDict()
"""The YAML data of a parameter list (marshalled) -> its shape."""
_by_params: dict[int, _Shape] = {}
"""``id`` of a shape's parameter tuple -> the shape (the shape holds the tuple, so the id
stays its own while the entry lives)."""
_lock = threading.Lock()


def shared_parameters(raw: Any, validate: Callable[[Any], Parameters]) -> Parameters:
    """The parameters of the list ``raw`` (YAML data) validated by ``validate``, or the tuple
    already validated for an equal list."""
    key = _key(raw)
    if key is not None:
        with _lock:
            shape = _by_data.get(key)
            if shape is not None:
                _by_data.move_to_end(key)
                return shape.params
    params = validate(raw)  # raises for a bad list: nothing is remembered
    if key is None:
        return params
    with _lock:
        shape = _by_data.get(key)  # another thread may have validated it meanwhile
        if shape is None:
            shape = _by_data[key] = _by_params[id(params)] = _Shape(params)
            if len(_by_data) > CACHE_SIZE:
                _, old = _by_data.popitem(last=False)
                del _by_params[id(old.params)]
    return shape.params


def parameter_schema(params: Parameters, *, subject: str) -> dict[str, Any]:
    """``parameters_to_schema(params)``: built once for a tuple `shared_parameters` made,
    then copied (it raises the same located `ToolDefinitionError` for a list that breaks)."""
    with _lock:
        shape = _by_params.get(id(params))
        packed = shape.schema if shape is not None and shape.params is params else None
    if packed is not None:
        loaded: dict[str, Any] = marshal.loads(packed)
        return loaded
    schema = parameters_to_schema(params, subject=subject)
    if shape is not None and shape.params is params:
        packed = _key(schema)
        if packed is not None:
            with _lock:
                shape.schema = packed
    return schema


def _key(data: Any) -> bytes | None:
    """``data`` marshalled (exact about types and nesting; format 2, which has no
    back-references, so equal data gives equal bytes); ``None`` when marshal cannot write it."""
    try:
        return marshal.dumps(data, 2)
    except ValueError:
        return None

"""Compiled validators, shared between equal schemas.

Two kinds of schema are compiled here. pydantic-core schemas (built from type hints by
:mod:`toolrig.core.schema._type_schema`) become a pydantic-core ``SchemaValidator``, cached by
content: many tools repeat a parameter list, and compiling is most of the cost of defining a
tool. JSON Schemas are compiled by :func:`compile_schema`, which is
:func:`~toolrig.core.schema._json_schema.compile_json_schema` under the name other modules know:
every keyword enforced or the schema refused (:class:`SchemaCompileError`), the result a
:class:`~toolrig.core.schema._json_schema.JsonSchema` whose ``validate_python`` raises a
``ValueError`` saying what does not match."""

from __future__ import annotations

import marshal
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, cast

from pydantic_core import CoreConfig, CoreSchema, SchemaValidator

from toolrig.core.schema._core_tighten import tighten
from toolrig.core.schema._json_schema import JsonSchema, SchemaCompileError, compile_json_schema

__all__ = ["SchemaCompileError", "compile_core_schema", "compile_schema"]


def compile_schema(schema: Mapping[str, Any], *, forbid_extra: bool = True) -> JsonSchema:
    """``schema`` enforced in full. Unknown top-level properties are rejected when
    ``forbid_extra`` (unless the schema says what to do with them)."""
    return compile_json_schema(schema, forbid_extra=forbid_extra)


def compile_core_schema(
    core: CoreSchema, config: CoreConfig | None = None, *, arguments: bool = False
) -> SchemaValidator:
    """A validator for a pydantic-core schema, shared between equal schemas. Arguments'
    schemas are tightened first (:func:`~toolrig.core.schema._core_tighten.tighten`)."""
    if arguments:
        key = _cache_key(b"a", (core, config))
        return _shared(key, lambda: SchemaValidator(tighten(core), config))
    key = _cache_key(b"c", (core, config))
    return _shared(key, lambda: SchemaValidator(core, config))


_CACHE_SIZE = 1024
_cache: OrderedDict[bytes, SchemaValidator] = OrderedDict()
_cache_lock = threading.Lock()


def _shared(key: bytes | None, compile_: Callable[[], SchemaValidator]) -> SchemaValidator:
    """The cached validator for ``key``, else a new one (kept unless ``key`` is ``None``)."""
    if key is not None:
        with _cache_lock:
            cached = _cache.get(key)
            if cached is not None:
                _cache.move_to_end(key)
                return cached
    validator = compile_()
    if key is not None:
        with _cache_lock:
            _cache[key] = validator
            if len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return validator


def _cache_key(kind: bytes, schema: Any) -> bytes | None:
    """The schema serialised by :mod:`marshal` (fast, and exact about types: ``True`` is not
    ``1``, a tuple is not a list), after ``kind``; ``None`` (not shared) when it holds anything
    else, such as Python objects or mapping subclasses. Key order counts: a reordered schema is
    compiled again, which is only slower."""
    try:
        marshalled: bytes = marshal.dumps(cast(Any, schema))
        return kind + marshalled
    except ValueError:
        return None

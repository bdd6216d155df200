"""A JSON Schema, enforced in full: checked at definition time, compiled once, never fetching.

Tools defined from JSON Schema (YAML, MCP and OpenAI definitions, ``Tool(parameters={...})``)
are validated by jsonschema-rs, which passes the whole official test suite and checks a small
object in about 0.3 µs. Around it this module adds what a tool needs:

* :func:`~toolrig.core.schema._schema_vocabulary.keyword_problems` first, so a keyword the validator
  would ignore is refused with its reason instead of silently promised to the model;
* a copy of the schema made for enforcing (the exported schema is never changed): the
  annotations no check reads are dropped from it (so tools differing only in descriptions share
  one compiled validator), OpenAPI's ``nullable: true`` becomes "or null", its ``int32``,
  ``int64`` and ``float`` formats become bounds, and with ``forbid_extra`` the root refuses
  properties it does not declare (``additionalProperties: false``, or
  ``unevaluatedProperties: false`` when the root combines schemas, so properties declared in an
  ``allOf`` or a ``$ref`` still count);
* references resolve only inside the schema: a ``$ref`` to another document is refused at
  definition time (put the document in ``$defs`` with its ``$id``); nothing is ever fetched;
* compiled validators are shared by equal schemas (an LRU of :data:`CACHE_SIZE`), and a schema
  equal to one already checked is not checked again.
"""

from __future__ import annotations

import marshal
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

from toolrig.core.schema._json_data import plain
from toolrig.core.schema._schema_vocabulary import (
    OPENAPI_FORMATS,
    SCHEMA_KEYS,
    SCHEMA_LIST_KEYS,
    SCHEMA_MAP_KEYS,
    draft_of,
    keyword_problems,
)

if TYPE_CHECKING:
    import jsonschema_rs

__all__ = [
    "CACHE_SIZE",
    "JsonSchema",
    "SchemaCompileError",
    "SchemaViolation",
    "compile_json_schema",
]

CACHE_SIZE: Final = 1024
_NOTES: Final = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"}
)
"""Annotations no check reads, left out of the copy that is compiled."""
_COMBINING: Final = frozenset(
    {
        "allOf",
        "anyOf",
        "oneOf",
        "$ref",
        "$dynamicRef",
        "$recursiveRef",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "dependencies",
    }
)
_MAX_MESSAGE: Final = 300


class SchemaCompileError(ValueError):
    """The JSON Schema cannot be enforced as written; ``problems`` says each reason."""

    def __init__(self, problems: list[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True, slots=True)
class _Packed:
    """An enforced copy kept marshalled until someone reads it."""

    data: bytes


class SchemaViolation(ValueError):
    """A value does not match a schema (:meth:`JsonSchema.validate_python`)."""


class JsonSchema:
    """A compiled JSON Schema. Reading a value never raises, whatever the value holds."""

    __slots__ = ("_enforced", "schema", "validator")

    def __init__(
        self,
        schema: Any,
        enforced: Any,
        validator: jsonschema_rs.Validator,
        *,
        packed: bool = False,
    ) -> None:
        self.schema = schema
        """The schema as given (what is exported)."""
        self._enforced = _Packed(enforced) if packed else enforced
        self.validator = validator
        """The jsonschema-rs validator: call it only with data :func:`plain` accepts."""

    @property
    def enforced(self) -> Any:
        """The copy that was compiled (error paths into the schema refer to it); unpacked on
        first use, since only error reports read it."""
        if isinstance(self._enforced, _Packed):
            self._enforced = marshal.loads(self._enforced.data)
        return self._enforced

    def is_valid(self, value: Any) -> bool:
        """Whether ``value`` matches (data that is not JSON never does)."""
        try:
            return plain(value) and self.validator.is_valid(value)
        except (ValueError, TypeError, OverflowError, RecursionError):
            return False

    def errors(self, value: Any, limit: int) -> list[jsonschema_rs.ValidationError]:
        """Up to ``limit`` reasons ``value`` does not match (``value`` must be plain JSON)."""
        found: list[jsonschema_rs.ValidationError] = []
        iterator: Iterator[jsonschema_rs.ValidationError] = self.validator.iter_errors(value)
        for error in iterator:
            found.append(error)
            if len(found) >= limit:
                break
        return found

    def validate_python(self, value: Any, strict: bool = True) -> Any:
        """``value`` if it matches, else :class:`SchemaViolation` saying why, path first.

        No value is ever coerced (``strict`` is accepted for the callers of the previous
        validator and changes nothing).
        """
        if self.is_valid(value):
            return value
        from toolrig.core.schema._schema_problems import describe_problems

        raise SchemaViolation("; ".join(describe_problems(self, value, limit=5)))


def compile_json_schema(schema: Any, *, forbid_extra: bool = False) -> JsonSchema:
    """``schema`` compiled (or the one compiled for an equal schema); raises
    :class:`SchemaCompileError` listing every reason it cannot be enforced.

    A schema equal to one compiled before skips the keyword check and the enforcing copy as
    well: building 5,000 YAML tools spent about a third of its time redoing them for the
    same few parameter shapes (``{"type": "integer", "minimum": 1}`` checks a default as
    often as it appears).
    """
    if not isinstance(schema, Mapping | bool):
        raise SchemaCompileError(f"a schema must be an object or a boolean, got {schema!r:.60}")
    given = _cache_key((schema, forbid_extra))
    if given is not None:
        with _lock:
            seen = _checked.get(given)
            if seen is not None:
                _checked.move_to_end(given)
        if seen is not None:
            return JsonSchema(schema, seen[0], seen[1], packed=True)
    problems = keyword_problems(schema)
    if problems:
        raise SchemaCompileError(problems)
    enforced = _enforced(schema, 0)
    if forbid_extra and isinstance(enforced, Mapping):
        enforced = _closed(enforced)
    key = _cache_key(enforced)
    with _lock:
        validator = _cache.get(key) if key is not None else None
        if validator is not None:
            _cache.move_to_end(cast(bytes, key))
    if validator is None:
        validator = _build(enforced)
        if key is not None:
            with _lock:
                _remember(_cache, key, validator)
    if given is not None and key is not None:
        with _lock:
            _remember(_checked, given, (key, validator))
    return JsonSchema(schema, enforced, validator)


_cache: OrderedDict[bytes, jsonschema_rs.Validator] = OrderedDict()
"""Validators by the enforced copy they were compiled from."""
_checked: OrderedDict[bytes, tuple[bytes, jsonschema_rs.Validator]] = OrderedDict()
"""Schemas as given (and ``forbid_extra``) that compiled -> (their enforced copy, marshalled;
its validator). The copy is rebuilt when read, so no caller shares another's objects."""
_lock = threading.Lock()


def _remember(cache: OrderedDict[bytes, Any], key: bytes, value: Any) -> None:
    cache[key] = value
    if len(cache) > CACHE_SIZE:
        cache.popitem(last=False)


def _cache_key(schema: Any) -> bytes | None:
    """The schema serialised by :mod:`marshal` (exact about types: ``True`` is not ``1``);
    ``None`` (compiled on its own) when it holds anything marshal cannot write.

    Format 2, the last without back-references: later formats mark an object shared when its
    reference count is above one, so equal schemas could give different bytes (and miss).
    """
    try:
        return marshal.dumps(schema, 2)
    except ValueError:
        return None


def _build(schema: Any) -> jsonschema_rs.Validator:
    import jsonschema_rs  # imported with the first schema: importing toolrig need not pay for it

    try:
        return jsonschema_rs.validator_for(
            schema,
            validate_formats=True,
            ignore_unknown_formats=False,
            retriever=_no_fetch,
        )
    except jsonschema_rs.ValidationError as exc:  # breaks the meta-schema, or a bad reference
        where = ".".join(str(p) for p in exc.instance_path)
        text = str(exc.message).split("\n", 1)[0][:_MAX_MESSAGE]
        raise SchemaCompileError(f"{where}: {text}" if where else text) from None
    except (ValueError, TypeError, OverflowError, jsonschema_rs.ReferencingError) as exc:
        text = str(exc)[:_MAX_MESSAGE]
        raise SchemaCompileError(f"the schema is not JSON data: {text}") from None


def _no_fetch(uri: str) -> Any:
    raise ValueError(
        f"external references are not fetched ({uri}); put that document in `$defs` with its `$id`"
    )


def _closed(root: Mapping[str, Any]) -> Mapping[str, Any]:
    """The root schema refusing properties it does not declare, unless it says otherwise."""
    if "additionalProperties" in root or "unevaluatedProperties" in root:
        return root
    if not _COMBINING & root.keys():
        return {**root, "additionalProperties": False}
    if (draft_of(root) or 2020) >= 2019:
        return {**root, "unevaluatedProperties": False}
    return root  # draft-07 and older cannot close a combined schema: extra keys are allowed


def _enforced(node: Any, depth: int) -> Any:
    """The copy of ``node`` that is compiled; ``node`` itself when nothing changes."""
    if not isinstance(node, Mapping):
        return node
    changes: dict[str, Any] = {}
    for key, value in node.items():
        if key in _NOTES:
            changes[key] = _DROP
            continue
        if key in SCHEMA_MAP_KEYS and isinstance(value, Mapping):
            new = _each_value(value, depth)
        elif key in SCHEMA_LIST_KEYS and isinstance(value, list):
            items = [_enforced(v, depth + 1) for v in value]
            new = items if any(a is not b for a, b in zip(items, value, strict=True)) else value
        elif key in SCHEMA_KEYS:
            new = _enforced(value, depth + 1)
        else:
            continue
        if new is not value:
            changes[key] = new
    result: Mapping[str, Any] = node
    if changes:
        result = {k: changes.get(k, v) for k, v in node.items() if changes.get(k) is not _DROP}
    return _openapi(result)


def _each_value(mapping: Mapping[str, Any], depth: int) -> Any:
    changed = {k: _enforced(v, depth + 1) for k, v in mapping.items()}
    return changed if any(changed[k] is not mapping[k] for k in mapping) else mapping


def _openapi(node: Mapping[str, Any]) -> Mapping[str, Any]:
    """OpenAPI's ``nullable`` and number formats as plain JSON Schema."""
    fmt = node.get("format")
    if isinstance(fmt, str) and fmt in OPENAPI_FORMATS:
        bounds = OPENAPI_FORMATS[fmt]
        node = {k: v for k, v in node.items() if k != "format"}
        if bounds is not None:
            low, high = bounds
            node["allOf"] = [*node.get("allOf", []), {"minimum": low, "maximum": high}]
    if "nullable" not in node:
        return node
    rest = {k: v for k, v in node.items() if k != "nullable"}
    if node["nullable"] is not True:
        return rest
    kind = rest.get("type")
    if isinstance(kind, str) and "enum" not in rest and "const" not in rest:
        return {**rest, "type": [kind, "null"]}
    if isinstance(kind, list) and "enum" not in rest and "const" not in rest:
        return {**rest, "type": [*kind, "null"] if "null" not in kind else kind}
    outer: dict[str, Any] = {k: rest.pop(k) for k in _RESOURCE if k in rest}
    return {**outer, "anyOf": [{"type": "null"}, rest]}


_RESOURCE: Final = ("$schema", "$id", "$anchor", "$dynamicAnchor", "$defs", "definitions")
_DROP: Final = object()

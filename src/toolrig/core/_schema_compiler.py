"""Compile a JSON Schema (or a pydantic-core schema) into a pydantic-core validator, once.

Supported: ``type`` (single or list), ``enum``, ``const``, ``anyOf``/``oneOf``, ``allOf``,
``$ref`` into ``$defs``/``definitions``, numeric bounds, string length/pattern/format (date,
date-time, time, email, uri, uuid, ipv4, ipv6), array items/prefixItems/length/uniqueness,
object properties/required/additionalProperties, ``default`` (filled in when absent) and
``nullable``. Unknown keywords are ignored, as JSON Schema prescribes.
"""

from __future__ import annotations

import copy
import marshal
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import date, datetime, time
from typing import Any, cast

from pydantic_core import CoreConfig, CoreSchema, PydanticCustomError, SchemaValidator
from pydantic_core import core_schema as cs

__all__ = ["SchemaCompileError", "compile_core_schema", "compile_schema"]

_MAX_DEPTH = 64


class SchemaCompileError(ValueError):
    """The JSON Schema cannot be compiled (bad ``$ref``, wrong keyword type, ...)."""


def compile_schema(schema: Mapping[str, Any], *, forbid_extra: bool = True) -> SchemaValidator:
    """A validator for ``schema``. Unknown top-level properties are rejected when ``forbid_extra``
    (unless the schema says ``additionalProperties: true``).

    Validators are immutable, so one is shared by every schema with the same content: many
    tools repeat a schema (no parameters, one ``query`` string, a template's parameters), and
    compiling is most of the cost of defining a tool.
    """
    key = _cache_key(b"1" if forbid_extra else b"0", schema)
    return _shared(key, lambda: _compile(schema, forbid_extra))


def compile_core_schema(core: CoreSchema, config: CoreConfig | None = None) -> SchemaValidator:
    """A validator for a pydantic-core schema, shared like :func:`compile_schema`'s between
    equal schemas (tools with the same parameters compile them once)."""
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


def _compile(schema: Mapping[str, Any], forbid_extra: bool) -> SchemaValidator:
    compiler = _Compiler(schema)
    core = compiler.node(schema, top_forbid=forbid_extra, depth=0)
    if compiler.definitions:
        core = cs.definitions_schema(core, list(compiler.definitions.values()))
    try:
        return SchemaValidator(core)
    except Exception as exc:  # pydantic-core raises SchemaError for inconsistent constraints
        raise SchemaCompileError(f"cannot compile schema: {exc}") from exc


def _format_checker(name: str) -> Callable[[str], Any] | None:
    import ipaddress
    import uuid

    checks: dict[str, Callable[[str], Any]] = {
        "date": date.fromisoformat,
        "date-time": lambda v: datetime.fromisoformat(v.replace("Z", "+00:00")),
        "time": time.fromisoformat,
        "uuid": uuid.UUID,
        "ipv4": ipaddress.IPv4Address,
        "ipv6": ipaddress.IPv6Address,
        "email": _check_email,
        "uri": _check_uri,
        "url": _check_uri,
    }
    return checks.get(name)


_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:[^\s]+$")


def _check_email(value: str) -> None:
    if not _EMAIL.match(value):
        raise ValueError("not an email address")


def _check_uri(value: str) -> None:
    if not _URI.match(value):
        raise ValueError("not an absolute URI")


def _format_validator(fmt: str, check: Callable[[str], Any]) -> Callable[[str], str]:
    def validate(value: str) -> str:
        try:
            check(value)
        except (ValueError, TypeError):
            raise PydanticCustomError(
                "format_error", "Input should be a valid {format} string", {"format": fmt}
            ) from None
        return value

    return validate


def _unique_items(value: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in value:
        if item in seen:
            raise PydanticCustomError(
                "unique_items", "Items should be unique; {item!r} appears twice", {"item": item}
            )
        seen.append(item)
    return value


def _always_fail(value: Any) -> Any:
    raise PydanticCustomError("forbidden", "No value is allowed here")


def _reject_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise PydanticCustomError("bool_not_number", "Input should be a number, not a boolean")
    return value


class _Compiler:
    def __init__(self, root: Mapping[str, Any]) -> None:
        defs = root.get("$defs") or root.get("definitions") or {}
        if not isinstance(defs, Mapping):
            raise SchemaCompileError("$defs must be an object")
        self.defs: Mapping[str, Any] = defs
        self.definitions: dict[str, CoreSchema] = {}

    def node(self, s: Any, *, top_forbid: bool = False, depth: int) -> CoreSchema:
        if depth > _MAX_DEPTH:
            raise SchemaCompileError(f"schema nested deeper than {_MAX_DEPTH} levels")
        if s is True or s is None:
            return cs.any_schema()
        if s is False:
            return cs.no_info_plain_validator_function(_always_fail)
        if not isinstance(s, Mapping):
            raise SchemaCompileError(f"a schema must be an object or boolean, got {s!r}")
        inner = self._node(s, top_forbid=top_forbid, depth=depth)
        if s.get("nullable") is True:
            inner = cs.nullable_schema(inner)
        return inner

    def _node(self, s: Mapping[str, Any], *, top_forbid: bool, depth: int) -> CoreSchema:
        if "$ref" in s:
            return self._ref(str(s["$ref"]), depth)
        if "const" in s:
            return cs.literal_schema([s["const"]])
        if "enum" in s:
            return self._enum(s["enum"])
        for key in ("anyOf", "oneOf"):
            if key in s:
                options = [self.node(c, depth=depth + 1) for c in _as_list(s[key], key)]
                return options[0] if len(options) == 1 else _union(options)
        if "allOf" in s:
            parts = [self.node(c, depth=depth + 1) for c in _as_list(s["allOf"], "allOf")]
            return parts[0] if len(parts) == 1 else cs.chain_schema(parts)
        kind = s.get("type")
        if isinstance(kind, list):
            types = [t for t in kind if t != "null"]
            choices: list[CoreSchema | tuple[CoreSchema, str]] = [
                self._typed(s, t, top_forbid, depth) for t in types
            ]
            if not choices:
                return cs.none_schema()
            first = choices[0]
            base = (
                first if len(choices) == 1 and isinstance(first, dict) else cs.union_schema(choices)
            )
            return cs.nullable_schema(base) if "null" in kind else base
        if kind is None:
            if "properties" in s or "additionalProperties" in s:
                kind = "object"
            elif "items" in s or "prefixItems" in s:
                kind = "array"
            else:
                return cs.any_schema()
        return self._typed(s, kind, top_forbid, depth)

    def _ref(self, ref: str, depth: int) -> CoreSchema:
        prefix = next((p for p in ("#/$defs/", "#/definitions/") if ref.startswith(p)), None)
        if prefix is None:
            raise SchemaCompileError(f"only local references into $defs are supported, got {ref!r}")
        name = ref[len(prefix) :]
        if name not in self.defs:
            raise SchemaCompileError(f"reference {ref!r} points to no definition")
        if name not in self.definitions:
            self.definitions[name] = cs.any_schema(ref=name)  # placeholder against recursion
            compiled = self.node(self.defs[name], depth=depth + 1)
            self.definitions[name] = {**compiled, "ref": name}
        return cs.definition_reference_schema(name)

    def _enum(self, values: Any) -> CoreSchema:
        options = _as_list(values, "enum")
        if all(isinstance(v, str | int | float | bool) or v is None for v in options):
            return cs.literal_schema(options)
        frozen = [copy.deepcopy(v) for v in options]

        def member(value: Any) -> Any:
            if value not in frozen:
                raise PydanticCustomError(
                    "enum", "Input should be one of {expected}", {"expected": repr(frozen)}
                )
            return value

        return cs.no_info_plain_validator_function(member)

    def _typed(self, s: Mapping[str, Any], kind: Any, top_forbid: bool, depth: int) -> CoreSchema:
        if kind == "string":
            return self._string(s)
        if kind == "integer":
            return cs.no_info_before_validator_function(_reject_bool, _int_schema(s))
        if kind == "number":
            return cs.no_info_before_validator_function(
                _reject_bool,
                cs.float_schema(
                    ge=_num(s, "minimum"),
                    le=_num(s, "maximum"),
                    gt=_num(s, "exclusiveMinimum"),
                    lt=_num(s, "exclusiveMaximum"),
                    multiple_of=_num(s, "multipleOf"),
                    allow_inf_nan=False,
                ),
            )
        if kind == "boolean":
            return cs.bool_schema()
        if kind == "null":
            return cs.none_schema()
        if kind == "array":
            return self._array(s, depth)
        if kind == "object":
            return self._object(s, top_forbid, depth)
        raise SchemaCompileError(f"unknown type {kind!r}")

    def _string(self, s: Mapping[str, Any]) -> CoreSchema:
        pattern = s.get("pattern")
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise SchemaCompileError(f"pattern {pattern!r} is invalid: {exc}") from exc
        schema = cs.str_schema(
            min_length=s.get("minLength"),
            max_length=s.get("maxLength"),
            pattern=pattern,
            regex_engine="python-re" if pattern and _needs_python_re(pattern) else None,
        )
        fmt = s.get("format")
        check = _format_checker(fmt) if isinstance(fmt, str) else None
        if check is not None and isinstance(fmt, str):
            return cs.no_info_after_validator_function(_format_validator(fmt, check), schema)
        return schema

    def _array(self, s: Mapping[str, Any], depth: int) -> CoreSchema:
        schema: CoreSchema
        if "prefixItems" in s:
            prefix = [
                self.node(p, depth=depth + 1) for p in _as_list(s["prefixItems"], "prefixItems")
            ]
            rest = s.get("items")
            variadic = (
                None
                if rest is False
                else (None if rest is None else self.node(rest, depth=depth + 1))
            )
            if variadic is not None:
                schema = cs.tuple_schema([*prefix, variadic], variadic_item_index=len(prefix))
            elif rest is False:
                schema = cs.tuple_schema(prefix)
            else:
                schema = cs.tuple_schema(
                    [*prefix, cs.any_schema()], variadic_item_index=len(prefix)
                )
            schema = cs.no_info_after_validator_function(list, schema)
        else:
            items = s.get("items")
            schema = cs.list_schema(
                None if items is None or items is True else self.node(items, depth=depth + 1),
                min_length=s.get("minItems"),
                max_length=s.get("maxItems"),
            )
        if s.get("uniqueItems") is True:
            schema = cs.no_info_after_validator_function(_unique_items, schema)
        return schema

    def _object(self, s: Mapping[str, Any], top_forbid: bool, depth: int) -> CoreSchema:
        properties = s.get("properties")
        extra = s.get("additionalProperties")
        if not properties:
            if top_forbid and extra is None:
                extra = False
            if extra is False:
                return cs.typed_dict_schema({}, extra_behavior="forbid")
            return cs.dict_schema(
                cs.str_schema(),
                None if extra in (None, True) else self.node(extra, depth=depth + 1),
                min_length=s.get("minProperties"),
                max_length=s.get("maxProperties"),
            )
        if not isinstance(properties, Mapping):
            raise SchemaCompileError("properties must be an object")
        required = set(_as_list(s.get("required", []), "required"))
        fields: dict[str, cs.TypedDictField] = {}
        for name, prop in properties.items():
            field = self.node(prop, depth=depth + 1)
            if name not in required and isinstance(prop, Mapping) and "default" in prop:
                field = cs.with_default_schema(field, **_default_kw(prop["default"]))
            fields[name] = cs.typed_dict_field(field, required=name in required)
        if extra is False or (extra is None and top_forbid):
            return cs.typed_dict_schema(fields, extra_behavior="forbid")
        if extra is None or extra is True:
            return cs.typed_dict_schema(fields, extra_behavior="allow")
        return cs.typed_dict_schema(
            fields, extra_behavior="allow", extras_schema=self.node(extra, depth=depth + 1)
        )


def _default_kw(default: Any) -> dict[str, Any]:
    if isinstance(default, list | dict | set):
        return {"default_factory": lambda: copy.deepcopy(default)}
    return {"default": default}


def _union(options: list[CoreSchema]) -> CoreSchema:
    choices: list[CoreSchema | tuple[CoreSchema, str]] = list(options)
    return cs.union_schema(choices)


def _int_schema(s: Mapping[str, Any]) -> CoreSchema:
    """Integer bounds, with fractional JSON Schema bounds rounded to the equivalent integer ones."""
    lower = [b for b in (_num(s, "minimum"),) if b is not None]
    upper = [b for b in (_num(s, "maximum"),) if b is not None]
    ge = math.ceil(max(lower)) if lower else None
    le = math.floor(min(upper)) if upper else None
    gt_bound, lt_bound = _num(s, "exclusiveMinimum"), _num(s, "exclusiveMaximum")
    if gt_bound is not None:
        ge = max(ge, math.floor(gt_bound) + 1) if ge is not None else math.floor(gt_bound) + 1
    if lt_bound is not None:
        le = min(le, math.ceil(lt_bound) - 1) if le is not None else math.ceil(lt_bound) - 1
    multiple = _num(s, "multipleOf")
    if multiple is not None and multiple != int(multiple):
        raise SchemaCompileError(f"multipleOf {multiple} on an integer must be a whole number")
    return cs.int_schema(ge=ge, le=le, multiple_of=None if multiple is None else int(multiple))


def _num(s: Mapping[str, Any], key: str) -> float | None:
    value = s.get(key)
    if value is None or isinstance(value, bool):
        return None
    if not isinstance(value, int | float):
        raise SchemaCompileError(f"{key} must be a number, got {value!r}")
    return value


def _as_list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise SchemaCompileError(f"{key} must be a list, got {value!r}")
    if not value and key in ("anyOf", "oneOf", "allOf", "enum"):
        raise SchemaCompileError(f"{key} must not be empty")
    return list(value)


def _needs_python_re(pattern: str) -> bool:
    # The default Rust engine has no look-around or back-references.
    return bool(re.search(r"\(\?[=!<]|\\[1-9]", pattern))

"""Tools from OpenAI-style function definitions (JSON), bound to a Python callable.

Definitions found in the wild are often loose: types ``dict``, ``float``, ``tuple``, ``any``;
an ``optional`` flag (``true``, ``"yes"``, or a list of names on the object); defaults of the
wrong type (``"false"`` for a boolean), outside their ``enum``, or ``null`` on a type that
refuses it; an ``enum`` whose values contradict the ``type`` (``integer`` with ``["1", "2"]``);
``required`` names missing from ``properties``. :func:`normalize_parameters` turns them into
standard JSON Schema with the meaning the author evidently had, and says what it changed in
one :class:`SchemaNormalizedWarning` per tool; it never fails on such quirks. A ``"default":
null`` on a type that refuses null is the common way of writing "no default": it is dropped
without a word.
"""

from __future__ import annotations

import copy
import json
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolrig.core.define._function_tool import Tool
from toolrig.core.schema._schema_compiler import SchemaCompileError, compile_schema
from toolrig.core.schema._validation import json_type_of

__all__ = [
    "SchemaNormalizedWarning",
    "normalize_parameters",
    "tool_from_function_definition",
    "tools_from_function_definitions",
]

_TYPES = {
    "string": "string",
    "str": "string",
    "text": "string",
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "object": "object",
    "dict": "object",
    "mapping": "object",
    "null": "null",
    "none": "null",
}
_ANY = frozenset({"any", "anything", "mixed", ""})
_TRUE = frozenset({"true", "yes", "y", "1", "on"})
_FALSE = frozenset({"false", "no", "n", "0", "off"})
_MAX_DEPTH = 32


class SchemaNormalizedWarning(UserWarning):
    """A function definition was not standard JSON Schema and was normalised (details inside)."""


def normalize_parameters(parameters: Any) -> tuple[dict[str, Any], list[str]]:
    """``(standard object schema, list of changes made)`` for a loose parameter schema.

    Never mutates ``parameters``.
    """
    changes: list[str] = []
    if not isinstance(parameters, Mapping):
        if parameters is not None:
            changes.append(f"parameters {parameters!r:.60} is not an object; no parameters used")
        return {"type": "object", "properties": {}}, changes
    schema = _Normalizer(changes).node(copy.deepcopy(dict(parameters)), "(parameters)", 0)
    if schema.get("type") != "object":
        changes.append(f"the parameters' type {schema.get('type')!r} was changed to 'object'")
        schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema, changes


class _Normalizer:
    def __init__(self, changes: list[str]) -> None:
        self.changes = changes

    def note(self, path: str, text: str) -> None:
        self.changes.append(f"{path}: {text}")

    def node(self, node: Any, path: str, depth: int) -> Any:
        if depth > _MAX_DEPTH or not isinstance(node, dict):
            return node
        self._type(node, path)
        props = node.get("properties")
        if "properties" in node and not isinstance(props, dict):
            self.note(path, "`properties` is not an object; dropped")
            del node["properties"]
            props = None
        optional: set[str] = set()
        if isinstance(props, dict):
            for name, sub in list(props.items()):
                if isinstance(sub, dict) and "optional" in sub and _truthy(sub.pop("optional")):
                    optional.add(name)
                props[name] = self.node(sub, _join(path, name), depth + 1)
        flag = node.pop("optional", None)
        if isinstance(flag, list):
            optional.update(n for n in flag if isinstance(n, str))
        self._required(node, path, optional)
        items = node.get("items")
        if isinstance(items, list):
            node["prefixItems"] = [self.node(i, f"{path}[]", depth + 1) for i in items]
            del node["items"]
            self.note(path, "`items` as a list was read as `prefixItems`")
        elif isinstance(items, dict):
            node["items"] = self.node(items, f"{path}[]", depth + 1)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            node["additionalProperties"] = self.node(extra, f"{path}.*", depth + 1)
        for key in ("anyOf", "oneOf", "allOf"):
            if isinstance(node.get(key), list):
                node[key] = [self.node(v, path, depth + 1) for v in node[key]]
        if "enum" in node and not isinstance(node["enum"], list):
            self.note(path, f"`enum` {node['enum']!r:.60} is not a list; dropped")
            del node["enum"]
        if isinstance(node.get("enum"), list) and isinstance(node.get("type"), str):
            self._enum(node, path)
        if "default" in node:
            self._default(node, path)
        return node

    def _type(self, node: dict[str, Any], path: str) -> None:
        if "type" not in node:
            return
        raw = node["type"]
        kinds = raw if isinstance(raw, list) else [raw]
        mapped: list[str] = []
        for kind in kinds:
            key = kind.strip().lower() if isinstance(kind, str) else None
            if key in _ANY:
                mapped = []
                break
            if key is None or key not in _TYPES:
                self.note(path, f"unknown type {kind!r} read as any value")
                mapped = []
                break
            mapped.append(_TYPES[key])
        if not mapped:
            del node["type"]
            return
        # Aliases such as dict/float/tuple are routine and mapped without a warning.
        node["type"] = mapped[0] if len(mapped) == 1 else list(dict.fromkeys(mapped))

    def _required(self, node: dict[str, Any], path: str, optional: set[str]) -> None:
        if "required" not in node:
            return
        raw = node["required"]
        if not isinstance(raw, list):
            self.note(path, f"`required` {raw!r:.60} is not a list; dropped")
            del node["required"]
            return
        declared = node.get("properties")
        props: dict[str, Any] = declared if isinstance(declared, dict) else {}
        kept: list[str] = []
        for name in raw:
            if not isinstance(name, str) or name not in props:
                self.note(path, f"required parameter {name!r} is not declared; dropped")
            elif name in optional:
                self.note(path, f"parameter {name!r} is marked both required and optional")
            elif name not in kept:
                kept.append(name)
        if kept:
            node["required"] = kept
        else:
            del node["required"]

    def _enum(self, node: dict[str, Any], path: str) -> None:
        """An ``enum`` whose values contradict the ``type`` would admit no value at all: its
        values are read in that type when they all can be (``"1"`` for an integer), else the
        type becomes the one the values have."""
        kind: str = node["type"]
        values: list[Any] = node["enum"]
        if all(_of_type(v, kind) for v in values):
            return
        coerced = [v if _of_type(v, kind) else _coerce(v, kind) for v in values]
        if all(c is not _NO for c in coerced) and len(set(map(repr, coerced))) == len(coerced):
            self.note(path, f"enum {values!r:.60} read as {coerced!r:.60} (the type is {kind})")
            node["enum"] = coerced
            return
        kinds = sorted({json_type_of(v) for v in values})
        node["type"] = kinds[0] if len(kinds) == 1 else kinds
        self.note(path, f"type {kind!r} contradicts enum {values!r:.60}; read as {node['type']!r}")

    def _default(self, node: dict[str, Any], path: str) -> None:
        default = node["default"]
        probe = {k: v for k, v in node.items() if k != "default"}
        if _valid(probe, default):
            return
        if default is None:  # "no default", as commonly written: nothing is lost
            del node["default"]
            return
        if isinstance(default, str) and default.strip() in ("None", "null"):
            self.note(path, "default null on a type that refuses null; default dropped")
            del node["default"]
            return
        coerced = _coerce(default, probe.get("type"))
        if coerced is not _NO and _valid(probe, coerced):
            self.note(path, f"default {default!r} read as {coerced!r}")
            node["default"] = coerced
            return
        why = (
            "outside its enum"
            if isinstance(node.get("enum"), list) and default not in node["enum"]
            else "not valid for its schema"
        )
        self.note(path, f"default {default!r} is {why}; default dropped")
        del node["default"]


_NO = object()


def _coerce(value: Any, kind: Any) -> Any:
    if not isinstance(value, str):
        return _NO
    text = value.strip()
    if kind == "boolean":
        low = text.lower()
        return True if low in _TRUE else False if low in _FALSE else _NO
    if kind in ("integer", "number"):
        try:
            number = float(text)
        except ValueError:
            return _NO
        if kind == "integer":
            return int(number) if number.is_integer() else _NO
        return number
    if kind in ("array", "object"):
        try:
            return json.loads(text)
        except ValueError:
            return _NO
    return _NO


def _valid(schema: Mapping[str, Any], value: Any) -> bool:
    try:
        compile_schema(schema, forbid_extra=False).validate_python(value, strict=True)
    except SchemaCompileError:
        return True  # the schema itself is the problem; leave the default to the tool's check
    except Exception:
        return False
    return True


def _of_type(value: Any, kind: str) -> bool:
    """Whether ``value`` is a JSON value of type ``kind`` (``2.0`` counts as an integer)."""
    found = json_type_of(value)
    if kind == "number":
        return found in ("integer", "number")
    if kind == "integer":
        return found == "integer" or (isinstance(value, float) and value.is_integer())
    return found == kind


def _truthy(flag: Any) -> bool:
    if isinstance(flag, str):
        return flag.strip().lower() in _TRUE
    return bool(flag) and not isinstance(flag, list)


def _join(path: str, name: str) -> str:
    return name if path == "(parameters)" else f"{path}.{name}"


def _definition(definition: Any) -> Mapping[str, Any]:
    if isinstance(definition, str | bytes):
        definition = json.loads(definition)
    if not isinstance(definition, Mapping):
        raise TypeError(f"a function definition must be a JSON object, got {definition!r:.80}")
    inner = definition.get("function")
    if definition.get("type") == "function" and isinstance(inner, Mapping):
        return inner  # Chat Completions tool wrapper
    return definition


def tool_from_function_definition(
    definition: Mapping[str, Any] | str, func: Callable[..., Any], *, warn: bool = True
) -> Tool:
    """A :class:`~toolrig.Tool` from an OpenAI-style definition (``{"name", "description",
    "parameters"}``, optionally wrapped as ``{"type": "function", "function": {...}}``, or the
    same as JSON text) that runs ``func`` with the validated arguments as keywords.

    Quirks are normalised (see :func:`normalize_parameters`) and reported in one
    :class:`SchemaNormalizedWarning` when ``warn``.
    """
    data = _definition(definition)
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise TypeError(f"a function definition needs a 'name', got {dict(data)!r:.120}")
    params, changes = normalize_parameters(data.get("parameters", data.get("input_schema")))
    if changes and warn:
        warnings.warn(
            SchemaNormalizedWarning(
                f"function {name!r} was normalised:\n" + "\n".join(f"  - {c}" for c in changes)
            ),
            stacklevel=2,
        )
    description = data.get("description")
    return Tool(
        name=name,
        description=description if isinstance(description, str) else "",
        parameters=params,
        func=func,
    )


def tools_from_function_definitions(
    definitions: Iterable[Mapping[str, Any]] | str,
    funcs: Mapping[str, Callable[..., Any]] | Callable[[str], Callable[..., Any]],
    *,
    warn: bool = True,
) -> list[Tool]:
    """Tools from a list of definitions (or its JSON text); ``funcs`` maps each function name
    to its callable (a mapping, or a function of the name)."""
    if isinstance(definitions, str):
        definitions = json.loads(definitions)
    tools = []
    for definition in definitions:
        data = _definition(definition)
        name = str(data.get("name", ""))
        func = funcs.get(name) if isinstance(funcs, Mapping) else funcs(name)
        if func is None:
            raise KeyError(f"no callable given for function {name!r}")
        tools.append(tool_from_function_definition(data, func, warn=warn))
    return tools

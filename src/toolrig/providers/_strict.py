"""OpenAI strict mode: rewrite a parameter schema into the subset strict mode accepts.

Strict mode wants every object closed (``additionalProperties: false``) with every property
required, and supports only some keywords. The rewrite, in order, for each node:

1. follow ``$ref`` (inlined; a recursive reference becomes JSON text), fold ``allOf``,
   read ``oneOf`` as ``anyOf``;
2. split multi-type unions into ``anyOf``;
3. objects: close them, require every property, make the optional ones nullable (a ``null``
   from the model means "not given", see `restore_arguments`);
4. values strict mode cannot describe (any value, free-form objects, tuples) become JSON text;
5. keywords strict mode does not support (``default``, ``minLength``, ``uniqueItems``, ...) move
   into the description, where the model still reads them.

The executor still validates calls against the original schema, so the rewrite never changes
which calls are valid; it only guides the model. Bounded in depth and size; never mutates its
input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolrig.providers._schema_walk import (
    JSON_TEXT_NOTE,
    SchemaRewriteError,
    SchemaRewriter,
    constraint_note,
    is_opaque,
    split_types,
    with_notes,
)

__all__ = ["StrictSchemaError", "to_strict_schema"]

_KEPT = {
    "string": ("pattern",),
    "integer": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "array": ("minItems", "maxItems"),
}
_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_STRUCTURE = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "anyOf",
        "oneOf",
        "allOf",
        "enum",
        "const",
        "nullable",
        "description",
        "title",
        "$defs",
        "definitions",
        "$ref",
        "format",
    }
)
_SILENT = frozenset(
    {"$schema", "$id", "$comment", "$anchor", "examples", "deprecated", "readOnly", "writeOnly"}
)


class StrictSchemaError(SchemaRewriteError):
    """The schema cannot be expressed in strict mode (e.g. the top level accepts any key)."""


def to_strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A strict-mode version of the object schema ``schema`` (a new dict).

    Raises `StrictSchemaError` when the top level is not a plain object, or accepts
    arbitrary extra keys, which strict mode cannot express.
    """
    types, nullable = split_types(schema)
    if types not in ([], ["object"]) or nullable or "anyOf" in schema or "oneOf" in schema:
        raise StrictSchemaError("the top level of a strict schema must be a plain object")
    extra = schema.get("additionalProperties")
    if extra not in (None, False) or "patternProperties" in schema:
        raise StrictSchemaError(
            "the parameters accept arbitrary extra keys, which strict mode cannot express"
        )
    rewriter = _StrictRewriter(schema.get("$defs") or schema.get("definitions") or {})
    root = {**schema, "type": "object", "properties": schema.get("properties") or {}}
    out: dict[str, Any] = rewriter.node(root, depth=0, stack=(), top=True)
    return out


class _StrictRewriter(SchemaRewriter):
    error = StrictSchemaError
    target = "strict mode"

    def opaque(self, description: Any, notes: list[str]) -> dict[str, Any]:
        return _json_text(description, notes)

    def typed(
        self, node: Mapping[str, Any], *, depth: int, stack: tuple[str, ...], top: bool
    ) -> Any:
        if is_opaque(node, self.defs, top=top):
            return _json_text(node.get("description"), _notes(node, keep=()), node.get("title"))
        types, nullable = split_types(node)
        if len(types) > 1:
            bare = {k: v for k, v in node.items() if k not in ("description", "title", "default")}
            options = [
                self.node({**bare, "type": t, "nullable": False}, depth=depth + 1, stack=stack)
                for t in types
            ]
            if nullable:
                options.append({"type": "null"})
            out: dict[str, Any] = {"anyOf": options}
            notes = [constraint_note("default", node["default"])] if "default" in node else []
            return _described(out, node.get("description"), notes, node.get("title"))
        kind = types[0] if types else "null"
        out = {"type": [kind, "null"] if nullable and kind != "null" else kind}
        kept: tuple[str, ...] = _KEPT.get(kind, ())
        if "enum" in node or "const" in node:
            values = list(node["enum"]) if "enum" in node else [node["const"]]
            if nullable and None not in values:
                values.append(None)
            out["enum"] = values
        if kind == "object":
            self._object(node, out, depth, stack)
        elif kind == "array":
            out["items"] = self.node(node.get("items", True), depth=depth + 1, stack=stack)
        fmt = node.get("format")
        if kind == "string" and isinstance(fmt, str) and fmt in _FORMATS:
            out["format"] = fmt
            kept = (*kept, "format")
        for key in kept:
            value = node.get(key)
            if isinstance(value, int | float | str) and not isinstance(value, bool):
                out[key] = value
        return _described(out, node.get("description"), _notes(node, keep=kept), node.get("title"))

    def _object(
        self, node: Mapping[str, Any], out: dict[str, Any], depth: int, stack: tuple[str, ...]
    ) -> None:
        props = node.get("properties") or {}
        if not isinstance(props, Mapping):
            raise StrictSchemaError("properties must be an object")
        required = set(node.get("required") or ())
        converted: dict[str, Any] = {}
        for name, sub in props.items():
            new = self.node(sub, depth=depth + 1, stack=stack)
            converted[name] = new if name in required else _nullable(new)
        out["properties"] = converted
        out["required"] = list(converted)
        out["additionalProperties"] = False

    def union(
        self, node: Mapping[str, Any], variants: list[Any], depth: int, stack: tuple[str, ...]
    ) -> dict[str, Any]:
        options: list[Any] = []
        for variant in variants:
            new = self.node(variant, depth=depth + 1, stack=stack)
            if new not in options:
                options.append(new)
        if node.get("nullable") is True and {"type": "null"} not in options:
            options.append({"type": "null"})
        notes = _notes(node, keep=(), ignore=("anyOf", "oneOf"))
        return _described({"anyOf": options}, node.get("description"), notes, node.get("title"))


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` also accepting ``null`` (for a parameter that was optional)."""
    if "anyOf" in node:
        if any(o.get("type") == "null" for o in node["anyOf"]):
            return node
        return {**node, "anyOf": [*node["anyOf"], {"type": "null"}]}
    out = dict(node)
    kind = out.get("type")
    if isinstance(kind, str) and kind != "null":
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def _json_text(
    description: Any, notes: list[str] | None = None, title: Any = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string"}
    return _described(out, description, [*(notes or []), JSON_TEXT_NOTE], title)


def _described(
    out: dict[str, Any], description: Any, notes: list[str], title: Any
) -> dict[str, Any]:
    if isinstance(title, str) and title:
        out["title"] = title
    text = with_notes(description, notes)
    if text:
        out["description"] = text
    return out


def _notes(
    node: Mapping[str, Any], *, keep: tuple[str, ...], ignore: tuple[str, ...] = ()
) -> list[str]:
    notes = []
    for key, value in node.items():
        if key in keep or key in ignore or key in _SILENT or key.startswith("x-"):
            continue
        if key in _STRUCTURE and key != "format":
            continue
        if key == "format" and "format" in keep:
            continue
        if key == "default" and value is None:
            continue
        notes.append(constraint_note(key, value))
    return notes

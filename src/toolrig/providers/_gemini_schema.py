"""Gemini's schema subset: rewrite a JSON Schema into a Gemini ``Schema`` (as plain data).

Gemini reads an OpenAPI-3.0-like subset: one upper-case ``type`` per node, ``nullable: true``
instead of ``null`` unions, string-only ``enum``, no ``$defs``/``$ref`` (inlined here), no
``additionalProperties`` (rejected by the Gemini API), no ``$schema``, and no objects without
properties. What the subset cannot say becomes JSON text or a sentence in the description;
the executor still validates calls against the original schema.
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

__all__ = ["to_gemini_schema"]

_KEPT = {
    "string": ("minLength", "maxLength", "pattern"),
    "integer": ("minimum", "maximum"),
    "number": ("minimum", "maximum"),
    "array": ("minItems", "maxItems"),
    "object": ("minProperties", "maxProperties"),
}
_FORMATS = {
    "string": frozenset({"enum", "date-time"}),
    "integer": frozenset({"int32", "int64"}),
    "number": frozenset({"float", "double"}),
}
_HANDLED = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "nullable",
        "description",
        "title",
        "$defs",
        "definitions",
        "$ref",
        "$schema",
        "$id",
        "$comment",
        "$anchor",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)
_KNOWN_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})


def to_gemini_schema(schema: Mapping[str, Any], *, top: bool = True) -> dict[str, Any]:
    """The Gemini ``Schema`` (camelCase keys, as the REST API and ``google-genai`` read it)
    for ``schema``. ``top`` marks a parameter object (closed, properties kept as given)."""
    defs = schema.get("$defs") or schema.get("definitions") or {}
    if not isinstance(defs, Mapping):
        raise SchemaRewriteError("$defs must be an object")
    out: dict[str, Any] = _GeminiRewriter(defs).node(schema, depth=0, stack=(), top=top)
    return out


class _GeminiRewriter(SchemaRewriter):
    error = SchemaRewriteError
    target = "Gemini"

    def opaque(self, description: Any, notes: list[str]) -> dict[str, Any]:
        return _json_text(description, notes)

    def typed(
        self, node: Mapping[str, Any], *, depth: int, stack: tuple[str, ...], top: bool
    ) -> Any:
        types, nullable = split_types(node)
        if is_opaque(node, self.defs, top=top) or not set(types) <= _KNOWN_TYPES:
            return _json_text(node.get("description"), _notes(node, ()), node.get("title"))
        if len(types) > 1:
            bare = {k: v for k, v in node.items() if k not in ("description", "title", "default")}
            options = [
                self.node({**bare, "type": t, "nullable": False}, depth=depth + 1, stack=stack)
                for t in types
            ]
            out: dict[str, Any] = {"anyOf": options}
            if nullable:
                out["nullable"] = True
            notes = [constraint_note("default", node["default"])] if "default" in node else []
            return _described(out, node.get("description"), notes, node.get("title"))
        kind = types[0] if types else "null"
        out = {"type": kind.upper()}
        if nullable and kind != "null":
            out["nullable"] = True
        kept: tuple[str, ...] = _KEPT.get(kind, ())
        values = (
            list(node["enum"]) if "enum" in node else [node["const"]] if "const" in node else []
        )
        if values and kind == "string" and all(isinstance(v, str) for v in values if v is not None):
            out["enum"] = [v for v in values if v is not None]
            kept = (*kept, "enum", "const")
        if kind == "object":
            self._object(node, out, depth, stack)
        elif kind == "array":
            out["items"] = self.node(node.get("items", True), depth=depth + 1, stack=stack)
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS.get(kind, ()):
            out["format"] = fmt
            kept = (*kept, "format")
        kept = tuple(k for k in kept if k in ("enum", "const", "format") or _keepable(k, node))
        for key in kept:
            if key not in ("enum", "const", "format") and key in node:
                out[key] = node[key]
        return _described(out, node.get("description"), _notes(node, kept), node.get("title"))

    def _object(
        self, node: Mapping[str, Any], out: dict[str, Any], depth: int, stack: tuple[str, ...]
    ) -> None:
        props = node.get("properties") or {}
        if not isinstance(props, Mapping):
            raise SchemaRewriteError("properties must be an object")
        converted = {
            name: self.node(sub, depth=depth + 1, stack=stack) for name, sub in props.items()
        }
        if converted:
            out["properties"] = converted
        required = [r for r in node.get("required") or () if r in converted]
        if required:
            out["required"] = list(dict.fromkeys(required))

    def union(
        self, node: Mapping[str, Any], variants: list[Any], depth: int, stack: tuple[str, ...]
    ) -> dict[str, Any]:
        options: list[dict[str, Any]] = []
        nullable = node.get("nullable") is True
        for variant in variants:
            new = self.node(variant, depth=depth + 1, stack=stack)
            if new.get("type") == "NULL":
                nullable = True
            elif new not in options:
                options.append(new)
        notes = _notes(node, ())
        if not options:
            out: dict[str, Any] = {"type": "NULL"}
        elif len(options) == 1:
            out = dict(options[0])
            if nullable:
                out["nullable"] = True
            inner = out.pop("description", None)
            if inner and not node.get("description"):
                notes.insert(0, inner)
        else:
            out = {"anyOf": options}
            if nullable:
                out["nullable"] = True
        return _described(out, node.get("description"), notes, node.get("title"))


def _keepable(key: str, node: Mapping[str, Any]) -> bool:
    """Whether ``node[key]`` is a value Gemini takes for that keyword (else it becomes a note)."""
    value = node.get(key)
    if value is None or isinstance(value, bool):
        return False
    if key in ("minimum", "maximum"):
        return isinstance(value, int | float)
    if key == "pattern":
        return isinstance(value, str)
    return isinstance(value, int) and value >= 0


def _json_text(description: Any, notes: list[str], title: Any = None) -> dict[str, Any]:
    return _described({"type": "STRING"}, description, [*notes, JSON_TEXT_NOTE], title)


def _described(
    out: dict[str, Any], description: Any, notes: list[str], title: Any
) -> dict[str, Any]:
    if isinstance(title, str) and title:
        out["title"] = title
    text = with_notes(description, notes)
    if text:
        out["description"] = text
    return out


def _notes(node: Mapping[str, Any], kept: tuple[str, ...]) -> list[str]:
    notes = []
    for key, value in node.items():
        if key in kept or key in _HANDLED or key.startswith("x-"):
            continue
        if key == "default" and value is None:
            continue
        notes.append(constraint_note(key, value))
    return notes

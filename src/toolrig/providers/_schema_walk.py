"""Shared pieces of the provider schema rewrites (OpenAI strict, Gemini) and their inverse.

Some providers accept only a subset of JSON Schema. Values the subset cannot describe (any
value, objects with free-form keys, recursive shapes) are exported as *JSON text*: a string
holding the JSON value. :func:`restore_arguments` undoes that, and turns the ``null`` a model
sends for an optional parameter back into "not given", so the executor validates the call
against the original schema exactly as if the model had seen that schema.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from toolrig.core.schema._json_data import loads_json
from toolrig.core.schema._validation import json_type_of

__all__ = [
    "JSON_TEXT_NOTE",
    "SchemaRewriteError",
    "SchemaRewriter",
    "accepts_null",
    "constraint_note",
    "is_opaque",
    "merge_all_of",
    "resolve_ref",
    "restore_arguments",
    "split_types",
]

JSON_TEXT_NOTE = "Give this value as JSON text."
MAX_DEPTH = 64
"""Deepest nesting a rewrite follows; deeper schemas are refused."""
MAX_NODES = 20_000
"""Most schema nodes a rewrite produces (guards against ``$ref`` fan-out)."""

_TYPE_ALIASES = {"dict": "object", "float": "number", "tuple": "array", "list": "array"}
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "$anchor", "examples", "deprecated", "readOnly", "writeOnly"}
)


class SchemaRewriteError(ValueError):
    """A schema cannot be rewritten for a provider without changing which calls are valid."""


def resolve_ref(node: Any, defs: Mapping[str, Any]) -> tuple[Any, str | None]:
    """``(target, name)`` for a local ``$ref`` node (siblings override the target's keys);
    ``(node, None)`` for any other node."""
    if not isinstance(node, Mapping) or not isinstance(node.get("$ref"), str):
        return node, None
    ref: str = node["$ref"]
    name = ref.rsplit("/", 1)[-1]
    if not (ref.startswith(("#/$defs/", "#/definitions/")) and name in defs):
        raise SchemaRewriteError(f"reference {ref!r} does not point into $defs")
    target = defs[name]
    siblings = {k: v for k, v in node.items() if k != "$ref"}
    if siblings and isinstance(target, Mapping):
        return {**target, **siblings}, name
    return target, name


def deref(node: Any, defs: Mapping[str, Any]) -> Any:
    """``node`` with local references followed (a bounded number of hops)."""
    for _ in range(16):
        node, name = resolve_ref(node, defs)
        if name is None:
            break
    return node


def merge_all_of(node: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    """``node`` with its ``allOf`` entries folded in: properties and required merged, other
    keywords kept from the node first, then from the entries in order."""
    merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
    properties: dict[str, Any] = dict(merged.get("properties") or {})
    required: list[str] = list(merged.get("required") or [])
    for entry in node.get("allOf") or []:
        entry = deref(entry, defs)
        if not isinstance(entry, Mapping):
            continue
        if "allOf" in entry:
            entry = merge_all_of(entry, defs)
        for key, value in entry.items():
            if key == "properties" and isinstance(value, Mapping):
                properties.update(value)
            elif key == "required" and isinstance(value, list):
                required.extend(r for r in value if r not in required)
            else:
                merged.setdefault(key, value)
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = required
    return merged


def split_types(node: Mapping[str, Any]) -> tuple[list[str], bool]:
    """``(non-null types, accepts null)`` of a node, inferring the type when it is left out
    (``properties`` means object, ``items`` array, an enum the types of its values)."""
    raw = node.get("type")
    types: list[str]
    if isinstance(raw, str):
        types = [raw]
    elif isinstance(raw, list):
        types = [t for t in raw if isinstance(t, str)]
    elif "properties" in node or "additionalProperties" in node:
        types = ["object"]
    elif "items" in node or "prefixItems" in node:
        types = ["array"]
    elif isinstance(node.get("enum"), list):
        types = sorted({json_type_of(v) for v in node["enum"]})
    elif "const" in node:
        types = [json_type_of(node["const"])]
    else:
        types = []
    types = [_TYPE_ALIASES.get(t, t) for t in types]
    nullable = "null" in types or node.get("nullable") is True
    return [t for t in dict.fromkeys(types) if t != "null"], nullable


def is_opaque(node: Any, defs: Mapping[str, Any], *, top: bool = False) -> bool:
    """Whether a provider subset cannot describe ``node``: any value, an object open to
    free-form keys (the top level is closed unless it says otherwise), or a tuple."""
    node = deref(node, defs)
    if node is True or node is None:
        return True
    if not isinstance(node, Mapping):
        return False
    if any(k in node for k in ("anyOf", "oneOf", "allOf", "const", "enum")):
        return False
    types, nullable = split_types(node)
    if not types:
        return not nullable  # no type at all is any value; only "null" is not
    if "object" in types:
        extra = node.get("additionalProperties")
        if extra not in (None, False) or "patternProperties" in node:
            return True
        return not node.get("properties") and extra is None and not top
    return "array" in types and "prefixItems" in node


def accepts_null(node: Any, defs: Mapping[str, Any]) -> bool:
    """Whether ``null`` is a valid value for ``node`` (as the executor's validator sees it)."""
    node = deref(node, defs)
    if node is True or node is None:
        return True
    if not isinstance(node, Mapping):
        return False
    if "const" in node:
        return node["const"] is None
    if isinstance(node.get("enum"), list):
        return None in node["enum"]
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            return any(accepts_null(v, defs) for v in node[key])
    if isinstance(node.get("allOf"), list):
        return all(accepts_null(v, defs) for v in node["allOf"])
    types, nullable = split_types(node)
    return nullable or not types


def constraint_note(key: str, value: Any) -> str:
    """A sentence describing a keyword the provider does not accept (kept for the model)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    labels = {
        "default": "Default",
        "minLength": "At least {} characters",
        "maxLength": "At most {} characters",
        "minItems": "At least {} items",
        "maxItems": "At most {} items",
        "minimum": "Minimum",
        "maximum": "Maximum",
        "exclusiveMinimum": "Greater than",
        "exclusiveMaximum": "Less than",
        "multipleOf": "A multiple of",
        "uniqueItems": "Items must be unique",
        "minProperties": "At least {} keys",
        "maxProperties": "At most {} keys",
        "format": "Format",
        "pattern": "Must match the pattern",
        "enum": "One of",
        "const": "Exactly",
    }
    label = labels.get(key)
    if label is None:
        return f"{key}: {text}."
    if key == "uniqueItems":
        return f"{label}." if value is True else ""
    if "{}" in label:
        return label.format(text) + "."
    return f"{label}: {text}."


def with_notes(description: Any, notes: list[str]) -> str | None:
    """The description followed by the notes (``None`` when both are empty)."""
    parts = [description] if isinstance(description, str) and description else []
    parts.extend(n for n in notes if n)
    return " ".join(parts) if parts else None


def restore_arguments(
    arguments: Mapping[str, Any], schema: Mapping[str, Any], *, json_text: bool = True
) -> dict[str, Any]:
    """The arguments a model sent for a rewritten schema, put back in terms of ``schema``.

    * ``null`` for an optional parameter whose schema refuses ``null`` means "not given" and
      is dropped (strict mode makes every parameter required and optional ones nullable); so
      does, with ``json_text``, a ``null`` for an optional parameter exported as JSON text
      (any value, say): a model gives JSON ``null`` there as the text ``"null"``;
    * with ``json_text``, a string given where ``schema`` describes a value exported as JSON
      text is decoded (it stays a string when it is not valid JSON, so validation reports it).

    Never mutates ``arguments``; containers are copied only where something changes.
    """
    defs = schema.get("$defs") or schema.get("definitions") or {}
    restored = _restore(arguments, schema, defs, json_text, 0, top=True)
    return dict(restored) if isinstance(restored, Mapping) else dict(arguments)


def _restore(
    value: Any, node: Any, defs: Mapping[str, Any], json_text: bool, depth: int, *, top: bool
) -> Any:
    if depth > MAX_DEPTH:
        return value
    try:
        node = deref(node, defs)
    except SchemaRewriteError:
        return value
    if isinstance(node, Mapping) and "allOf" in node:
        node = merge_all_of(node, defs)
    if json_text and isinstance(value, str) and is_opaque(node, defs, top=top):
        return _decode(value, node if isinstance(node, Mapping) else {})
    if not isinstance(node, Mapping):
        return value
    variants = node.get("anyOf", node.get("oneOf"))
    if json_text and isinstance(value, str) and isinstance(variants, list):
        # A string for a union: JSON text for its opaque member, unless a member takes strings.
        targets = [deref(v, defs) for v in variants]
        if not any(isinstance(t, Mapping) and "string" in split_types(t)[0] for t in targets):
            opaque = [t for t in targets if is_opaque(t, defs)]
            if opaque:
                return _decode(value, opaque[0] if isinstance(opaque[0], Mapping) else {})
        return value
    if isinstance(variants, list) and isinstance(value, Mapping | list):
        # Follow the first variant of the value's shape (Optional[Model] and similar).
        key = "properties" if isinstance(value, Mapping) else "items"
        for variant in variants:
            target = deref(variant, defs)
            if isinstance(target, Mapping) and key in target:
                return _restore(value, target, defs, json_text, depth + 1, top=False)
        return value
    props = node.get("properties")
    if isinstance(value, Mapping) and isinstance(props, Mapping):
        required = set(node.get("required") or ())
        out: dict[str, Any] = {}
        changed = False
        for key, item in value.items():
            sub = props.get(key)
            if sub is None:
                out[key] = item
            elif (
                item is None
                and key not in required
                and (not accepts_null(sub, defs) or (json_text and is_opaque(sub, defs)))
            ):
                changed = True  # "not given": the parameter's default applies
            else:
                new = _restore(item, sub, defs, json_text, depth + 1, top=False)
                changed = changed or new is not item
                out[key] = new
        return out if changed else value
    items = node.get("items")
    if isinstance(value, list) and isinstance(items, Mapping | bool):
        new_items = [_restore(v, items, defs, json_text, depth + 1, top=False) for v in value]
        if any(a is not b for a, b in zip(new_items, value, strict=True)):
            return new_items
    return value


def _decode(text: str, node: Mapping[str, Any]) -> Any:
    try:
        decoded = loads_json(text)
    except ValueError:
        return text
    types, _ = split_types(node)
    if "object" in types and not isinstance(decoded, dict):
        return text
    if "array" in types and "object" not in types and not isinstance(decoded, list):
        return text
    return decoded


class SchemaRewriter(ABC):
    """The walk every provider rewrite shares: node and depth budgets, booleans, local
    ``$ref`` (recursion becomes JSON text), ``allOf`` folding, and unions; a subclass says how
    to write opaque values, unions and typed nodes for its provider."""

    error: type[SchemaRewriteError] = SchemaRewriteError
    target = "a provider"

    def __init__(self, defs: Mapping[str, Any]) -> None:
        if not isinstance(defs, Mapping):
            raise self.error("$defs must be an object")
        self.defs = defs
        self.budget = MAX_NODES

    def node(self, node: Any, *, depth: int, stack: tuple[str, ...], top: bool = False) -> Any:
        """The rewritten ``node``; ``stack`` holds the ``$ref`` names being expanded."""
        self.budget -= 1
        if self.budget < 0:
            raise self.error(f"schema too large to rewrite for {self.target}")
        if depth > MAX_DEPTH:
            raise self.error(f"schema nested deeper than {MAX_DEPTH} levels")
        if node is True or node is None:
            return self.opaque(None, [])
        if node is False or not isinstance(node, Mapping):
            raise self.error(f"cannot rewrite schema node {node!r:.80}")
        target, ref = resolve_ref(node, self.defs)
        if ref is not None:
            if ref in stack:
                return self.opaque(node.get("description"), ["A recursive structure."])
            return self.node(target, depth=depth + 1, stack=(*stack, ref), top=top)
        if "allOf" in node:
            node = merge_all_of(node, self.defs)
        variants = node.get("anyOf", node.get("oneOf"))
        if isinstance(variants, list) and variants:
            return self.union(node, variants, depth, stack)
        return self.typed(node, depth=depth, stack=stack, top=top)

    @abstractmethod
    def opaque(self, description: Any, notes: list[str]) -> dict[str, Any]:
        """A value the provider cannot describe, carried as JSON text."""

    @abstractmethod
    def union(
        self, node: Mapping[str, Any], variants: list[Any], depth: int, stack: tuple[str, ...]
    ) -> Any:
        """An ``anyOf``/``oneOf`` node."""

    @abstractmethod
    def typed(
        self, node: Mapping[str, Any], *, depth: int, stack: tuple[str, ...], top: bool
    ) -> Any:
        """Any other node (its ``type`` decides)."""

"""The catalogue's try-it form: fields from an action's JSON Schema, and a call through the
executor's pipeline with what was typed.

Typed values are turned into JSON by the field's declared type; a value that does not read
as that type is passed on as typed, so the pipeline's own validation answers it (the same
error a model would get), instead of a second validator here that could disagree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Field", "arguments_from_form", "fields_of", "is_secret"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Field:
    """One form field for one top-level parameter."""

    name: str
    kind: str
    """``string``, ``integer``, ``number``, ``boolean``, ``enum`` or ``json`` (objects,
    arrays and anything else, typed as JSON text)."""
    required: bool
    description: str
    default: str
    choices: tuple[str, ...] = ()
    """An enum's members as the form shows them (JSON text for those not strings)."""
    values: tuple[Any, ...] = ()
    """An enum's members as declared, in the order of ``choices``."""
    secret: bool = False


def is_secret(schema: Mapping[str, Any]) -> bool:
    """Whether a parameter is marked secret (``writeOnly`` or ``format: password``): its value
    is typed in a password field and never shown back."""
    return bool(schema.get("writeOnly")) or schema.get("format") == "password"


def fields_of(parameters: Mapping[str, Any]) -> list[Field]:
    """The form fields of an object schema's top-level properties, in declared order."""
    required = set(parameters.get("required", ()))
    out: list[Field] = []
    for name, schema in (parameters.get("properties") or {}).items():
        schema = schema if isinstance(schema, Mapping) else {}
        kind = _kind(schema)
        default = schema.get("default")
        shown = "" if default is None else _label(default)
        members = tuple(schema.get("enum", ())) if kind == "enum" else ()
        out.append(
            Field(
                name=name,
                kind=kind,
                required=name in required,
                description=str(schema.get("description", "")),
                default="" if is_secret(schema) else shown,
                choices=tuple(_label(m) for m in members),
                values=members,
                secret=is_secret(schema),
            )
        )
    return out


def _label(value: Any) -> str:
    """A value as a form field holds it: a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def _kind(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return "enum"
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    return kind if kind in ("string", "integer", "number", "boolean") else "json"


def arguments_from_form(fields: list[Field], form: Mapping[str, str]) -> dict[str, Any]:
    """The call's arguments from the submitted form (empty fields are left out; a checkbox
    is sent unticked as ``off``, so it is ``False`` rather than its default)."""
    args: dict[str, Any] = {}
    for field in fields:
        raw = form.get(field.name)
        if field.kind == "boolean":
            if raw is not None:
                args[field.name] = raw in ("on", "true", "1")
            continue
        if raw is None or raw == "":
            continue
        if field.kind == "enum":  # the member as declared (2, not "2"); else as typed
            chosen = field.choices.index(raw) if raw in field.choices else None
            args[field.name] = raw if chosen is None else field.values[chosen]
            continue
        args[field.name] = _value(field.kind, raw)
    return args


def _value(kind: str, raw: str) -> Any:
    try:
        if kind == "integer":
            return int(raw)
        if kind == "number":
            return float(raw)
        if kind == "json":
            return json.loads(raw)
    except (ValueError, RecursionError):  # also JSON nested deeper than the parser goes
        return raw  # the pipeline's validation says what is wrong, as it would to a model
    return raw

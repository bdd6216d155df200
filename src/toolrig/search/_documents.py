"""The searchable documents of a tool: one per action, with its text fields and filter facts.

A multi-action tool's action documents carry the tool's own text too, so a request that names
the tool finds its actions and one that describes an action finds that action first.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolrig.core._spec import ToolAnnotations, ToolSpec

__all__ = ["FIELDS", "ActionDocument", "documents_of"]

FIELDS: Final = ("name", "description", "tags", "parameters", "output", "examples")
"""The text fields ranked by BM25F, in this order."""

_MAX_SCHEMA_NODES: Final = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionDocument:
    """One action as search sees it."""

    call_name: str
    """What the executor calls: ``tool`` or ``tool.action``."""
    tool: str
    action: str
    fields: Mapping[str, str]
    """Text per field of :data:`FIELDS` (absent fields are empty)."""
    examples: tuple[str, ...]
    """Sample requests, each embedded on its own by semantic ranking."""
    type: str | None
    layer: str | None
    tags: frozenset[str]
    annotations: ToolAnnotations

    @property
    def dense_text(self) -> str:
        """The passage embedded for semantic ranking: name words, description, output."""
        parts = (self.fields["name"], self.fields["description"], self.fields["output"])
        return ". ".join(p for p in parts if p)


def documents_of(spec: ToolSpec) -> list[ActionDocument]:
    """The documents of every action of ``spec``."""
    multi = spec.is_multi_action
    docs = []
    for action in spec.actions.values():
        description = _join(
            action.description if multi else "",
            action.when_to_use if multi else None,
            spec.description,
            spec.when_to_use,
            "" if multi else action.description if action.description != spec.description else "",
            "" if multi else action.when_to_use if action.when_to_use != spec.when_to_use else "",
        )
        names = [spec.name, spec.display_name or "", action.name if multi else ""]
        docs.append(
            ActionDocument(
                call_name=f"{spec.name}.{action.name}" if multi else spec.name,
                tool=spec.name,
                action=action.name,
                fields={
                    "name": _join(*names),
                    "description": description,
                    "tags": _join(*spec.tags, spec.type or "", spec.layer or ""),
                    "parameters": _join(*_schema_text(action.parameters)),
                    "output": action.output_description or "",
                    "examples": _join(*action.examples, *spec.examples),
                },
                examples=tuple(dict.fromkeys((*action.examples, *spec.examples))),
                type=spec.type,
                layer=spec.layer,
                tags=frozenset(spec.tags),
                annotations=spec.action_annotations(action.name),
            )
        )
    return docs


def _join(*parts: str | None) -> str:
    return " \n".join(p for p in parts if p)


def _schema_text(schema: Mapping[str, Any]) -> Iterator[str]:
    """Property names and descriptions of a JSON Schema, nested ones included (bounded)."""
    stack: list[Any] = [schema]
    seen = 0
    while stack and seen < _MAX_SCHEMA_NODES:
        node = stack.pop()
        seen += 1
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, Mapping):
            continue
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            for key, sub in properties.items():
                yield str(key)
                if isinstance(sub, Mapping) and isinstance(sub.get("description"), str):
                    yield sub["description"]
                stack.append(sub)
        for key in ("items", "anyOf", "oneOf", "allOf", "$defs", "definitions"):
            value = node.get(key)
            if isinstance(value, Mapping) and key in ("$defs", "definitions"):
                stack.extend(value.values())
            elif value is not None:
                stack.append(value)

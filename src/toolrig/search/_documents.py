"""The searchable documents of a tool: one per action, with its text fields and filter facts.

A multi-action tool's action documents carry the tool's own text too, so a request that names
the tool finds its actions and one that describes an action finds that action first.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolrig.core.model._names import ActionRef
from toolrig.core.model._spec import ToolAnnotations, ToolSpec

__all__ = ["FIELDS", "ActionDocument", "documents_of"]

FIELDS: Final = ("name", "description", "tags", "parameters", "output", "examples")
"""The text fields ranked by BM25F, in this order."""

_MAX_SCHEMA_NODES: Final = 200
PIECE_WORDS: Final = 150
"""Words per embedded piece: about 200 of MiniLM's word pieces, inside its 256-token window."""
MAX_PIECES: Final = 8


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

    dense_pieces: tuple[str, ...] = ()
    """The passages embedded for semantic ranking (see :func:`pieces_of`)."""

    @property
    def dense_text(self) -> str:
        """The whole passage embedded for semantic ranking: name words, description,
        parameters (names and descriptions) and output description."""
        return "\n".join(self.dense_pieces)


def documents_of(spec: ToolSpec) -> list[ActionDocument]:
    """The documents of every action of ``spec``."""
    multi = spec.is_multi_action
    docs = []
    for action in spec.actions.values():
        # a single-action tool carries the same sample requests on the tool and the action:
        # each is indexed once
        examples = tuple(dict.fromkeys((*action.examples, *spec.examples)))
        description = _join(
            action.description if multi else "",
            action.when_to_use if multi else None,
            spec.description,
            spec.when_to_use,
            "" if multi else action.description if action.description != spec.description else "",
            "" if multi else action.when_to_use if action.when_to_use != spec.when_to_use else "",
        )
        names = [spec.name, spec.display_name or "", action.name if multi else ""]
        output = action.output_description or ""
        passage = ". ".join(
            p
            for p in (
                _join(*names),
                description,
                _parameter_phrases(action.parameters),
                f"Returns {output}" if output else "",
            )
            if p
        )
        docs.append(
            ActionDocument(
                call_name=ActionRef(spec.name, action.name, multi).call_name,
                tool=spec.name,
                action=action.name,
                fields={
                    "name": _join(*names),
                    "description": description,
                    "tags": _join(*spec.tags, spec.type or "", spec.layer or ""),
                    "parameters": _join(*_schema_text(action.parameters)),
                    "output": output,
                    "examples": _join(*examples),
                },
                examples=examples,
                dense_pieces=pieces_of(passage, _join(*names)),
                type=spec.type,
                layer=spec.layer,
                tags=frozenset(spec.tags),
                annotations=spec.action_annotations(action.name),
            )
        )
    return docs


def pieces_of(text: str, head: str, words: int = PIECE_WORDS) -> tuple[str, ...]:
    """``text`` in pieces of at most ``words`` words, each after the first led by ``head``
    (the tool's name), so every piece fits the model's window and says whose it is."""
    split = text.split(" ")
    if len(split) <= words:
        return (text,)
    lead = head.split()[:16]
    step = max(words - len(lead), 16)
    pieces = [" ".join(split[:words])]
    for start in range(words, len(split), step):
        pieces.append(" ".join([*lead, *split[start : start + step]]))
    return tuple(pieces[:MAX_PIECES])


def _parameter_phrases(schema: Mapping[str, Any]) -> str:
    """``"Parameters: city (the city), unit (celsius or fahrenheit)"``: names and
    descriptions, as a request would mention them."""
    phrases = [
        f"{name} ({description.strip().rstrip('.')})" if description else name
        for name, description in _properties(schema)
    ]
    return "Parameters: " + ", ".join(phrases) if phrases else ""


def _join(*parts: str | None) -> str:
    return " \n".join(p for p in parts if p)


def _schema_text(schema: Mapping[str, Any]) -> Iterator[str]:
    """Property names and descriptions of a JSON Schema, nested ones included (bounded)."""
    for name, description in _properties(schema):
        yield name
        if description:
            yield description


def _properties(schema: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    """``(name, description)`` of each property of a JSON Schema, nested ones included,
    visiting at most a bounded number of nodes."""
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
                description = sub.get("description") if isinstance(sub, Mapping) else None
                yield str(key), description if isinstance(description, str) else None
                stack.append(sub)
        for key in ("items", "anyOf", "oneOf", "allOf", "$defs", "definitions"):
            value = node.get(key)
            if isinstance(value, Mapping) and key in ("$defs", "definitions"):
                stack.extend(value.values())
            elif value is not None:
                stack.append(value)

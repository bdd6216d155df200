"""Intent mapping: ``(domain, category) -> tools``, plus tools that entities call for.

Loaded from YAML or built in code::

    intents:
      reviews:
        sentiment: [data_collector, sentiment_analyzer, report_generator]
    entities:
      competitor: [competitor_analyzer]
      trend: [google_trends]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from toolrig.registry._yamlsrc import YamlSyntaxError, parse_yaml

__all__ = ["IntentMap", "IntentNotFoundError"]

Intent = tuple[str, str] | Mapping[str, str] | str
"""``(domain, category)``, ``{"domain": ..., "category": ...}`` or ``"domain.category"``."""


class IntentNotFoundError(LookupError):
    """No tools are mapped to the intent; ``known`` lists the intents that are."""

    def __init__(self, intent: tuple[str, str], known: Sequence[tuple[str, str]]) -> None:
        self.intent = intent
        self.known = tuple(known)
        listed = ", ".join(f"{d}.{c}" for d, c in self.known) or "(none)"
        super().__init__(f"no tools mapped to intent {intent[0]}.{intent[1]}; known: {listed}")


class _IntentFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    intents: dict[str, dict[str, list[str]]] = {}
    entities: dict[str, list[str]] = {}


class IntentMap:
    """Which tools serve an intent, and which tools an entity type adds."""

    __slots__ = ("entities", "table")

    def __init__(
        self,
        table: Mapping[tuple[str, str], Sequence[str]] | None = None,
        entities: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.table: dict[tuple[str, str], tuple[str, ...]] = {
            key: tuple(tools) for key, tools in (table or {}).items()
        }
        self.entities: dict[str, tuple[str, ...]] = {
            key: tuple(tools) for key, tools in (entities or {}).items()
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IntentMap:
        """From ``{"intents": {domain: {category: [tools]}}, "entities": {entity: [tools]}}``."""
        parsed = _IntentFile.model_validate(data)
        table = {(d, c): tools for d, cats in parsed.intents.items() for c, tools in cats.items()}
        return cls(table, parsed.entities)

    @classmethod
    def from_yaml(cls, path: str | Path) -> IntentMap:
        """Read an intent map file; raises ``ValueError`` naming the file and line."""
        path = Path(path)
        try:
            doc = parse_yaml(path.read_text(encoding="utf-8"))
        except YamlSyntaxError as exc:
            raise ValueError(f"{path}:{exc.line}: {exc.message}") from None
        try:
            return cls.from_dict(doc.data or {})
        except ValidationError as exc:
            raise ValueError(f"{path}: invalid intent map: {exc}") from None

    def add(self, domain: str, category: str, tools: Sequence[str]) -> None:
        """Map ``(domain, category)`` to ``tools`` (replacing any earlier mapping)."""
        self.table[(domain, category)] = tuple(tools)

    def add_entity(self, entity: str, tools: Sequence[str]) -> None:
        """Make entity type ``entity`` add ``tools`` to a selection."""
        self.entities[entity] = tuple(tools)

    def tools_for(
        self, intent: Intent, entities: Iterable[str] | Mapping[str, Any] = ()
    ) -> list[str]:
        """The intent's tools then the entities' tools, in order, without duplicates
        (dependencies not included). Entities given as a mapping count when their value is
        truthy."""
        key = _intent_key(intent)
        base = self.table.get(key)
        if base is None:
            raise IntentNotFoundError(key, sorted(self.table))
        names = [k for k, v in entities.items() if v] if isinstance(entities, Mapping) else entities
        out = list(dict.fromkeys(base))
        for entity in names:
            for tool in self.entities.get(entity, ()):
                if tool not in out:
                    out.append(tool)
        return out


def _intent_key(intent: Intent) -> tuple[str, str]:
    if isinstance(intent, str):
        domain, dot, category = intent.partition(".")
        if not dot:
            raise ValueError(f"intent {intent!r} should read 'domain.category'")
        return domain, category
    if isinstance(intent, Mapping):
        return str(intent["domain"]), str(intent["category"])
    return intent[0], intent[1]

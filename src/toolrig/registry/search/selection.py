"""Choosing tools for an intent: the intent table first, search when it has no entry."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolrig.registry.chains import resolve_chain
from toolrig.registry.intents import Intent, IntentMap, IntentNotFoundError, _intent_key
from toolrig.registry.search.index import ToolIndex

__all__ = ["select_tools_for_intent"]


def select_tools_for_intent(
    intents: IntentMap,
    index: ToolIndex | Callable[[], ToolIndex],
    dependencies: Callable[[str], tuple[str, ...] | None],
    intent: Intent,
    entities: Iterable[str] | Mapping[str, Any] = (),
    *,
    k: int = 3,
) -> list[str]:
    """The tools mapped to ``intent`` (plus those its ``entities`` call for); when the table
    has no entry, the ``k`` tools that search finds for the intent's words and the entities.
    Dependencies come first, each tool once. ``index`` may be a function returning the index,
    so that it is built only when the table has no entry."""
    try:
        names = intents.tools_for(intent, entities)
    except IntentNotFoundError:
        domain, category = _intent_key(intent)
        wanted = (
            [k for k, v in entities.items() if v] if isinstance(entities, Mapping) else entities
        )
        query = " ".join([domain, category, *wanted]).replace("_", " ")
        found = index if isinstance(index, ToolIndex) else index()
        # Dense ranking always has neighbours; ask for at least one shared word first, so an
        # intent unrelated to every tool is still reported as unknown.
        if not found.search(query, k=1, group="tool", mode="lexical"):
            raise
        names = [hit.tool for hit in found.search(query, k=k, group="tool")]
    return resolve_chain(names, dependencies)

"""Choosing tools for an intent: the intent table first, search when it has no entry."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from toolrig.registry._chains import resolve_chain
from toolrig.registry._intents import Intent, IntentMap, IntentNotFoundError
from toolrig.search._index import ToolIndex

if TYPE_CHECKING:
    from toolrig.registry._catalog import Catalog

__all__ = ["select_tools_for_intent"]


def select_tools_for_intent(
    catalog: Catalog,
    intents: IntentMap,
    intent: Intent,
    entities: Iterable[str] | Mapping[str, Any] = (),
    *,
    index: ToolIndex | None = None,
    k: int = 3,
) -> list[str]:
    """The tools of ``catalog`` mapped to ``intent`` (plus those its ``entities`` call for);
    when the table has no entry, the ``k`` tools that search finds for the intent's words and
    the entities. Dependencies come first, each tool once.

    ``index`` is the index to search (one that follows ``catalog``, say); without it, an index
    of the catalogue's tools is built, and only when the table has no entry.
    """
    try:
        names = intents.tools_for(intent, entities)
    except IntentNotFoundError as exc:
        domain, category = exc.intent
        wanted = (
            [k for k, v in entities.items() if v] if isinstance(entities, Mapping) else entities
        )
        query = " ".join([domain, category, *wanted]).replace("_", " ")
        found = index if index is not None else ToolIndex(t.spec for t in catalog.tools())
        # Dense ranking always has neighbours; ask for at least one shared word first, so an
        # intent unrelated to every tool is still reported as unknown.
        if not found.search(query, k=1, group="tool", mode="lexical"):
            raise
        names = [hit.tool for hit in found.search(query, k=k, group="tool")]
    return resolve_chain(names, lambda name: _dependencies(catalog, name))


def _dependencies(catalog: Catalog, name: str) -> tuple[str, ...] | None:
    """The direct dependencies of the tool ``name``, or ``None`` when it is not there."""
    tool = catalog.find(name)
    return None if tool is None else tool.spec.dependencies

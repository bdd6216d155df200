"""Keep a :class:`ToolIndex` in step with a :class:`~toolrig.registry.Registry`.

The index listens to the registry's change events: an added or updated tool is (re)indexed,
a removed one forgotten, a failed load changes nothing (the old tools stay in service).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolrig.core.errors import ToolNotFoundError
from toolrig.registry.events import ChangeEvent, ChangeKind
from toolrig.registry.search.index import SearchConfig, ToolIndex

if TYPE_CHECKING:
    from toolrig.registry.registry import Registry

__all__ = ["attach", "detach"]


class _Follower:
    __slots__ = ("index", "registry")

    def __init__(self, registry: Registry, index: ToolIndex) -> None:
        self.registry = registry
        self.index = index

    def __call__(self, event: ChangeEvent) -> None:
        if event.name is None or event.kind is ChangeKind.FAILED:
            return
        if event.kind is ChangeKind.REMOVED:
            self.index.remove(event.name)
            return
        try:
            spec = self.registry.get(event.name).spec
        except ToolNotFoundError:  # removed again before this event arrived
            self.index.remove(event.name)
            return
        self.index.update(spec)


def attach(
    registry: Registry,
    *,
    config: SearchConfig | None = None,
    embedders: tuple[Any, ...] | None = None,
) -> ToolIndex:
    """A new index of ``registry``'s tools that follows every later change."""
    index = ToolIndex(config=config, embedders=embedders)
    follower = _Follower(registry, index)
    registry.add_change_listener(follower)  # listen first: a change racing the copy is re-applied
    index.add_many(tool.spec for tool in registry.executor.list_tools())
    for name in index.tool_names():  # removed while the copy was made
        if name not in registry:
            index.remove(name)
    index._followers.append((registry, follower))
    return index


def detach(registry: Registry, index: ToolIndex) -> None:
    """Stop ``index`` following ``registry``."""
    for reg, follower in list(index._followers):
        if reg is registry:
            registry.remove_change_listener(follower)
            index._followers.remove((reg, follower))

"""Keep indexed tools in step with a :class:`~toolrig.registry.Catalog`.

A :class:`Following` listens to the catalogue's change events: an added or updated tool is
(re)indexed, a removed one forgotten, a failed load changes nothing (the old tools stay in
service). It reads the catalogue only through its public API and knows the index only as a
:class:`Followed` (the four methods it calls), so :mod:`.index` can build on it without the
two modules importing each other. Use it through :meth:`ToolIndex.follow
<toolrig.search.ToolIndex.follow>`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from toolrig.core.model._spec import ToolSpec
from toolrig.registry._events import ChangeEvent, ChangeKind

if TYPE_CHECKING:
    from toolrig.registry._catalog import Catalog

__all__ = ["Followed", "Following"]


class Followed(Protocol):
    """What a :class:`Following` changes: the tools an index holds."""

    def add_many(self, specs: Iterable[ToolSpec]) -> None:
        """Index these tools (replacing those of the same names)."""

    def update(self, spec: ToolSpec) -> None:
        """Index ``spec`` again (or for the first time)."""

    def remove(self, name: str) -> bool:
        """Forget the tool ``name``."""

    def tool_names(self) -> list[str]:
        """The names of the tools indexed."""


class Following:
    """``target`` kept in step with ``catalog``, from creation until :meth:`stop`.

    Creating it copies the catalogue's tools into ``target`` and subscribes to its changes.
    """

    __slots__ = ("catalog", "target")

    def __init__(self, catalog: Catalog, target: Followed) -> None:
        self.catalog = catalog
        self.target = target
        # listen first, so a change racing the copy is applied again after it
        catalog.add_change_listener(self)
        target.add_many(tool.spec for tool in catalog.tools())
        for name in target.tool_names():
            if name not in catalog:  # removed while the copy was made
                target.remove(name)

    def __call__(self, event: ChangeEvent) -> None:
        """Apply one change of the catalogue to the target."""
        if event.name is None or event.kind is ChangeKind.FAILED:
            return
        if event.kind is ChangeKind.REMOVED:
            self.target.remove(event.name)
            return
        tool = self.catalog.find(event.name)
        if tool is None:  # removed again before this event arrived
            self.target.remove(event.name)
            return
        self.target.update(tool.spec)

    def stop(self) -> None:
        """Stop following (the tools already copied stay in the target)."""
        self.catalog.remove_change_listener(self)

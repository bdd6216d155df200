"""``SearchFilters``: which actions a search may return (type, layer, tags, annotations)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Literal

from toolrig.core.model._spec import ToolAnnotations
from toolrig.search._documents import ActionDocument

__all__ = ["SearchFilters"]

_ANNOTATIONS = frozenset(ToolAnnotations.model_fields) - {"title"}


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchFilters:
    """Every filter given must hold; ``None`` (or empty) means "any"."""

    type: str | None = None
    layer: str | None = None
    tags: tuple[str, ...] | frozenset[str] | list[str] | None = None
    match: Literal["any", "all"] = "any"
    """Whether an action needs any or all of ``tags``."""
    annotations: Mapping[str, bool] = field(default_factory=dict)
    """E.g. ``{"read_only": True}``: the action's annotations (the tool's with the action's
    overrides) must say exactly that; an annotation left unset never matches."""
    name: str | None = None
    """A glob on the call name, such as ``"github.*"``."""

    def __post_init__(self) -> None:
        unknown = set(self.annotations) - _ANNOTATIONS
        if unknown:
            raise ValueError(
                f"unknown annotations {sorted(unknown)}; known: {sorted(_ANNOTATIONS)}"
            )
        if self.match not in ("any", "all"):
            raise ValueError("match must be 'any' or 'all'")

    def predicate(self) -> Callable[[ActionDocument], bool]:
        """A test of one document against these filters."""
        wanted = frozenset(self.tags) if self.tags else None
        every = self.match == "all"
        expected = tuple(self.annotations.items())

        def allowed(doc: ActionDocument) -> bool:
            if self.type is not None and doc.type != self.type:
                return False
            if self.layer is not None and doc.layer != self.layer:
                return False
            if wanted is not None and not (
                wanted <= doc.tags if every else not wanted.isdisjoint(doc.tags)
            ):
                return False
            if self.name is not None and not fnmatchcase(doc.call_name, self.name):
                return False
            return all(getattr(doc.annotations, key) is value for key, value in expected)

        return allowed

"""``attach`` and ``detach``: the function spelling of `ToolIndex.follow` and
`ToolIndex.unfollow`, kept for code written before the methods existed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolrig.search._config import SearchConfig
from toolrig.search._index import ToolIndex

if TYPE_CHECKING:
    from toolrig.registry._catalog import Catalog

__all__ = ["attach", "detach"]


def attach(
    catalog: Catalog,
    *,
    config: SearchConfig | None = None,
    embedders: tuple[Any, ...] | None = None,
) -> ToolIndex:
    """``ToolIndex.follow(catalog, ...)``: a new index that follows every later change."""
    return ToolIndex.follow(catalog, config=config, embedders=embedders)


def detach(catalog: Catalog, index: ToolIndex) -> None:
    """``index.unfollow(catalog)``: stop ``index`` following ``catalog``."""
    index.unfollow(catalog)

"""Tool search: the few tools that fit a request, out of thousands, offline.

BM25F over each action's fields (always available) fused with sentence embeddings from models
shipped inside packages (the optional extra ``search``; without it, ranking is lexical).
"""

from toolrig.registry.search.bm25f import BM25FParams
from toolrig.registry.search.filters import SearchFilters
from toolrig.registry.search.follow import attach, detach
from toolrig.registry.search.index import SearchConfig, SearchHit, ToolIndex
from toolrig.registry.search.meta_tools import meta_tools, tools_for_turn
from toolrig.registry.search.selection import select_tools_for_intent

__all__ = [
    "BM25FParams",
    "SearchConfig",
    "SearchFilters",
    "SearchHit",
    "ToolIndex",
    "attach",
    "detach",
    "meta_tools",
    "select_tools_for_intent",
    "tools_for_turn",
]

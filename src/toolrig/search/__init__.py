"""Tool search: the few tools that fit a request, out of thousands, offline.

BM25F over each action's fields (always available) fused with sentence embeddings from models
shipped inside packages (the optional extra ``search``; without it, ranking is lexical).
``ToolIndex.follow(catalog)`` keeps an index in step with a catalogue; the requests that led
to earlier calls (``ToolIndex.learn_from(RequestLog(log))``) raise the tools they led to for
requests like them; call counts (``ExecutionLog.tool_usage()``) rank often-used tools a little
higher.
"""

from toolrig.search._attach import attach, detach
from toolrig.search._bm25f import BM25FParams
from toolrig.search._config import SearchConfig
from toolrig.search._filters import SearchFilters
from toolrig.search._index import SearchHit, ToolIndex
from toolrig.search._meta_tools import meta_tools, tools_for_turn
from toolrig.search._selection import select_tools_for_intent

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

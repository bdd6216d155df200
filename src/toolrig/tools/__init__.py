"""Built-in tools.

For local work (loaded with the package): files, documents, downloads, shell, search, replace,
todo. Each works inside one root folder (its :class:`Sandbox`) given when it is created; paths
leaving it are refused with a ``permission_denied`` result. ``docs/tools.md`` lists what each
tool may touch and how to widen or narrow it.

For the outside world (loaded on first use of their names, as some need an extra): the web
(``WebTool``, its search backends, the ``NetPolicy`` that limits the addresses it reaches), HTTP
services described by an OpenAPI document (``openapi_tool``, see ``docs/openapi.md``), a
database (``DbTool``), a browser (``BrowserTool``) and a model (``LLMTool``); see
``docs/tools-web.md``. Retrieval over local documents is :mod:`toolrig.tools.rag`.
"""

import typing as _typing

from toolrig.core.model._lazy import lazy_names as _lazy_names
from toolrig.tools._budget import Budget
from toolrig.tools._completion import attempt_completion
from toolrig.tools._documents import DocumentTool
from toolrig.tools._download import DownloadTool
from toolrig.tools._files import FileTool
from toolrig.tools._netguard import NetPolicy
from toolrig.tools._replace import SearchReplaceTool
from toolrig.tools._sandbox import Sandbox
from toolrig.tools._search import SearchTool
from toolrig.tools._shell import ShellTool
from toolrig.tools._todo import TodoTool

if _typing.TYPE_CHECKING:
    from toolrig.tools._browser import BrowserTool
    from toolrig.tools._db import DbTool
    from toolrig.tools._llm import LLMTool
    from toolrig.tools._openapi import HeaderAuth, openapi_tool
    from toolrig.tools._web import WebTool
    from toolrig.tools._web_search import (
        BraveBackend,
        DuckDuckGoBackend,
        SearchBackend,
        SearxngBackend,
        TavilyBackend,
    )

_LAZY = {
    "BraveBackend": "toolrig.tools._web_search",
    "BrowserTool": "toolrig.tools._browser",
    "DbTool": "toolrig.tools._db",
    "DuckDuckGoBackend": "toolrig.tools._web_search",
    "HeaderAuth": "toolrig.tools._openapi",
    "LLMTool": "toolrig.tools._llm",
    "SearchBackend": "toolrig.tools._web_search",
    "SearxngBackend": "toolrig.tools._web_search",
    "TavilyBackend": "toolrig.tools._web_search",
    "WebTool": "toolrig.tools._web",
    "openapi_tool": "toolrig.tools._openapi",
}


__getattr__ = _lazy_names(__name__, _LAZY)


__all__ = [
    "BraveBackend",
    "BrowserTool",
    "Budget",
    "DbTool",
    "DocumentTool",
    "DownloadTool",
    "DuckDuckGoBackend",
    "FileTool",
    "HeaderAuth",
    "LLMTool",
    "NetPolicy",
    "Sandbox",
    "SearchBackend",
    "SearchReplaceTool",
    "SearchTool",
    "SearxngBackend",
    "ShellTool",
    "TavilyBackend",
    "TodoTool",
    "WebTool",
    "attempt_completion",
    "openapi_tool",
]

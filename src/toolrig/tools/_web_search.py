"""Web search backends behind one interface: DuckDuckGo, SearXNG, Brave and Tavily.

Each backend answers ``search(query, max_results)`` with :class:`SearchHit` items (title, url,
snippet). A backend that is not configured, or that cannot be reached, raises a
:class:`~toolrig.ToolError` saying which and how to fix it. Backend URLs and keys come from the
operator (arguments or environment variables), never from the model, so they are not subject
to the fetch tool's address policy: a SearXNG instance on the local network is the usual setup.

Environment variables: ``TOOLRIG_SEARCH_BACKEND`` (``duckduckgo``, ``searxng``, ``brave``,
``tavily``), ``TOOLRIG_SEARXNG_URL``, ``BRAVE_API_KEY``, ``TAVILY_API_KEY``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any, Final, Protocol, runtime_checkable

import httpx
from typing_extensions import TypedDict

from toolrig.core.model._errors import ErrorCode, RetryableToolError, ToolError

__all__ = [
    "BACKENDS",
    "BraveBackend",
    "DuckDuckGoBackend",
    "SearchBackend",
    "SearchHit",
    "SearxngBackend",
    "TavilyBackend",
    "backend_from_env",
]

_TIMEOUT: Final = 15.0


class SearchHit(TypedDict):
    """One search result."""

    title: str
    url: str
    snippet: str


@runtime_checkable
class SearchBackend(Protocol):
    """What :class:`~toolrig.tools.WebTool` needs from a search service."""

    name: str

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        """Up to ``max_results`` hits for ``query``, best first."""
        ...


def _not_configured(backend: str, what: str) -> ToolError:
    return ToolError(
        f"Web search is not available: the {backend} backend is not configured ({what}).",
        code=ErrorCode.EXECUTION_ERROR,
        hint="Web search cannot be used here; answer from what you know or fetch a known URL.",
        details={"backend": backend},
    )


def _unreachable(backend: str, where: str, exc: Exception) -> ToolError:
    return RetryableToolError(
        f"The {backend} search backend at {where} could not be reached ({type(exc).__name__}).",
        code=ErrorCode.EXECUTION_ERROR,
        hint="Try again later, or fetch a known URL instead.",
        details={"backend": backend},
    )


def _refused(backend: str, response: httpx.Response) -> ToolError:
    code = ErrorCode.RATE_LIMITED if response.status_code == 429 else ErrorCode.EXECUTION_ERROR
    return ToolError(
        f"The {backend} search backend answered HTTP {response.status_code}.",
        code=code,
        retryable=response.status_code == 429 or response.status_code >= 500,
        details={"backend": backend, "status": response.status_code},
    )


def _hit(title: Any, url: Any, snippet: Any) -> SearchHit:
    return SearchHit(title=str(title or ""), url=str(url or ""), snippet=str(snippet or ""))


def _hits(results: Any, max_results: int, *, snippet: str) -> list[SearchHit]:
    """Hits from a JSON API's result objects (``title``, ``url`` and the ``snippet`` key)."""
    rows = results if isinstance(results, list) else []
    return [
        _hit(r.get("title"), r.get("url"), r.get(snippet))
        for r in rows[:max_results]
        if isinstance(r, dict)
    ]


async def _get_json(
    backend: str,
    method: str,
    url: str,
    *,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    json: Any = None,
    timeout: float = _TIMEOUT,
) -> Any:
    try:
        async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
            response = await client.request(method, url, params=params, headers=headers, json=json)
    except httpx.TransportError as exc:
        raise _unreachable(backend, httpx.URL(url).host or url, exc) from None
    if response.status_code != 200:
        raise _refused(backend, response)
    try:
        return response.json()
    except ValueError:
        raise ToolError(
            f"The {backend} search backend answered something that is not JSON.",
            details={"backend": backend},
        ) from None


class SearxngBackend:
    """A SearXNG instance's JSON API (``/search?format=json``; JSON output must be enabled in
    the instance's ``settings.yml``)."""

    name = "searxng"

    def __init__(self, base_url: str | None = None, *, timeout: float = _TIMEOUT) -> None:
        self.base_url = base_url if base_url is not None else os.environ.get("TOOLRIG_SEARXNG_URL")
        self.timeout = timeout

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        if not self.base_url:
            raise _not_configured(self.name, "set TOOLRIG_SEARXNG_URL to the instance's URL")
        data = await _get_json(
            self.name,
            "GET",
            self.base_url.rstrip("/") + "/search",
            params={"q": query, "format": "json"},
            timeout=self.timeout,
        )
        results = data.get("results", []) if isinstance(data, dict) else []
        return _hits(results, max_results, snippet="content")


class BraveBackend:
    """The Brave Search API (key in ``BRAVE_API_KEY``)."""

    name = "brave"
    endpoint = "https://api.search.brave.com/res/v1/web/search"

    def __init__(self, api_key: str | None = None, *, timeout: float = _TIMEOUT) -> None:
        self.api_key = api_key if api_key is not None else os.environ.get("BRAVE_API_KEY")
        self.timeout = timeout

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        if not self.api_key:
            raise _not_configured(self.name, "set BRAVE_API_KEY")
        data = await _get_json(
            self.name,
            "GET",
            self.endpoint,
            params={"q": query, "count": min(max_results, 20)},
            headers={"X-Subscription-Token": self.api_key, "Accept": "application/json"},
            timeout=self.timeout,
        )
        results = (data.get("web") or {}).get("results", []) if isinstance(data, dict) else []
        return _hits(results, max_results, snippet="description")


class TavilyBackend:
    """The Tavily search API (key in ``TAVILY_API_KEY``)."""

    name = "tavily"
    endpoint = "https://api.tavily.com/search"

    def __init__(self, api_key: str | None = None, *, timeout: float = _TIMEOUT) -> None:
        self.api_key = api_key if api_key is not None else os.environ.get("TAVILY_API_KEY")
        self.timeout = timeout

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        if not self.api_key:
            raise _not_configured(self.name, "set TAVILY_API_KEY")
        data = await _get_json(
            self.name,
            "POST",
            self.endpoint,
            headers={"Authorization": f"Bearer {self.api_key}"},
            json={"query": query, "max_results": max_results},
            timeout=self.timeout,
        )
        results = data.get("results", []) if isinstance(data, dict) else []
        return _hits(results, max_results, snippet="content")


class DuckDuckGoBackend:
    """DuckDuckGo through the ``ddgs`` package (no key; ``pip install 'toolrig[web]'``)."""

    name = "duckduckgo"

    def __init__(self, *, timeout: float = _TIMEOUT, region: str = "us-en") -> None:
        self.timeout = timeout
        self.region = region

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        try:
            from ddgs import DDGS
            from ddgs.exceptions import DDGSException
        except ImportError:
            raise _not_configured(
                self.name, "the ddgs package is missing: pip install 'toolrig[web]'"
            ) from None

        def run() -> list[dict[str, Any]]:
            client = DDGS(timeout=int(self.timeout))
            return list(
                client.text(
                    query, region=self.region, max_results=max_results, backend="duckduckgo"
                )
            )

        try:
            rows = await asyncio.to_thread(run)
        except DDGSException as exc:
            raise _unreachable(self.name, "duckduckgo.com", exc) from None
        return [_hit(r.get("title"), r.get("href"), r.get("body")) for r in rows[:max_results]]


BACKENDS: Final[Mapping[str, type[SearchBackend]]] = {
    "duckduckgo": DuckDuckGoBackend,
    "searxng": SearxngBackend,
    "brave": BraveBackend,
    "tavily": TavilyBackend,
}


class _Unconfigured:
    name = "none"

    def __init__(self, why: str) -> None:
        self.why = why

    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        raise _not_configured("web search", self.why)


def backend_from_env(name: str | None = None) -> SearchBackend:
    """The backend called ``name`` (default: ``TOOLRIG_SEARCH_BACKEND``), configured from the
    environment. With no name, the first configured of SearXNG, Brave, Tavily is used, then
    DuckDuckGo when ``ddgs`` is installed; otherwise a backend that explains what to set."""
    chosen = name or os.environ.get("TOOLRIG_SEARCH_BACKEND")
    if chosen:
        cls = BACKENDS.get(chosen.lower())
        if cls is None:
            return _Unconfigured(f"unknown backend {chosen!r}; use one of {', '.join(BACKENDS)}")
        return cls()
    if os.environ.get("TOOLRIG_SEARXNG_URL"):
        return SearxngBackend()
    if os.environ.get("BRAVE_API_KEY"):
        return BraveBackend()
    if os.environ.get("TAVILY_API_KEY"):
        return TavilyBackend()
    try:
        import ddgs  # noqa: F401
    except ImportError:
        return _Unconfigured(
            "set TOOLRIG_SEARXNG_URL, BRAVE_API_KEY or TAVILY_API_KEY, "
            "or pip install 'toolrig[web]' for DuckDuckGo"
        )
    return DuckDuckGoBackend()

"""``web_tool``: fetch a web page as readable text, search the web, summarise a page.

Limits are safe by default: a total time limit, a byte cap on what is read, a redirect limit,
and an address policy (:class:`~toolrig.tools.NetPolicy`) that refuses private,
loopback, link-local and cloud-metadata addresses after DNS resolution and on every redirect.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Final

import httpx
from pydantic import Field
from typing_extensions import TypedDict

from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, RetryableToolError, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.tools._html import html_title, html_to_markdown
from toolrig.tools._netguard import NetPolicy, guarded_stream
from toolrig.tools._text import decode
from toolrig.tools._web_search import SearchBackend, SearchHit, backend_from_env

__all__ = ["FetchOutput", "SearchOutput", "Summarizer", "SummaryOutput", "WebTool"]

Summarizer = Callable[[str], Awaitable[str] | str]
"""Turns a text into its summary (an LLM call, typically); sync or async."""

_USER_AGENT: Final = "Mozilla/5.0 (compatible; toolrig/0.1; +https://pypi.org/project/toolrig/)"
_HTML: Final = ("text/html", "application/xhtml+xml")
_TEXTUAL: Final = (
    "text/",
    "application/json",
    "application/xml",
    "application/javascript",
    "application/x-javascript",
    "application/ld+json",
    "application/rss+xml",
    "application/atom+xml",
)
_READ_ONLY: Final = ToolAnnotations(read_only=True, destructive=False, idempotent=True)


class FetchOutput(TypedDict):
    url: str
    """The URL asked for."""
    final_url: str
    """The URL answered, after redirects."""
    status: int
    content_type: str
    title: str | None
    text: str
    """The page as Markdown (HTML) or as text (JSON pretty-printed)."""
    truncated: bool
    """True when the body was cut at the byte cap or the text at ``max_chars``."""
    bytes_read: int
    bytes_total: int | None
    """The body's size when the server said it (Content-Length), else ``None``."""
    chars_cut: int
    """Characters of extracted text left out because of ``max_chars``."""


class SearchOutput(TypedDict):
    query: str
    backend: str
    results: list[SearchHit]


class SummaryOutput(TypedDict):
    source: str
    """The URL summarised, or ``text``."""
    title: str | None
    summary: str
    truncated: bool
    """True when only the beginning of a long text was summarised."""


class WebTool(BaseTool):
    """Read the web: fetch a page as readable Markdown, search the web, summarise a page.

    Only public internet addresses can be reached.
    """

    name = "web_tool"
    tags = ("web", "internet")
    layer = "tools"
    annotations = ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=True
    )

    def __init__(
        self,
        *,
        network: NetPolicy | None = None,
        search_backend: SearchBackend | str | None = None,
        summarizer: Summarizer | None = None,
        timeout: float = 20.0,
        max_bytes: int = 5_000_000,
        max_chars: int = 50_000,
        max_redirects: int = 5,
        user_agent: str = _USER_AGENT,
    ) -> None:
        """``network``: which addresses may be reached (default: public ones only).
        ``search_backend``: a backend object or name (default: from the environment, see
        :func:`~toolrig.tools._web_search.backend_from_env`). ``summarizer``: what ``summary``
        calls. ``timeout``: seconds for a whole fetch. ``max_bytes``: body bytes read at most.
        ``max_chars``: text characters returned at most."""
        super().__init__()
        self.network = network or NetPolicy()
        self.search_backend = (
            search_backend
            if search_backend is not None and not isinstance(search_backend, str)
            else backend_from_env(search_backend)
        )
        self.summarizer = summarizer
        self.fetch_timeout = timeout
        self.max_bytes = max_bytes
        self.max_chars = max_chars
        self.max_redirects = max_redirects
        self.user_agent = user_agent

    # -- actions -----------------------------------------------------------------------------
    @action(
        annotations=_READ_ONLY,
        output_description="The page's title, final URL, text and how much was cut.",
        examples=("Read https://docs.python.org/3/whatsnew/3.13.html",),
    )
    async def fetch(
        self,
        url: str,
        max_chars: Annotated[int, Field(ge=100, le=200_000)] = 20_000,
    ) -> FetchOutput:
        """Fetch a web page and return its main content as Markdown (HTML pages) or text.

        Use it to read a page whose URL you know. Binary files (images, PDFs, archives) are not
        supported. Long pages are cut; `truncated` and `chars_cut` say how much.

        Args:
            url: Full http(s) URL of the page.
            max_chars: Most characters of text to return.
        """
        return await self.fetch_page(url, max_chars=max_chars)

    @action(
        annotations=_READ_ONLY,
        output_description="Results with title, url and snippet, best first.",
    )
    async def search(
        self,
        query: Annotated[str, Field(min_length=1, max_length=500)],
        max_results: Annotated[int, Field(ge=1, le=20)] = 5,
    ) -> SearchOutput:
        """Search the web and return result titles, URLs and snippets.

        Use it to find pages about a topic; then `fetch` the most promising URLs to read them.

        Args:
            query: What to search for, as you would type it into a search engine.
            max_results: How many results to return.
        """
        hits = await self.search_backend.search(query, max_results)
        return SearchOutput(query=query, backend=self.search_backend.name, results=hits)

    @action(annotations=_READ_ONLY, output_description="A short summary of the page or text.")
    async def summary(self, url: str | None = None, text: str | None = None) -> SummaryOutput:
        """Summarise a web page (give `url`) or a text (give `text`), one of the two.

        Args:
            url: Full http(s) URL of a page to fetch and summarise.
            text: A text to summarise.
        """
        if (url is None) == (text is None):
            raise ToolError(
                "Give exactly one of `url` or `text`.", code=ErrorCode.INVALID_ARGUMENTS
            )
        summarizer = self.summarizer or _configured_llm_summarizer()
        if summarizer is None:
            raise ToolError(
                "Summaries are not available: no summarizer (language model) is configured "
                "for this tool.",
                hint="Use `fetch` to read the page and summarise it yourself.",
                details={"configure": "WebTool(summarizer=...) or an LLM (see LLMConfig)"},
            )
        title: str | None = None
        truncated = False
        if url is not None:
            page = await self.fetch_page(url, max_chars=self.max_chars)
            body, title, truncated = page["text"], page["title"], page["truncated"]
        else:
            body = text or ""
            if len(body) > self.max_chars:
                body, truncated = body[: self.max_chars], True
        summary = await _call_summarizer(summarizer, body)
        return SummaryOutput(
            source=url or "text", title=title, summary=summary, truncated=truncated
        )

    # -- the fetch itself (also used by other tools, e.g. RAG indexing of URLs) --------------
    async def fetch_page(self, url: str, *, max_chars: int | None = None) -> FetchOutput:
        """Fetch ``url`` under this tool's limits and policy; errors are :class:`ToolError`."""
        limit = min(max_chars or self.max_chars, self.max_chars)
        try:
            async with asyncio.timeout(self.fetch_timeout):
                return await self._fetch(url, limit)
        except (TimeoutError, httpx.TimeoutException):
            raise RetryableToolError(
                f"Fetching {url} took longer than {self.fetch_timeout:g} s and was stopped.",
                code=ErrorCode.TIMEOUT,
                hint="The site is slow or not answering; try again later or another page.",
            ) from None
        except httpx.TransportError as exc:
            raise RetryableToolError(
                f"Could not connect to {url} ({type(exc).__name__}).",
                hint="Check the URL; the site may be down.",
            ) from None

    async def _fetch(self, url: str, limit: int) -> FetchOutput:
        async with (
            httpx.AsyncClient(
                timeout=httpx.Timeout(self.fetch_timeout),
                follow_redirects=False,
                trust_env=False,
                headers={"User-Agent": self.user_agent, "Accept": "text/html,*/*;q=0.8"},
            ) as client,
            guarded_stream(client, url, self.network, max_redirects=self.max_redirects) as hop,
        ):
            response = hop.response
            _check_status(response, hop.url)
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if content_type and not _is_textual(content_type):
                raise ToolError(
                    f"{hop.url} is {content_type}, not a web page or text.",
                    code=ErrorCode.INVALID_ARGUMENTS,
                    hint="Only HTML, text, JSON and XML can be read with fetch.",
                )
            body, cut_at_cap = await _read_capped(response, self.max_bytes)
            declared = response.headers.get("content-length")
            total = int(declared) if declared and declared.isdigit() else None
            title, text = _to_text(body, content_type, response.charset_encoding, hop.url)
        chars_cut = max(0, len(text) - limit)
        if chars_cut:
            text = text[:limit] + f"\n\n[... {chars_cut} characters cut ...]"
        return FetchOutput(
            url=url,
            final_url=hop.url,
            status=response.status_code,
            content_type=content_type or "unknown",
            title=title,
            text=text,
            truncated=cut_at_cap or chars_cut > 0,
            bytes_read=len(body),
            bytes_total=total,
            chars_cut=chars_cut,
        )


def _is_textual(content_type: str) -> bool:
    return content_type.startswith(_TEXTUAL + _HTML) or content_type.endswith(("+json", "+xml"))


def _check_status(response: httpx.Response, url: str) -> None:
    status = response.status_code
    if status < 400:
        return
    if status in (404, 410):
        raise ToolError(f"{url} was not found (HTTP {status}).", code=ErrorCode.NOT_FOUND)
    if status in (401, 403):
        raise ToolError(f"{url} refused access (HTTP {status}).", code=ErrorCode.PERMISSION_DENIED)
    if status == 429:
        raise ToolError(
            f"{url} is rate limiting requests (HTTP 429).",
            code=ErrorCode.RATE_LIMITED,
            retryable=True,
        )
    raise ToolError(f"{url} answered HTTP {status}.", retryable=status >= 500)


async def _read_capped(response: httpx.Response, cap: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        if size + len(chunk) > cap:
            chunks.append(chunk[: cap - size])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


def _to_text(
    body: bytes, content_type: str, charset: str | None, url: str
) -> tuple[str | None, str]:
    try:
        text, _ = decode(body, charset)
    except (ValueError, LookupError):
        raise ToolError(
            f"{url} is binary data, not a web page or text.",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Only HTML, text, JSON and XML can be read with fetch.",
        ) from None
    is_html = content_type in _HTML or (
        not content_type and text.lstrip()[:200].lower().startswith(("<!doctype html", "<html"))
    )
    if is_html:
        return html_title(text), html_to_markdown(text, url)
    if "json" in content_type:
        try:
            return None, json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        except ValueError:
            return None, text
    return None, text


def _configured_llm_summarizer() -> Summarizer | None:
    """``llm_tool``'s summary when an LLM is configured (arguments, environment or config
    file, see :class:`~toolrig.agent.LLMConfig`); ``None`` when none is."""
    from toolrig.agent._config import LLMConfig, LLMConfigError
    from toolrig.agent._factory import make_client
    from toolrig.tools._llm import LLMTool

    try:
        config = LLMConfig.resolve()
    except LLMConfigError:
        return None
    return LLMTool(make_client(config)).summarize


async def _call_summarizer(summarizer: Summarizer, text: str) -> str:
    if inspect.iscoroutinefunction(summarizer):
        result: object = await summarizer(text)
    else:
        result = await asyncio.to_thread(summarizer, text)
        if inspect.isawaitable(result):
            result = await result
    return str(result)

"""web_tool.search through pluggable backends (a SearXNG-protocol server on 127.0.0.1) and
web_tool.summary with and without a summarizer."""

from __future__ import annotations

from pathlib import Path

import pytest
from local_site import Site

from toolrig.tools import (
    BraveBackend,
    NetPolicy,
    SearchBackend,
    SearxngBackend,
    TavilyBackend,
    WebTool,
)
from toolrig.tools._web_search import SearchHit, backend_from_env

LOCAL = NetPolicy(allow=("127.0.0.1",))


async def test_searxng_backend_returns_title_url_snippet(site: Site) -> None:
    web = WebTool(search_backend=SearxngBackend(site.base))
    result = await web.aexecute("search", query="green tea", max_results=3)
    out = result.unwrap()
    assert out["backend"] == "searxng" and out["query"] == "green tea"
    assert out["results"] == [
        {
            "title": f"green tea result {i}",
            "url": f"https://example.org/{i}",
            "snippet": f"About green tea {i}",
        }
        for i in range(3)
    ]


def test_searxng_url_from_environment(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLRIG_SEARXNG_URL", site.base)
    monkeypatch.delenv("TOOLRIG_SEARCH_BACKEND", raising=False)
    web = WebTool()
    assert web.execute("search", query="tea").output["results"][0]["title"] == "tea result 0"
    assert isinstance(backend_from_env("searxng"), SearxngBackend)


async def test_unreachable_backend_is_a_clear_retryable_error() -> None:
    web = WebTool(search_backend=SearxngBackend("http://127.0.0.1:9", timeout=2))
    result = await web.aexecute("search", query="tea")
    assert result.code == "execution_error" and result.error.retryable
    assert "searxng search backend at 127.0.0.1 could not be reached" in result.error.message


async def test_backend_answering_an_error_status(site: Site) -> None:
    web = WebTool(search_backend=SearxngBackend(site.url("/missing-instance")))
    result = await web.aexecute("search", query="tea")
    assert result.code == "execution_error" and "HTTP 404" in result.error.message


@pytest.mark.parametrize(
    ("backend", "variable"),
    [
        (BraveBackend(api_key=""), "BRAVE_API_KEY"),
        (TavilyBackend(api_key=""), "TAVILY_API_KEY"),
        (SearxngBackend(""), "TOOLRIG_SEARXNG_URL"),
    ],
)
async def test_unconfigured_backend_says_what_to_set(backend: SearchBackend, variable: str) -> None:
    result = await WebTool(search_backend=backend).aexecute("search", query="tea")
    assert result.code == "execution_error"
    assert "not configured" in result.error.message and variable in result.error.message
    assert result.error.hint


async def test_unknown_backend_name() -> None:
    result = await WebTool(search_backend="altavista").aexecute("search", query="tea")
    assert "unknown backend 'altavista'" in result.error.message


async def test_custom_backend_and_argument_limits() -> None:
    class Fixed:
        name = "fixed"

        async def search(self, query: str, max_results: int) -> list[SearchHit]:
            return [SearchHit(title=query, url="https://a.example/", snippet="")] * max_results

    web = WebTool(search_backend=Fixed())
    assert len((await web.aexecute("search", query="q", max_results=2)).unwrap()["results"]) == 2
    too_many = await web.aexecute("search", query="q", max_results=500)
    assert too_many.code == "invalid_arguments"
    empty = await web.aexecute("search", query="")
    assert empty.code == "invalid_arguments"


async def test_summary_without_summarizer_says_how_to_configure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in (
        "TOOLRIG_LLM_PROVIDER",
        "TOOLRIG_LLM_MODEL",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TOOLRIG_CONFIG", str(tmp_path / "none.toml"))
    result = await WebTool().aexecute("summary", text="Some long text.")
    assert result.code == "execution_error"
    assert "no summarizer" in result.error.message and "fetch" in result.error.hint


async def test_summary_of_a_page_with_async_summarizer(site: Site) -> None:
    seen: list[str] = []

    async def summarize(text: str) -> str:
        seen.append(text)
        return "Uji tea, summarised."

    web = WebTool(network=LOCAL, summarizer=summarize)
    out = (await web.aexecute("summary", url=site.url("/page"))).unwrap()
    assert out == {
        "source": site.url("/page"),
        "title": "Tea & Travel",
        "summary": "Uji tea, summarised.",
        "truncated": False,
    }
    assert "Tsuen" in seen[0]


def test_summary_of_text_with_sync_summarizer_and_bad_arguments() -> None:
    web = WebTool(summarizer=lambda text: f"{len(text)} chars", max_chars=100)
    out = web.execute("summary", text="x" * 500).unwrap()
    assert out["summary"] == "100 chars" and out["truncated"] is True
    both = web.execute("summary", text="a", url="https://example.org/")
    assert both.code == "invalid_arguments" and "exactly one" in both.error.message
    assert web.execute("summary").code == "invalid_arguments"


async def test_summary_refuses_private_urls_before_summarizing() -> None:
    called: list[str] = []
    web = WebTool(summarizer=called.append)  # type: ignore[arg-type]
    result = await web.aexecute("summary", url="http://10.0.0.1/")
    assert result.code == "permission_denied" and called == []

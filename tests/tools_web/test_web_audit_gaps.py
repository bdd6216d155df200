"""The address policy checks every address a name resolves to (DNS from a stand-in, never the
machine's), connects to the address it checked, checks each redirect hop; the Brave and Tavily
backends parse their services' JSON, served here on 127.0.0.1 in those services' formats.

No request leaves 127.0.0.1: ``loopback_only`` refuses, and records, any other destination, so a
broken policy shows up as a test failure, never as traffic."""

from __future__ import annotations

import ipaddress
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from fake_dns import FakeDns

from toolrig import ErrorInfo, ToolError, ToolResult
from toolrig.tools import BraveBackend, NetPolicy, TavilyBackend, WebTool
from toolrig.tools._netguard import resolve_checked

LOCAL = NetPolicy(allow=("127.0.0.1",))
BRAVE_KEY = "brave-test-key"
TAVILY_KEY = "tvly-test-key"


def _err(result: ToolResult) -> ErrorInfo:
    """The error of a result that must have failed."""
    assert result.error is not None, result
    return result.error


# -- a server speaking the Brave and Tavily APIs, and redirecting where asked ----------------
@dataclass
class Seen:
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, entry: dict[str, Any]) -> None:
        with self.lock:
            self.requests.append(entry)


def brave_answer(query: str, count: int) -> dict[str, Any]:
    """A Brave Search API response (``/res/v1/web/search``): web results under ``web.results``,
    with news and videos beside them that are not web results."""
    return {
        "type": "search",
        "query": {"original": query, "more_results_available": True, "spellcheck_off": True},
        "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": False}]},
        "news": {
            "type": "news",
            "results": [{"title": "NEWS", "url": "https://news.example/1", "description": "n"}],
        },
        "videos": {
            "type": "videos",
            "results": [{"title": "VIDEO", "url": "https://video.example/1", "description": "v"}],
        },
        "web": {
            "type": "search",
            "family_friendly": True,
            "results": [
                {
                    "title": f"{query} page {i}",
                    "url": f"https://brave-result.example/{i}",
                    "is_source_local": False,
                    "is_source_both": False,
                    "description": f"All about {query}, part {i}.",
                    "page_age": "2024-05-01T00:00:00",
                    "profile": {"name": "Example", "url": "https://brave-result.example"},
                    "language": "en",
                    "family_friendly": True,
                    "type": "search_result",
                    "subtype": "generic",
                    "meta_url": {"scheme": "https", "hostname": "brave-result.example"},
                    "age": "May 1, 2024",
                }
                for i in range(count)
            ],
        },
    }


def tavily_answer(query: str, count: int) -> dict[str, Any]:
    """A Tavily ``/search`` response: results with ``content`` and a relevance ``score``."""
    return {
        "query": query,
        "follow_up_questions": None,
        "answer": None,
        "images": [],
        "results": [
            {
                "title": f"{query} article {i}",
                "url": f"https://tavily-result.example/{i}",
                "content": f"What {query} is, in part {i}.",
                "score": 0.9 - i / 100,
                "raw_content": None,
            }
            for i in range(count)
        ],
        "response_time": 0.42,
    }


class Handler(BaseHTTPRequestHandler):
    seen: Seen
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        self.seen.add({"method": "GET", "path": url.path, "query": query, "headers": self.headers})
        if url.path == "/res/v1/web/search":
            if self.headers.get("X-Subscription-Token") != BRAVE_KEY:
                self._json(401, {"type": "ErrorResponse", "error": {"code": "UNAUTHORIZED"}})
                return
            q = query.get("q", [""])[0]
            self._json(200, brave_answer(q, min(int(query.get("count", ["20"])[0]), 20)))
        elif url.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", query["to"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif url.path == "/page":
            data = b"<html><head><title>Here</title></head><body><p>Served here.</p></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self._json(404, {"detail": "Not Found"})

    def do_POST(self) -> None:
        url = urlsplit(self.path)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        self.seen.add({"method": "POST", "path": url.path, "body": body, "headers": self.headers})
        if url.path != "/search":
            self._json(404, {"detail": "Not Found"})
        elif self.headers.get("Authorization") != f"Bearer {TAVILY_KEY}":
            self._json(401, {"detail": {"error": "Unauthorized: missing or invalid API key."}})
        elif body.get("query") == "too many":
            self._json(429, {"detail": {"error": "Rate limit exceeded"}})
        else:
            self._json(200, tavily_answer(body["query"], int(body.get("max_results", 5))))


@dataclass
class Api:
    base: str
    port: int
    seen: Seen


@contextmanager
def serve() -> Iterator[Api]:
    seen = Seen()
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Bound", (Handler,), {"seen": seen}))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = int(server.server_address[1])
        yield Api(base=f"http://127.0.0.1:{port}", port=port, seen=seen)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def api() -> Iterator[Api]:
    with serve() as running:
        yield running


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> FakeDns:
    return FakeDns(monkeypatch)


@pytest.fixture
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every host a request is sent to; requests to anything but 127.0.0.1 are refused."""
    hosts: list[str] = []
    original = httpx.AsyncClient.send

    async def guard(self: httpx.AsyncClient, request: httpx.Request, **kwargs: Any) -> Any:
        hosts.append(request.url.host)
        if request.url.host != "127.0.0.1":
            raise httpx.ConnectError(f"test guard: {request.url.host} is not 127.0.0.1")
        return await original(self, request, **kwargs)

    monkeypatch.setattr(httpx.AsyncClient, "send", guard)
    return hosts


# -- every resolved address is checked ---------------------------------------------------
@pytest.mark.parametrize(
    ("addresses", "refused"),
    [
        (["93.184.216.34", "10.0.0.7"], "10.0.0.7"),
        (["10.0.0.7", "93.184.216.34"], "10.0.0.7"),
        (["93.184.216.34", "2606:2800:220:1::1", "127.0.0.1"], "127.0.0.1"),
        (["93.184.216.34", "169.254.169.254"], "169.254.169.254"),
        (["2606:2800:220:1::1", "::1"], "::1"),
        (["93.184.216.34", "fd12:3456::1"], "fd12:3456::1"),
    ],
)
async def test_a_name_with_any_forbidden_address_is_refused(
    dns: FakeDns, addresses: list[str], refused: str
) -> None:
    dns.add("mixed.example", addresses)
    with pytest.raises(ToolError) as info:
        await resolve_checked("http://mixed.example/", NetPolicy())
    assert info.value.code == "permission_denied"
    assert info.value.details == {"url": "http://mixed.example/", "address": refused}
    assert f"mixed.example ({refused})" in info.value.message
    assert dns.asked == ["mixed.example"]


async def test_a_name_with_only_public_addresses_is_allowed(dns: FakeDns) -> None:
    dns.add("public.example", ["93.184.216.34", "2606:2800:220:1::1"])
    address = await resolve_checked("https://public.example/x", NetPolicy())
    assert str(address) == "93.184.216.34"


async def test_fetch_refuses_a_name_mixing_allowed_and_forbidden_addresses(
    dns: FakeDns, api: Api, loopback_only: list[str]
) -> None:
    web = WebTool(network=LOCAL, timeout=5.0)
    before = len(api.seen.requests)
    for addresses in (["127.0.0.1", "10.0.0.7"], ["10.0.0.7", "127.0.0.1"]):
        dns.add("mixed.example", addresses)
        result = await web.aexecute("fetch", url=f"http://mixed.example:{api.port}/page")
        assert result.code == "permission_denied", (addresses, result)
        assert _err(result).details["address"] == "10.0.0.7"
    # a name resolving to the loopback in both families: ::1 is not in LOCAL's allow-list
    dns.add("localhost", ["127.0.0.1", "::1"])
    both = await web.aexecute("fetch", url=f"http://localhost:{api.port}/page")
    assert both.code == "permission_denied" and _err(both).details["address"] == "::1"
    assert loopback_only == [] and len(api.seen.requests) == before


async def test_fetch_connects_to_the_address_it_checked(
    dns: FakeDns, api: Api, loopback_only: list[str]
) -> None:
    dns.add("tea.example", ["127.0.0.1"])
    web = WebTool(network=LOCAL, timeout=5.0)
    url = f"http://tea.example:{api.port}/page"
    out = (await web.aexecute("fetch", url=url)).unwrap()
    assert out["final_url"] == url and "Served here." in out["text"]
    assert loopback_only == ["127.0.0.1"]  # not the name, resolved again at connect time
    assert dns.asked == ["tea.example"]  # resolved once, by the policy
    assert api.seen.requests[-1]["headers"]["Host"] == f"tea.example:{api.port}"


@pytest.mark.parametrize(
    ("to", "refused"),
    [
        ("http://inside.example/admin", "10.1.2.3"),
        ("http://meta.example/latest/meta-data/", "169.254.169.254"),
        ("http://[::ffff:10.1.2.3]/", "::ffff:10.1.2.3"),
    ],
)
async def test_each_redirect_hop_is_checked(
    dns: FakeDns, api: Api, loopback_only: list[str], to: str, refused: str
) -> None:
    dns.add("inside.example", ["10.1.2.3"])
    dns.add("meta.example", ["169.254.169.254"])
    web = WebTool(network=LOCAL, timeout=5.0)
    result = await web.aexecute("fetch", url=f"{api.base}/redirect?to={to}")
    assert result.code == "permission_denied", result
    assert ipaddress.ip_address(_err(result).details["address"]) == ipaddress.ip_address(refused)
    assert loopback_only == ["127.0.0.1"]  # the first hop only


# -- Brave and Tavily --------------------------------------------------------------------
def _brave(api: Api, key: str = BRAVE_KEY) -> BraveBackend:
    backend = BraveBackend(api_key=key, timeout=5.0)
    backend.endpoint = f"{api.base}/res/v1/web/search"
    return backend


def _tavily(api: Api, key: str = TAVILY_KEY) -> TavilyBackend:
    backend = TavilyBackend(api_key=key, timeout=5.0)
    backend.endpoint = f"{api.base}/search"
    return backend


async def test_brave_results_are_the_web_results(api: Api) -> None:
    web = WebTool(search_backend=_brave(api))
    out = (await web.aexecute("search", query="green tea", max_results=3)).unwrap()
    assert out["backend"] == "brave" and out["query"] == "green tea"
    assert out["results"] == [
        {
            "title": f"green tea page {i}",
            "url": f"https://brave-result.example/{i}",
            "snippet": f"All about green tea, part {i}.",
        }
        for i in range(3)
    ]
    sent = api.seen.requests[-1]
    assert sent["method"] == "GET" and sent["path"] == "/res/v1/web/search"
    assert sent["query"] == {"q": ["green tea"], "count": ["3"]}
    assert sent["headers"]["X-Subscription-Token"] == BRAVE_KEY
    assert sent["headers"]["Accept"] == "application/json"


async def test_brave_asks_for_at_most_twenty(api: Api) -> None:
    hits = await _brave(api).search("matcha", 25)
    assert len(hits) == 20 and hits[19]["url"] == "https://brave-result.example/19"
    assert api.seen.requests[-1]["query"]["count"] == ["20"]


async def test_brave_refusal_is_reported(api: Api) -> None:
    result = await WebTool(search_backend=_brave(api, key="wrong")).aexecute("search", query="q")
    assert result.code == "execution_error" and not _err(result).retryable
    assert "brave search backend answered HTTP 401" in _err(result).message


async def test_tavily_results_use_the_content_as_snippet(api: Api) -> None:
    web = WebTool(search_backend=_tavily(api))
    out = (await web.aexecute("search", query="oolong", max_results=2)).unwrap()
    assert out["backend"] == "tavily"
    assert out["results"] == [
        {
            "title": f"oolong article {i}",
            "url": f"https://tavily-result.example/{i}",
            "snippet": f"What oolong is, in part {i}.",
        }
        for i in range(2)
    ]
    sent = api.seen.requests[-1]
    assert sent["method"] == "POST" and sent["path"] == "/search"
    assert sent["body"] == {"query": "oolong", "max_results": 2}
    assert sent["headers"]["Authorization"] == f"Bearer {TAVILY_KEY}"


async def test_tavily_rate_limit_and_bad_key(api: Api) -> None:
    limited = await WebTool(search_backend=_tavily(api)).aexecute("search", query="too many")
    assert limited.code == "rate_limited" and _err(limited).retryable
    bad = await WebTool(search_backend=_tavily(api, key="nope")).aexecute("search", query="q")
    assert bad.code == "execution_error" and "HTTP 401" in _err(bad).message

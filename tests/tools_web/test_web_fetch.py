"""web_tool.fetch against pages served on 127.0.0.1: extraction, limits, and the address policy."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fake_dns import FakeDns
from local_site import Site

from runtime_timing import Beside
from toolrig.tools import NetPolicy, WebTool

LOCAL = NetPolicy(allow=("127.0.0.1",))


@pytest.fixture
def web() -> WebTool:
    return WebTool(network=LOCAL, timeout=5.0)


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> FakeDns:
    """Host names resolve from this table, not from the machine's DNS or hosts file."""
    return FakeDns(monkeypatch)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every host an HTTP request is actually sent to."""
    hosts: list[str] = []
    original = httpx.AsyncClient.send

    async def spy(self: httpx.AsyncClient, request: httpx.Request, **kwargs: Any) -> Any:
        hosts.append(request.url.host)
        return await original(self, request, **kwargs)

    monkeypatch.setattr(httpx.AsyncClient, "send", spy)
    return hosts


async def test_fetch_html_becomes_markdown_with_title(web: WebTool, site: Site) -> None:
    result = await web.aexecute("fetch", url=site.url("/page"))
    assert result.success, result.error
    out = result.output
    assert out["title"] == "Tea & Travel"
    assert out["final_url"] == site.url("/page")
    assert out["status"] == 200 and out["content_type"] == "text/html"
    assert "Green tea in Kyoto" in out["text"] and "Tsuen" in out["text"]
    assert "<p>" not in out["text"]
    assert out["truncated"] is False and out["chars_cut"] == 0


def test_fetch_sync_text_and_json(web: WebTool, site: Site) -> None:
    plain = web.execute("fetch", url=site.url("/plain"))
    assert plain.output["text"] == "just text\n" and plain.output["title"] is None
    data = web.execute("fetch", url=site.url("/data.json"))
    assert '"origin": [\n    "Uji"' in data.output["text"]


async def test_fetch_follows_a_redirect_and_reports_final_url(web: WebTool, site: Site) -> None:
    out = (await web.aexecute("fetch", url=site.url("/redirect-ok"))).unwrap()
    assert out["url"] == site.url("/redirect-ok") and out["final_url"] == site.url("/page")


async def test_fetch_errors_are_structured(web: WebTool, site: Site) -> None:
    missing = await web.aexecute("fetch", url=site.url("/missing"))
    assert missing.code == "not_found" and "404" in missing.error.message
    image = await web.aexecute("fetch", url=site.url("/image.png"))
    assert image.code == "invalid_arguments" and "image/png" in image.error.message
    scheme = await web.aexecute("fetch", url="file:///etc/passwd")
    assert scheme.code == "invalid_arguments" and "scheme" in scheme.error.message
    loop = await web.aexecute("fetch", url=site.url("/loop"))
    assert loop.code == "execution_error" and "redirected more than 5" in loop.error.message
    closed = await web.aexecute("fetch", url="http://127.0.0.1:9/")
    assert closed.code == "execution_error" and closed.error.retryable


async def test_slow_page_times_out(site: Site) -> None:
    web = WebTool(network=LOCAL, timeout=0.5)
    with Beside(0.5) as ref:
        result = await web.aexecute("fetch", url=site.url("/slow"))
    assert ref.elapsed < ref.bound(0.5), ref.elapsed  # the page answers after 3 s
    assert result.code == "timeout" and "0.5 s" in result.error.message
    assert result.error.retryable


async def test_oversized_page_is_cut_at_the_byte_cap(site: Site) -> None:
    web = WebTool(network=LOCAL, max_bytes=200_000)
    out = (await web.aexecute("fetch", url=site.url("/big"), max_chars=5_000)).unwrap()
    assert out["truncated"] is True
    assert out["bytes_read"] == 200_000 and out["bytes_total"] == 3_000_000
    assert out["chars_cut"] > 0 and out["text"].endswith("characters cut ...]")
    assert len(out["text"]) < 5_100


async def test_default_policy_refuses_loopback_without_sending(
    site: Site, sent: list[str], dns: FakeDns
) -> None:
    dns.add("localhost", ["127.0.0.1", "::1"])
    web = WebTool()
    before = site.state.count("/page")
    for url in (
        site.url("/page"),
        site.url("/page").replace("127.0.0.1", "localhost"),
        site.url("/page").replace("127.0.0.1", "[::ffff:127.0.0.1]"),
        "http://2130706433/",  # 127.0.0.1 written as one number
        "http://[::1]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.1.2.3/",
        "http://0.0.0.0/",
    ):
        result = await web.aexecute("fetch", url=url)
        assert result.code == "permission_denied", (url, result)
        assert "Refused to connect" in result.error.message
    assert sent == [] and site.state.count("/page") == before


async def test_redirect_to_forbidden_address_is_refused(
    web: WebTool, site: Site, sent: list[str]
) -> None:
    private = await web.aexecute("fetch", url=site.url("/redirect-private"))
    assert private.code == "permission_denied" and "10.255.255.1" in private.error.message
    metadata = await web.aexecute("fetch", url=site.url("/redirect-metadata"))
    assert metadata.code == "permission_denied"
    assert "cloud metadata" in metadata.error.message
    assert set(sent) == {"127.0.0.1"} and len(sent) == 2


async def test_allow_private_still_refuses_metadata(sent: list[str]) -> None:
    web = WebTool(network=NetPolicy(allow_private=True))
    result = await web.aexecute("fetch", url="http://169.254.169.254/")
    assert result.code == "permission_denied" and sent == []


async def test_host_names_are_checked_after_resolution_and_pinned(
    site: Site, sent: list[str], dns: FakeDns
) -> None:
    dns.add("tea.example", ["127.0.0.1"])
    web = WebTool(network=LOCAL)
    by_name = site.url("/page").replace("127.0.0.1", "tea.example")
    out = (await web.aexecute("fetch", url=by_name)).unwrap()
    assert out["final_url"] == by_name and "Kyoto" in out["text"]
    assert sent == ["127.0.0.1"]  # connected to the checked address, not re-resolved
    assert dns.asked == ["tea.example"]


def test_policy_addresses() -> None:
    import ipaddress

    policy = NetPolicy()
    for text in ("8.8.8.8", "2606:4700:4700::1111"):
        assert policy.permits(ipaddress.ip_address(text))
    for text in (
        "127.0.0.1",
        "10.0.0.1",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.1.1",
        "::1",
        "fe80::1",
        "fc00::1",
        "100.64.0.1",
        "224.0.0.1",
        "::ffff:10.0.0.1",
    ):
        assert not policy.permits(ipaddress.ip_address(text)), text
    opened = NetPolicy(allow=("169.254.169.254",))
    assert opened.permits(ipaddress.ip_address("169.254.169.254"))


def test_schema_reads_well(web: WebTool) -> None:
    schema = web.get_schema()
    assert list(schema["actions"]) == ["fetch", "search", "summary"]
    fetch = schema["actions"]["fetch"]
    assert fetch["parameters"]["required"] == ["url"]
    assert "Markdown" in fetch["description"]
    annotations = web.spec.action_annotations("fetch")
    assert annotations.read_only and annotations.open_world

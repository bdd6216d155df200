"""browser_tool driving the machine's headless Chromium against pages served on 127.0.0.1:
a JavaScript-rendered page, a login form with a session cookie, a search form, clicks,
screenshots, the address policy, and session lifetimes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from local_site import Site

from runtime_timing import Beside
from toolrig.tools import BrowserTool, NetPolicy
from toolrig.tools._browser import find_chromium

pytestmark = [
    pytest.mark.chromium,  # under CI=true a skip fails the run: CI installs Chromium
    pytest.mark.skipif(
        find_chromium() is None,
        reason="no Chromium found (apt-get install chromium, or set TOOLRIG_CHROMIUM)",
    ),
]

LOCAL = NetPolicy(allow=("127.0.0.1",))
PASSWORD = "s3cret-pw"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserTool]:
    tool = BrowserTool(
        network=LOCAL,
        screenshot_dir=tmp_path_factory.mktemp("shots"),
        navigation_timeout=10,
        credentials=lambda key: ("ada", PASSWORD) if key == "intranet" else None,
    )
    yield tool
    tool.close()


async def test_javascript_rendered_page_and_click(browser: BrowserTool, site: Site) -> None:
    opened = (await browser.aexecute("navigate", url=site.url("/js"), wait_for="h1")).unwrap()
    sid = opened["session_id"]
    assert opened["status"] == 200 and opened["title"] == "Rendered"
    page = (await browser.aexecute("extract", session_id=sid)).unwrap()
    assert "Made by JavaScript" in page["text"] and "Loading" not in page["text"]
    assert {"text": "to the article", "href": site.url("/page")} in page["links"]
    clicked = (await browser.aexecute("click", session_id=sid, text="More")).unwrap()
    assert clicked["url"] == site.url("/js")
    extra = (await browser.aexecute("extract", session_id=sid, selector="#extra")).unwrap()
    assert extra["text"] == "clicked!"
    moved = (await browser.aexecute("click", session_id=sid, selector="a")).unwrap()
    assert moved["url"] == site.url("/page") and moved["title"] == "Tea & Travel"
    shot = (await browser.aexecute("screenshot", session_id=sid)).unwrap()
    png = await asyncio.to_thread(Path(shot["local_path"]).read_bytes)
    assert png.startswith(b"\x89PNG")
    assert (await browser.aexecute("close_session", session_id=sid)).output is True
    gone = await browser.aexecute("extract", session_id=sid)
    assert gone.code == "not_found" and "navigate" in gone.error.hint


def test_login_with_stored_credentials_keeps_a_session_cookie(
    browser: BrowserTool, site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    result = browser.execute("login", url=site.url("/login"), credentials_key="intranet")
    out = result.unwrap()
    assert out["url"] == site.url("/account") and out["title"] == "Account"
    assert out["login_form_still_shown"] is False
    sid = out["session_id"]
    again = browser.execute("navigate", url=site.url("/account"), session_id=sid).unwrap()
    assert again["title"] == "Account"  # the cookie is kept in the session
    text = browser.execute("extract", session_id=sid).unwrap()["text"]
    assert "Welcome back, [redacted]" in text  # the user name is a credential too
    assert PASSWORD not in repr(result.to_dict()) and PASSWORD not in caplog.text
    fresh = browser.execute("navigate", url=site.url("/account")).unwrap()
    assert fresh["title"] == "Sign in"  # other sessions do not share cookies
    for s in (sid, fresh["session_id"]):
        browser.execute("close_session", session_id=s)


def test_login_errors(browser: BrowserTool, site: Site) -> None:
    unknown = browser.execute("login", url=site.url("/login"), credentials_key="other")
    assert unknown.code == "not_found" and "other" in unknown.error.message
    no_form = browser.execute("login", url=site.url("/page"), credentials_key="intranet")
    assert no_form.code == "not_found" and "No login form" in no_form.error.message
    for sid in browser.session_ids:
        browser.execute("close_session", session_id=sid)


def test_search_form(browser: BrowserTool, site: Site) -> None:
    sid = browser.execute("navigate", url=site.url("/library")).unwrap()["session_id"]
    out = browser.execute("search", session_id=sid, query="tea").unwrap()
    assert out["title"] == "Results for tea"
    assert "The Book of Tea" in out["text"] and out["url"].endswith("/results?q=tea")
    none = browser.execute("search", session_id=sid, query="tea", url=site.url("/plain"))
    assert none.code == "not_found" and "search box" in none.error.message
    browser.execute("close_session", session_id=sid)


def test_network_policy_applies_to_the_browser(browser: BrowserTool, site: Site) -> None:
    direct = browser.execute("navigate", url="http://169.254.169.254/latest/meta-data/")
    assert direct.code == "permission_denied"
    redirected = browser.execute("navigate", url=site.url("/redirect-private"))
    assert redirected.code == "permission_denied"
    assert "http://10.255.255.1/admin" in browser.blocked
    assert browser.session_ids == []  # sessions opened by a failed navigate are closed
    strict = BrowserTool()  # default policy: not even the test server
    try:
        refused = strict.execute("navigate", url=site.url("/page"))
        assert refused.code == "permission_denied"
    finally:
        strict.close()


def test_navigation_timeout(site: Site) -> None:
    tool = BrowserTool(network=LOCAL, navigation_timeout=0.5)
    try:
        # launch the browser first: starting Chromium takes seconds on a loaded machine, and
        # the bound below is about the navigation alone
        sid = tool.execute("navigate", url=site.url("/page")).unwrap()["session_id"]
        with Beside(0.5) as ref:
            result = tool.execute("navigate", url=site.url("/slow"), session_id=sid)
        # the page answers after 3 s; the 0.5 s limit ends the wait long before (Chromium's
        # own steps around it get a second of their own)
        assert result.code == "timeout" and ref.elapsed < ref.bound(1.5), ref.elapsed
    finally:
        tool.close()


async def test_idle_sessions_close_themselves(site: Site) -> None:
    idle = 2.0  # long enough to see the session open on a loaded machine
    tool = BrowserTool(network=LOCAL, idle_timeout=idle)
    try:
        t0 = time.monotonic()
        sid = (await tool.aexecute("navigate", url=site.url("/plain"))).unwrap()["session_id"]
        seen_open = tool.session_ids
        if time.monotonic() - t0 < idle:  # else the session may rightly be gone already
            assert seen_open == [sid]
        for _ in range(int((idle + 15.0) / 0.05)):  # bounded: the idle time and a margin
            if not tool.session_ids:
                break
            await asyncio.sleep(0.05)
        assert tool.session_ids == []
        assert time.monotonic() - t0 >= idle  # not closed before it was idle that long
        assert (await tool.aexecute("extract", session_id=sid)).code == "not_found"
    finally:
        tool.close()
    assert tool.session_ids == []


def test_missing_chromium_is_a_clear_error(site: Site) -> None:
    tool = BrowserTool(network=LOCAL, executable_path="/nonexistent/chromium")
    tool.executable_path = "/nonexistent/chromium"
    import toolrig.tools._browser_sessions as module  # where the browser is launched

    original = module.find_chromium
    module.find_chromium = lambda preferred=None: None  # type: ignore[assignment]
    try:
        result = tool.execute("navigate", url=site.url("/page"))
    finally:
        module.find_chromium = original
        tool.close()
    assert result.code == "execution_error" and "no Chromium" in result.error.message

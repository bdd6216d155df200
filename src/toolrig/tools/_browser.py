"""``browser_tool``: drive a headless Chromium (Playwright) for pages that need a real browser.

Each session is an isolated browser context (its own cookies) with one page, named by an id the
caller passes back. Sessions idle longer than ``idle_timeout`` close themselves; :meth:`close`
(also run at interpreter exit) closes everything. The browser runs on a private event-loop
thread, so the tool works the same from sync and async callers. All browser traffic goes
through a local guard proxy applying the :class:`~toolrig.tools.NetPolicy`.

Login credentials are looked up by key, never passed by the model: environment variables
``TOOLRIG_CREDENTIAL_<KEY>_USERNAME`` / ``..._PASSWORD``, else the system keyring (service
``toolrig:<key>``). They are never returned, and scrubbed from every result of the session.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import re
import secrets
import tempfile
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final, TypeVar

from pydantic import Field

from toolrig.core._base import BaseTool, action
from toolrig.core._errors import ErrorCode, ToolError
from toolrig.core._spec import ToolAnnotations
from toolrig.tools._browser_page import (
    BrowserLogin,
    ExtractOutput,
    PageOutput,
    ScreenshotOutput,
    do_login,
    do_search,
    extract_page,
    page_info,
)
from toolrig.tools._browser_setup import (
    CHROMIUM_ARGS,
    Session,
    browser_error,
    credentials_from_env_or_keyring,
    find_chromium,
)
from toolrig.tools._guard_proxy import BLOCKED_HEADER, GuardProxy
from toolrig.tools._netguard import NetPolicy, resolve_checked

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright

__all__ = ["BrowserTool", "find_chromium"]

T = TypeVar("T")
_KEY: Final = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_SESSION_HINT: Final = "Call navigate without session_id to open a new session."


class BrowserTool(BaseTool):
    """Use a real web browser: open pages (JavaScript runs), sign in, search, read, click and
    take screenshots. Use it when fetching a page's HTML is not enough."""

    name = "browser_tool"
    tags = ("web", "browser")
    layer = "tools"
    annotations = ToolAnnotations(read_only=False, destructive=False, open_world=True)

    def __init__(
        self,
        *,
        executable_path: str | None = None,
        network: NetPolicy | None = None,
        idle_timeout: float = 300.0,
        max_sessions: int = 4,
        navigation_timeout: float = 20.0,
        screenshot_dir: str | os.PathLike[str] | None = None,
        credentials: Callable[[str], tuple[str, str] | None] = credentials_from_env_or_keyring,
        max_chars: int = 20_000,
    ) -> None:
        super().__init__()
        self.executable_path = executable_path
        self.network = network or NetPolicy()
        self.idle_timeout = idle_timeout
        self.max_sessions = max_sessions
        self.navigation_timeout = navigation_timeout
        self.screenshot_dir = Path(screenshot_dir or tempfile.mkdtemp(prefix="toolrig-shots-"))
        self.credentials = credentials
        self.max_chars = max_chars
        self._sessions: dict[str, Session] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._proxy: GuardProxy | None = None
        self._reaper: asyncio.Task[None] | None = None
        atexit.register(_close_at_exit, weakref.ref(self))

    # -- actions -----------------------------------------------------------------------------
    @action(output_description="The session id, final URL, title and HTTP status.")
    async def navigate(
        self, url: str, session_id: str | None = None, wait_for: str | None = None
    ) -> PageOutput:
        """Open a URL in the browser; without `session_id` a new session is started.

        Args:
            url: Full http(s) URL.
            session_id: The session to use, from an earlier result.
            wait_for: A CSS selector to wait for (pages that render with JavaScript).
        """
        return await self._run(self._navigate(url, session_id, wait_for))

    @action(output_description="Where the browser is after signing in; no credentials.")
    async def login(
        self, url: str, credentials_key: str, session_id: str | None = None
    ) -> BrowserLogin:
        """Sign in on a page with a login form, using stored credentials named by a key.

        Args:
            url: The login page.
            credentials_key: Name of the stored credentials (given to you by the user).
            session_id: The session to use; a new one when empty.
        """
        if not _KEY.match(credentials_key):
            raise ToolError("Invalid credentials key.", code=ErrorCode.INVALID_ARGUMENTS)
        found = await asyncio.to_thread(self.credentials, credentials_key)
        if found is None:
            raise ToolError(
                f"No stored credentials are named {credentials_key!r}.",
                code=ErrorCode.NOT_FOUND,
                hint="Ask the user which credentials key to use.",
            )
        return await self._run(self._login(url, found, session_id))

    @action(output_description="The results page's text and links.")
    async def search(self, query: str, session_id: str, url: str | None = None) -> ExtractOutput:
        """Type a query into the page's search box, submit it, and read the results page.

        Args:
            query: What to search for.
            session_id: The session whose page has the search box.
            url: Open this page first (optional).
        """
        return await self._run(self._search(query, session_id, url))

    @action(
        annotations=ToolAnnotations(read_only=True),
        output_description="The page's visible text and links.",
    )
    async def extract(
        self,
        session_id: str,
        selector: str | None = None,
        wait_for: str | None = None,
        max_chars: Annotated[int, Field(ge=100, le=200_000)] = 20_000,
    ) -> ExtractOutput:
        """Read the current page: visible text and links (of the whole page or one element).

        Args:
            session_id: The session to read.
            selector: A CSS selector to read only part of the page.
            wait_for: A CSS selector to wait for before reading.
            max_chars: Most characters of text to return.
        """
        return await self._run(self._extract(session_id, selector, wait_for, max_chars))

    @action(output_description="Where the browser is after the click.")
    async def click(
        self, session_id: str, selector: str | None = None, text: str | None = None
    ) -> PageOutput:
        """Click an element, found by CSS selector or by its visible text (one of the two).

        Args:
            session_id: The session to use.
            selector: CSS selector of the element, e.g. `button#submit`.
            text: Visible text of the element, e.g. `Next page`.
        """
        return await self._run(self._click(session_id, selector, text))

    @action(
        annotations=ToolAnnotations(read_only=True),
        output_description="The path of the PNG file.",
    )
    async def screenshot(self, session_id: str, full_page: bool = False) -> ScreenshotOutput:
        """Save a screenshot of the current page as a PNG file and return its local path.

        Args:
            session_id: The session to capture.
            full_page: Capture the whole page, not just the visible part.
        """
        return await self._run(self._screenshot(session_id, full_page))

    @action(output_description="True when the session was open.")
    async def close_session(self, session_id: str) -> bool:
        """Close a browser session you no longer need.

        Args:
            session_id: The session to close.
        """
        return await self._run(self._close_session(session_id))

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Close every session and the browser, and stop the browser thread."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()

    @property
    def session_ids(self) -> list[str]:
        """Ids of the open sessions."""
        return list(self._sessions)

    @property
    def blocked(self) -> list[str]:
        """Addresses the network policy refused so far."""
        return [] if self._proxy is None else list(self._proxy.blocked)

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="toolrig-browser", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    async def _run(self, coro: Awaitable[T]) -> T:
        async def wrapped() -> T:
            return await coro

        future = asyncio.run_coroutine_threadsafe(wrapped(), self._ensure_loop())
        return await asyncio.wrap_future(future)

    async def _ensure_browser(self) -> Browser:
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        try:
            from playwright.async_api import async_playwright
        except ImportError:
            raise ToolError(
                "The browser is not available: Playwright is not installed.",
                hint="Use web_tool.fetch instead.",
                details={"install": "pip install 'toolrig[browser]'"},
            ) from None
        executable = find_chromium(self.executable_path)
        if executable is None:
            raise ToolError(
                "The browser is not available: no Chromium executable was found.",
                hint="Use web_tool.fetch instead.",
                details={"install": "apt-get install chromium, or set TOOLRIG_CHROMIUM"},
            )
        self._proxy = GuardProxy(self.network)
        proxy_url = await self._proxy.start()
        self._playwright = await async_playwright().start()
        self._browser = await self._playwright.chromium.launch(
            executable_path=executable,
            args=list(CHROMIUM_ARGS),
            headless=True,
            proxy={"server": proxy_url, "bypass": "<-loopback>"},
        )
        self._reaper = asyncio.get_running_loop().create_task(self._reap())
        return self._browser

    async def _reap(self) -> None:
        while True:
            await asyncio.sleep(max(0.05, min(self.idle_timeout / 2, 30.0)))
            now = time.monotonic()
            for sid, session in list(self._sessions.items()):
                if now - session.last_used > self.idle_timeout:
                    await self._close_session(sid)

    async def _shutdown(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        for sid in list(self._sessions):
            await self._close_session(sid)
        if self._browser is not None:
            await self._browser.close()
        if self._playwright is not None:
            await self._playwright.stop()
        if self._proxy is not None:
            await self._proxy.close()
        self._browser = self._playwright = None

    # -- sessions ----------------------------------------------------------------------------
    async def _open_session(self) -> tuple[str, Session]:
        if len(self._sessions) >= self.max_sessions:
            raise ToolError(
                f"Too many browser sessions are open ({self.max_sessions}).",
                code=ErrorCode.RATE_LIMITED,
                hint="Close a session with close_session, or reuse one by its session_id.",
            )
        browser = await self._ensure_browser()
        context = await browser.new_context(service_workers="block", accept_downloads=False)
        context.set_default_timeout(self.navigation_timeout * 1000)
        page = await context.new_page()
        sid = "br_" + secrets.token_hex(6)
        self._sessions[sid] = Session(context=context, page=page)
        return sid, self._sessions[sid]

    def _session(self, sid: str) -> Session:
        session = self._sessions.get(sid)
        if session is None:
            raise ToolError(
                f"There is no open browser session {sid!r} (it may have closed after being idle).",
                code=ErrorCode.NOT_FOUND,
                hint=_SESSION_HINT,
            )
        session.last_used = time.monotonic()
        return session

    async def _close_session(self, sid: str) -> bool:
        session = self._sessions.pop(sid, None)
        if session is None:
            return False
        try:
            await session.context.close()
        except Exception:  # the browser may already be gone
            return True
        return True

    async def _goto(self, session: Session, url: str, wait_for: str | None) -> int | None:
        await resolve_checked(url, self.network)  # a clear error before any traffic
        try:
            response = await session.page.goto(url, wait_until="load")
        except Exception as exc:
            raise browser_error(exc, url, self.navigation_timeout) from None
        if response is not None and response.headers.get(BLOCKED_HEADER.lower()):
            raise ToolError(
                f"The browser was refused {session.page.url}: it is not a public address.",
                code=ErrorCode.PERMISSION_DENIED,
                hint="Only public internet addresses can be opened.",
            )
        if wait_for:
            await self._wait(session, wait_for)
        return None if response is None else response.status

    async def _wait(self, session: Session, selector: str) -> None:
        try:
            await session.page.wait_for_selector(selector, state="visible")
        except Exception as exc:
            raise browser_error(exc, selector, self.navigation_timeout) from None

    async def _navigate(self, url: str, sid: str | None, wait_for: str | None) -> PageOutput:
        created = sid is None
        if sid is None:
            sid, session = await self._open_session()
        else:
            session = self._session(sid)
        try:
            status = await self._goto(session, url, wait_for)
        except ToolError:
            if created:
                await self._close_session(sid)
            raise
        return await page_info(sid, session.page, status, session.secrets)

    async def _login(self, url: str, found: tuple[str, str], sid: str | None) -> BrowserLogin:
        if sid is None:
            sid, session = await self._open_session()
        else:
            session = self._session(sid)
        session.secrets.extend(s for s in found if s)
        await self._goto(session, url, None)
        return await do_login(sid, session.page, found, session.secrets)

    async def _search(self, query: str, sid: str, url: str | None) -> ExtractOutput:
        session = self._session(sid)
        if url:
            await self._goto(session, url, None)
        await do_search(session.page, query, self.navigation_timeout)
        return await extract_page(sid, session.page, None, self.max_chars, session.secrets)

    async def _extract(
        self, sid: str, selector: str | None, wait_for: str | None, max_chars: int
    ) -> ExtractOutput:
        session = self._session(sid)
        if wait_for:
            await self._wait(session, wait_for)
        limit = min(max_chars, self.max_chars)
        return await extract_page(sid, session.page, selector, limit, session.secrets)

    async def _click(self, sid: str, selector: str | None, text: str | None) -> PageOutput:
        if (selector is None) == (text is None):
            raise ToolError(
                "Give exactly one of `selector` or `text`.", code=ErrorCode.INVALID_ARGUMENTS
            )
        session = self._session(sid)
        page = session.page
        target = page.locator(selector) if selector else page.get_by_text(text or "")
        try:
            await target.first.click()
            await page.wait_for_load_state("load")
        except Exception as exc:
            raise browser_error(exc, selector or text or "", self.navigation_timeout) from None
        return await page_info(sid, page, None, session.secrets)

    async def _screenshot(self, sid: str, full_page: bool) -> ScreenshotOutput:
        session = self._session(sid)
        session.shots += 1
        self.screenshot_dir.mkdir(parents=True, exist_ok=True)
        path = self.screenshot_dir / f"{sid}-{session.shots}.png"
        await session.page.screenshot(path=str(path), full_page=full_page)
        return ScreenshotOutput(session_id=sid, local_path=str(path))


def _close_at_exit(ref: weakref.ReferenceType[BrowserTool]) -> None:
    tool = ref()
    if tool is not None:
        try:
            tool.close()
        except Exception:  # interpreter is exiting; nothing left to report to
            return

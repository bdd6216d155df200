"""``browser_tool``: drive a headless Chromium (Playwright) for pages that need a real browser.

Each session is an isolated browser context (its own cookies) with one page, named by an id the
caller passes back. The browser, its loop thread and its sessions are
:class:`~toolrig.tools._browser_sessions.Browsers`; this module holds the actions and what they
do on a page. All browser traffic goes through a local guard proxy applying the
:class:`~toolrig.tools.NetPolicy`.

Login credentials are looked up by key, never passed by the model: environment variables
``TOOLRIG_CREDENTIAL_<KEY>_USERNAME`` / ``..._PASSWORD``, else the system keyring (service
``toolrig:<key>``). They are never returned, and scrubbed from every result of the session.
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Final

from pydantic import Field

from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
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
from toolrig.tools._browser_sessions import Browsers
from toolrig.tools._browser_setup import (
    Session,
    browser_error,
    credentials_from_env_or_keyring,
    find_chromium,
)
from toolrig.tools._guard_proxy import BLOCKED_HEADER
from toolrig.tools._netguard import NetPolicy, resolve_checked

__all__ = ["BrowserTool", "find_chromium"]

_KEY: Final = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


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
        self._browsers = Browsers(self)

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
        return await self._browsers.run(self._navigate(url, session_id, wait_for))

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
        return await self._browsers.run(self._login(url, found, session_id))

    @action(output_description="The results page's text and links.")
    async def search(self, query: str, session_id: str, url: str | None = None) -> ExtractOutput:
        """Type a query into the page's search box, submit it, and read the results page.

        Args:
            query: What to search for.
            session_id: The session whose page has the search box.
            url: Open this page first (optional).
        """
        return await self._browsers.run(self._search(query, session_id, url))

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
        return await self._browsers.run(self._extract(session_id, selector, wait_for, max_chars))

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
        return await self._browsers.run(self._click(session_id, selector, text))

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
        return await self._browsers.run(self._screenshot(session_id, full_page))

    @action(output_description="True when the session was open.")
    async def close_session(self, session_id: str) -> bool:
        """Close a browser session you no longer need.

        Args:
            session_id: The session to close.
        """
        return await self._browsers.run(self._browsers.close_session(session_id))

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Close every session and the browser, and stop the browser thread."""
        self._browsers.close()

    @property
    def session_ids(self) -> list[str]:
        """Ids of the open sessions."""
        return self._browsers.session_ids

    @property
    def blocked(self) -> list[str]:
        """Addresses the network policy refused so far."""
        return self._browsers.blocked

    # -- what the actions do, on the browser's loop thread -----------------------------------
    async def _session_for(self, sid: str | None) -> tuple[str, Session, bool]:
        """Session ``sid``, or a new one (then ``True``)."""
        if sid is None:
            sid, session = await self._browsers.open()
            return sid, session, True
        return sid, self._browsers.get(sid), False

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
        sid, session, created = await self._session_for(sid)
        try:
            status = await self._goto(session, url, wait_for)
        except ToolError:
            if created:
                await self._browsers.close_session(sid)
            raise
        return await page_info(sid, session.page, status, session.secrets)

    async def _login(self, url: str, found: tuple[str, str], sid: str | None) -> BrowserLogin:
        sid, session, _ = await self._session_for(sid)
        session.secrets.extend(s for s in found if s)
        await self._goto(session, url, None)
        return await do_login(sid, session.page, found, session.secrets)

    async def _search(self, query: str, sid: str, url: str | None) -> ExtractOutput:
        session = self._browsers.get(sid)
        if url:
            await self._goto(session, url, None)
        await do_search(session.page, query, self.navigation_timeout)
        return await extract_page(sid, session.page, None, self.max_chars, session.secrets)

    async def _extract(
        self, sid: str, selector: str | None, wait_for: str | None, max_chars: int
    ) -> ExtractOutput:
        session = self._browsers.get(sid)
        if wait_for:
            await self._wait(session, wait_for)
        limit = min(max_chars, self.max_chars)
        return await extract_page(sid, session.page, selector, limit, session.secrets)

    async def _click(self, sid: str, selector: str | None, text: str | None) -> PageOutput:
        if (selector is None) == (text is None):
            raise ToolError(
                "Give exactly one of `selector` or `text`.", code=ErrorCode.INVALID_ARGUMENTS
            )
        session = self._browsers.get(sid)
        page = session.page
        target = page.locator(selector) if selector else page.get_by_text(text or "")
        try:
            await target.first.click()
            await page.wait_for_load_state("load")
        except Exception as exc:
            raise browser_error(exc, selector or text or "", self.navigation_timeout) from None
        return await page_info(sid, page, None, session.secrets)

    async def _screenshot(self, sid: str, full_page: bool) -> ScreenshotOutput:
        session = self._browsers.get(sid)
        session.shots += 1
        self.screenshot_dir.mkdir(parents=True, exist_ok=True)
        path = self.screenshot_dir / f"{sid}-{session.shots}.png"
        await session.page.screenshot(path=str(path), full_page=full_page)
        return ScreenshotOutput(session_id=sid, local_path=str(path))

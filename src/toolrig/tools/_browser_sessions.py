"""The browser behind ``browser_tool``: one headless Chromium on a private event-loop thread, and
its sessions, each an isolated browser context (its own cookies) with one page.

The loop thread lets sync and async callers use the browser alike. Sessions idle longer than
``idle_timeout`` close themselves; :meth:`Browsers.close` (also run at interpreter exit) closes
everything. All browser traffic goes through a local guard proxy applying the network policy.
Settings are read from the tool when needed, so changing one on the tool takes effect at the
next launch or session.
"""

from __future__ import annotations

import asyncio
import atexit
import secrets
import threading
import time
import weakref
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Final, Protocol, TypeVar

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._browser_setup import CHROMIUM_ARGS, Session, find_chromium
from toolrig.tools._guard_proxy import GuardProxy
from toolrig.tools._netguard import NetPolicy

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright

__all__ = ["BrowserSettings", "Browsers"]

T = TypeVar("T")
SESSION_HINT: Final = "Call navigate without session_id to open a new session."


class BrowserSettings(Protocol):
    """What :class:`Browsers` reads from its tool."""

    executable_path: str | None
    network: NetPolicy
    idle_timeout: float
    max_sessions: int
    navigation_timeout: float


class Browsers:
    """The browser, its loop thread, its guard proxy and its open sessions."""

    def __init__(self, settings: BrowserSettings) -> None:
        self.settings = settings
        self._sessions: dict[str, Session] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._proxy: GuardProxy | None = None
        self._reaper: asyncio.Task[None] | None = None
        atexit.register(_close_at_exit, weakref.ref(self))

    @property
    def session_ids(self) -> list[str]:
        """Ids of the open sessions."""
        return list(self._sessions)

    @property
    def blocked(self) -> list[str]:
        """Addresses the network policy refused so far."""
        return [] if self._proxy is None else list(self._proxy.blocked)

    async def run(self, coro: Awaitable[T]) -> T:
        """Await ``coro`` on the browser's loop thread (started on first use)."""

        async def wrapped() -> T:
            return await coro

        future = asyncio.run_coroutine_threadsafe(wrapped(), self._ensure_loop())
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        """Close every session and the browser, and stop the loop thread."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()

    # -- sessions (on the loop thread) -------------------------------------------------------
    async def open(self) -> tuple[str, Session]:
        """A new session, launching the browser first if needed."""
        limit = self.settings.max_sessions
        if len(self._sessions) >= limit:
            raise ToolError(
                f"Too many browser sessions are open ({limit}).",
                code=ErrorCode.RATE_LIMITED,
                hint="Close a session with close_session, or reuse one by its session_id.",
            )
        browser = await self._ensure_browser()
        context = await browser.new_context(service_workers="block", accept_downloads=False)
        context.set_default_timeout(self.settings.navigation_timeout * 1000)
        page = await context.new_page()
        sid = "br_" + secrets.token_hex(6)
        self._sessions[sid] = Session(context=context, page=page)
        return sid, self._sessions[sid]

    def get(self, sid: str) -> Session:
        """The open session ``sid`` (marked as used now), or a ``not_found`` error."""
        session = self._sessions.get(sid)
        if session is None:
            raise ToolError(
                f"There is no open browser session {sid!r} (it may have closed after being idle).",
                code=ErrorCode.NOT_FOUND,
                hint=SESSION_HINT,
            )
        session.last_used = time.monotonic()
        return session

    async def close_session(self, sid: str) -> bool:
        """Close session ``sid``; false when it was not open."""
        session = self._sessions.pop(sid, None)
        if session is None:
            return False
        try:
            await session.context.close()
        except Exception:  # the browser may already be gone
            return True
        return True

    # -- the loop thread and the browser -----------------------------------------------------
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
        executable = find_chromium(self.settings.executable_path)
        if executable is None:
            raise ToolError(
                "The browser is not available: no Chromium executable was found.",
                hint="Use web_tool.fetch instead.",
                details={"install": "apt-get install chromium, or set TOOLRIG_CHROMIUM"},
            )
        self._proxy = GuardProxy(self.settings.network)
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
            idle = self.settings.idle_timeout
            await asyncio.sleep(max(0.05, min(idle / 2, 30.0)))
            now = time.monotonic()
            for sid, session in list(self._sessions.items()):
                if now - session.last_used > idle:
                    await self.close_session(sid)

    async def _shutdown(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        for sid in list(self._sessions):
            await self.close_session(sid)
        if self._browser is not None:
            await self._browser.close()
        if self._playwright is not None:
            await self._playwright.stop()
        if self._proxy is not None:
            await self._proxy.close()
        self._browser = self._playwright = None


def _close_at_exit(ref: weakref.ReferenceType[Browsers]) -> None:
    browsers = ref()
    if browsers is not None:
        try:
            browsers.close()
        except Exception:  # interpreter is exiting; nothing left to report to
            return

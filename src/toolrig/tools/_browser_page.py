"""What ``browser_tool`` does on one page: describe it, read it, fill a login or search form.

Every text leaving here passes through :func:`scrub`, so the session's secrets (credentials
typed into a form) never appear in a result, even when a site echoes them back.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from typing_extensions import TypedDict

from toolrig.core.model._errors import ErrorCode, ToolError

if TYPE_CHECKING:
    from playwright.async_api import Page

__all__ = [
    "BrowserLogin",
    "ExtractOutput",
    "PageOutput",
    "ScreenshotOutput",
    "do_login",
    "do_search",
    "extract_page",
    "page_info",
    "scrub",
]

_MAX_LINKS: Final = 100
_SEARCH_BOXES: Final = (
    "input[type=search]",
    "[role=searchbox]",
    "input[name=q]",
    "input[name=query]",
    "input[name=search]",
    "input[name=s]",
    "input[placeholder*=search i]",
    "input[aria-label*=search i]",
)
_FIND_LOGIN: Final = """() => {
  const visible = (el) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  const password = [...document.querySelectorAll('input[type=password]')].find(visible);
  if (!password) return false;
  const scope = password.form || document;
  const fields = [...scope.querySelectorAll('input')].filter(visible);
  const before = fields.slice(0, fields.indexOf(password)).filter(
    (el) => ['', 'text', 'email', 'tel'].includes((el.getAttribute('type') || '').toLowerCase()));
  password.setAttribute('data-toolrig-login', 'password');
  if (before.length) before[before.length - 1].setAttribute('data-toolrig-login', 'user');
  const submit = scope.querySelector('button[type=submit], input[type=submit], button:not([type])');
  if (submit) submit.setAttribute('data-toolrig-login', 'submit');
  return true;
}"""
_LINKS: Final = """(root) => [...root.querySelectorAll('a[href]')].slice(0, 500).map(
  (a) => ({text: (a.innerText || a.getAttribute('aria-label') || '').trim(), href: a.href}))"""


class PageOutput(TypedDict):
    session_id: str
    url: str
    title: str
    status: int | None
    """HTTP status of the navigation, when there was one."""


class BrowserLogin(TypedDict):
    session_id: str
    url: str
    title: str
    login_form_still_shown: bool
    """True when a password field is still on the page: the sign-in probably failed."""


class Link(TypedDict):
    text: str
    href: str


class ExtractOutput(TypedDict):
    session_id: str
    url: str
    title: str
    text: str
    links: list[Link]
    truncated: bool


class ScreenshotOutput(TypedDict):
    session_id: str
    local_path: str


def scrub(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every secret replaced by ``[redacted]`` (short ones as whole words only,
    so a user name such as ``ada`` does not mangle ``adapter``)."""
    for secret in secrets:
        if len(secret) >= 6:
            text = text.replace(secret, "[redacted]")
        elif secret:
            text = re.sub(rf"(?<!\w){re.escape(secret)}(?!\w)", "[redacted]", text)
    return text


async def page_info(sid: str, page: Page, status: int | None, secrets: Sequence[str]) -> PageOutput:
    """The page's URL and title, secrets removed."""
    return PageOutput(
        session_id=sid,
        url=scrub(page.url, secrets),
        title=scrub(await page.title(), secrets),
        status=status,
    )


async def extract_page(
    sid: str, page: Page, selector: str | None, max_chars: int, secrets: Sequence[str]
) -> ExtractOutput:
    """Visible text and links of the page (or of the first element matching ``selector``)."""
    root = page.locator(selector or "body").first
    try:
        text = await root.inner_text()
        links = await root.evaluate(_LINKS)
    except Exception as exc:
        raise ToolError(
            f"Could not read {selector or 'the page'}: {str(exc).splitlines()[0]}",
            code=ErrorCode.NOT_FOUND if selector else ErrorCode.EXECUTION_ERROR,
            hint="Check the selector; extract without one reads the whole page.",
        ) from None
    text = scrub(text.strip(), secrets)
    truncated = len(text) > max_chars or len(links) > _MAX_LINKS
    return ExtractOutput(
        session_id=sid,
        url=scrub(page.url, secrets),
        title=scrub(await page.title(), secrets),
        text=text[:max_chars],
        links=[
            Link(text=scrub(str(link["text"]), secrets), href=scrub(str(link["href"]), secrets))
            for link in links[:_MAX_LINKS]
        ],
        truncated=truncated,
    )


async def _submit(page: Page, field: str, button: str | None, timeout: float) -> None:
    """Submit a form (click ``button`` or press Enter in ``field``), waiting for the page."""
    with contextlib.suppress(Exception):  # forms that update the page in place do not navigate
        async with page.expect_navigation(wait_until="load", timeout=timeout * 1000):
            if button is not None:
                await page.locator(button).first.click()
            else:
                await page.locator(field).first.press("Enter")


async def do_login(
    sid: str, page: Page, credentials: tuple[str, str], secrets: Sequence[str]
) -> BrowserLogin:
    """Fill the page's login form with ``credentials`` and submit it."""
    if not await page.evaluate(_FIND_LOGIN):
        raise ToolError(
            f"No login form (password field) was found on {scrub(page.url, secrets)}.",
            code=ErrorCode.NOT_FOUND,
            hint="Navigate to the site's sign-in page first, then call login with its URL.",
        )
    user, password = credentials
    if await page.locator("[data-toolrig-login=user]").count():
        await page.locator("[data-toolrig-login=user]").first.fill(user)
    await page.locator("[data-toolrig-login=password]").first.fill(password)
    has_button = await page.locator("[data-toolrig-login=submit]").count() > 0
    await _submit(
        page,
        "[data-toolrig-login=password]",
        "[data-toolrig-login=submit]" if has_button else None,
        timeout=15.0,
    )
    still = await page.locator("input[type=password]:visible").count() > 0
    return BrowserLogin(
        session_id=sid,
        url=scrub(page.url, secrets),
        title=scrub(await page.title(), secrets),
        login_form_still_shown=still,
    )


async def do_search(page: Page, query: str, timeout: float) -> None:
    """Type ``query`` into the page's search box and submit it."""
    for selector in _SEARCH_BOXES:
        box = page.locator(f"{selector} >> visible=true")
        if await box.count():
            await box.first.fill(query)
            await _submit(page, f"{selector} >> visible=true", None, timeout)
            return
    raise ToolError(
        f"No search box was found on {page.url}.",
        code=ErrorCode.NOT_FOUND,
        hint="Open the site's search page first, or use extract to find a search link.",
    )

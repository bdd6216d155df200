"""Setting up ``browser_tool``: finding Chromium, looking up credentials, session records and
the errors a browser raises, said for the model."""

from __future__ import annotations

import os
import re
import shutil
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from toolrig.core.model._errors import ErrorCode, ToolError

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page

__all__ = [
    "CHROMIUM_ARGS",
    "Session",
    "browser_error",
    "credentials_from_env_or_keyring",
    "find_chromium",
]

CHROMIUM_ARGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Nothing may leave except through the guard proxy, which only speaks TCP. WebRTC would
    # send UDP (STUN, media) straight to any address a page names: with this policy it uses
    # only proxied connections, and the page cannot change the policy.
    "--force-webrtc-ip-handling-policy",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--enforce-webrtc-ip-permission-check",
    # QUIC (HTTP/3, WebTransport) is UDP too; DNS prefetching and pings are not needed.
    "--disable-quic",
    "--dns-prefetch-disable",
    "--no-pings",
)
"""Flags for every launch; the proxy itself is given to Playwright (all requests, loopback
included, go through it)."""


def find_chromium(preferred: str | None = None) -> str | None:
    """The Chromium executable to use: ``preferred``, ``TOOLRIG_CHROMIUM``, or one on PATH."""
    for candidate in (preferred, os.environ.get("TOOLRIG_CHROMIUM"), "/usr/bin/chromium"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def credentials_from_env_or_keyring(key: str) -> tuple[str, str] | None:
    """``(username, password)`` for ``key``, from the environment or the system keyring."""
    env = "TOOLRIG_CREDENTIAL_" + re.sub(r"[^A-Za-z0-9]", "_", key).upper()
    user, password = os.environ.get(env + "_USERNAME"), os.environ.get(env + "_PASSWORD")
    if user is not None and password is not None:
        return user, password
    try:
        import keyring
        from keyring.errors import KeyringError
    except ImportError:
        return None
    try:
        found = keyring.get_credential(f"toolrig:{key}", None)
    except KeyringError:
        return None
    return None if found is None else (found.username, found.password)


@dataclass(slots=True)
class Session:
    context: BrowserContext
    page: Page
    last_used: float = field(default_factory=time.monotonic)
    secrets: list[str] = field(default_factory=list)
    shots: int = 0


def browser_error(exc: Exception, what: str, timeout: float) -> ToolError:
    name = type(exc).__name__
    if name == "TimeoutError":
        return ToolError(
            f"The browser waited {timeout:g} s for {what} and gave up.",
            code=ErrorCode.TIMEOUT,
            retryable=True,
        )
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else name
    return ToolError(f"The browser failed: {first_line}")

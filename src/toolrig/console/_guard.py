"""The console's guard: who may reach it and who may change anything.

- ``Host`` is checked on a default (loopback) bind, so a web page elsewhere cannot reach the
  console through DNS rebinding; ``Origin``, when a browser sends one, must be the console's.
- A bind other than ``127.0.0.1``, ``localhost`` or ``::1`` needs a token (refused at start
  otherwise), and with a token every request must carry it: ``Authorization: Bearer``, the
  cookie set by opening ``/?token=...`` once, or the ``token`` query parameter.
- Every state-changing request (POST) must carry the token in its form's ``csrf`` field. On a
  default bind without a token, one is made at start and embedded in the pages, which another
  site cannot read.
- ``Host`` must be exactly ``name[:port]`` (no user info, path or spaces); a request body over
  `MAX_BODY_BYTES` is refused with 413 before it is read (one must say its length: the server
  then reads no more than that); every response forbids framing
  (``Content-Security-Policy: frame-ancestors 'none'``, ``X-Frame-Options: DENY``).
"""

from __future__ import annotations

import hmac
import re
import secrets
from http.cookies import SimpleCookie
from typing import Final
from urllib.parse import parse_qs, urlencode, urlsplit

from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "COOKIE",
    "DEFAULT_BINDS",
    "ConsoleGuard",
    "UnsafeConsoleBind",
    "check_console_bind",
    "new_token",
    "same_token",
]

DEFAULT_BINDS: Final = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
"""Binds that need no token: this machine's usual loopback names."""
COOKIE: Final = "toolrig_console"
MAX_BODY_BYTES: Final = 1_048_576
"""The largest request body the console reads (a decision or a try-it form is far smaller)."""
_HOST: Final = re.compile(
    r"^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$"
)
"""``name[:port]`` or ``[v6][:port]``, nothing else."""
_NO_FRAMING: Final = (
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
)


def new_token() -> str:
    """A token for forms when none was given."""
    return secrets.token_urlsafe(24)


def same_token(given: str | None, token: str) -> bool:
    """Whether ``given`` is ``token`` (compared in constant time)."""
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


class UnsafeConsoleBind(ValueError):
    """Refused to serve on an address other than the default loopback ones without a token."""


def check_console_bind(host: str, token: str | None) -> None:
    """Raise `UnsafeConsoleBind` for a non-default bind without a token."""
    if token is None and host.lower() not in DEFAULT_BINDS:
        raise UnsafeConsoleBind(
            f"refusing to serve the console on {host!r} without a token: anyone who can reach "
            "it could read the log and approve calls. Give --token (or token=), or bind to "
            "127.0.0.1."
        )


class ConsoleGuard:
    """ASGI middleware applying the rules above; ``csrf`` is the token forms must carry."""

    def __init__(self, app: ASGIApp, *, host: str, token: str | None, csrf: str) -> None:
        check_console_bind(host, token)
        self.app = app
        self.token_required = token is not None
        self.csrf = csrf
        bind = host.lower().strip("[]")
        self.check_host = bind in {"127.0.0.1", "localhost", "::1"}
        self.hosts = {"127.0.0.1", "localhost", "::1", bind}

    def valid_csrf(self, given: str | None) -> bool:
        """Whether ``given`` is the console's token."""
        return same_token(given, self.csrf)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}

        async def framed(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [h for h in message.get("headers", []) if h[0].lower() not in _FRAMING]
                message = {**message, "headers": [*kept, *_NO_FRAMING]}
            await send(message)

        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await refusal(scope, receive, framed)
            return
        await self.app(scope, receive, framed)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> Response | None:
        host = headers.get("host", "")
        if not _HOST.match(host):
            return PlainTextResponse(
                f"Host {host[:100]!r} is not a host name with an optional port.", status_code=400
            )
        length = headers.get("content-length")
        if length is None and scope["method"] in ("POST", "PUT", "PATCH"):
            return PlainTextResponse(
                "A request with a body must say its length (Content-Length).", status_code=411
            )
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            return PlainTextResponse(
                f"The request body is over {MAX_BODY_BYTES} bytes, or its length is unreadable.",
                status_code=413,
            )
        name = urlsplit(f"//{host}").hostname or ""
        if self.check_host and name not in self.hosts:
            return PlainTextResponse(
                f"Host {host!r} is not this console's (open it as http://127.0.0.1:PORT/).",
                status_code=421,
            )
        origin = headers.get("origin")
        if origin is not None and origin != "null" and urlsplit(origin).netloc != host:
            return PlainTextResponse(
                "Cross-origin requests are refused: open the console itself.", status_code=403
            )
        if origin == "null" and scope["method"] != "GET":
            return PlainTextResponse("Requests from an opaque origin are refused.", 403)
        if not self.token_required:
            return None
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = (query.get("token") or [None])[0]
        if given is not None and self.valid_csrf(given):
            rest = {k: v for k, v in query.items() if k != "token"}
            target = scope["path"] + (f"?{urlencode(rest, doseq=True)}" if rest else "")
            response: Response = RedirectResponse(target, status_code=303)
            response.set_cookie(COOKIE, self.csrf, httponly=True, samesite="strict")
            return response
        bearer = headers.get("authorization", "")
        cookie = SimpleCookie(headers.get("cookie", "")).get(COOKIE)
        given_bearer = bearer[len("Bearer ") :] if bearer.startswith("Bearer ") else None
        for candidate in (given_bearer, None if cookie is None else cookie.value):
            if candidate and self.valid_csrf(candidate):
                return None
        return PlainTextResponse(
            "This console needs its token: open the address it printed at start "
            "(http://HOST:PORT/?token=...), or send Authorization: Bearer TOKEN.",
            status_code=401,
            headers={"www-authenticate": 'Bearer realm="toolrig console"'},
        )


_FRAMING: Final = frozenset(name for name, _ in _NO_FRAMING)

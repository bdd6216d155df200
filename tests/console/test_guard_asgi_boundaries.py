"""The console's guard as ASGI middleware, boundary by boundary (`toolrig.console._guard`),
driven with hand-made scopes so every header, method and missing key is the test's choice.

The promise (docs/console.md, "Security"): what is not an HTTP request passes through as it
came; every refusal has its status and its words (what was wrong, what to do); the default
binds (`127.0.0.1`, `localhost`, `::1`, `[::1]`) check ``Host`` against this machine's names and
no other bind does; an opaque origin (``Origin: null``) may read but not change; a token given in
the query is swapped for a strict, HTTP-only cookie and a redirect to the same address without
it; the app's own framing headers are replaced, never doubled.

| promise | boundary | test |
|---|---|---|
| pass-through | lifespan, websocket: the app gets the same scope, receive, send | `..._through` |
| framing | the app's `X-Frame-Options`, CSP replaced; a start without headers | `..._framing_*` |
| `Host` | absent: 400; 150 characters: its first 100 quoted | `test_host_refusals` |
| length | POST, PUT, PATCH without `Content-Length`: 411; GET, DELETE: served | `test_length_*` |
| words | 400, 411, 413, 421, 403 (cross-origin, opaque), 401 (+ `WWW-Authenticate`) | each test |
| rebinding | each default bind: another name 421, each loopback name served | `..._binds_*` |
| opaque origin | `Origin: null`: GET served, POST 403; its own: POST served | `..._opaque_*` |
| query token | `/?token=T`: 303 to `/`; `/runs?token=T&page=2`: to `/runs?page=2` | `..._token_*` |
| cookie | the token's cookie: strict, HTTP-only | `..._token_*` |
| no query | a scope without `query_string`: 401, not an error | `test_query_token_*` |
| bind words | the refusal names `--token` and `127.0.0.1` | `test_bind_refusal_words` |
| form token | 32 URL-safe characters, new each time | `test_new_token` |

Breaks tried (each made the named test fail, then was undone): the opaque origin's check as
``method == "GET"`` (``test_opaque_origin``); ``strip(None)`` for the bind's brackets (``[::1]``
no longer checks ``Host``: ``test_default_binds_*``); the framing filter on ``h[1]``
(``test_framing_replaced``); the redirect keeping an empty ``?`` (``test_query_token_*``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from toolrig.console._guard import (
    COOKIE,
    MAX_BODY_BYTES,
    ConsoleGuard,
    UnsafeConsoleBind,
    check_console_bind,
    new_token,
)

Message = dict[str, Any]
TOKEN = "t" * 32


class Reply:
    """What the guard sent: status, headers (lower-cased names, in order) and body."""

    def __init__(self, messages: list[Message]) -> None:
        start = messages[0]
        self.status: int = start["status"]
        self.headers: list[tuple[str, str]] = [
            (k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in start.get("headers", [])
        ]
        self.body = b"".join(m.get("body", b"") for m in messages[1:]).decode()

    def all(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k == name]


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"X-Frame-Options", b"SAMEORIGIN"),
                (b"content-security-policy", b"frame-ancestors *"),
                (b"content-type", b"text/plain"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b"page"})


def _scope(
    method: str = "GET",
    path: str = "/",
    headers: dict[str, str] | None = None,
    query: bytes | None = b"",
    host: str | None = "127.0.0.1:8080",
) -> dict[str, Any]:
    given = {} if headers is None else dict(headers)
    if host is not None:
        given = {"host": host, **given}
    scope: dict[str, Any] = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in given.items()],
    }
    if query is not None:
        scope["query_string"] = query
    return scope


def _ask(guard: ConsoleGuard | Callable[..., Awaitable[None]], scope: dict[str, Any]) -> Reply:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(guard(scope, receive, send))  # type: ignore[arg-type]
    return Reply(sent)


def _guard(host: str = "127.0.0.1", token: str | None = None, app: Any = _app) -> ConsoleGuard:
    return ConsoleGuard(app, host=host, token=token, csrf=token or TOKEN)


@pytest.mark.parametrize("kind", ["lifespan", "websocket"])
def test_other_scopes_pass_through(kind: str) -> None:
    seen: list[tuple[Any, Any, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append((scope, receive, send))

    async def receive() -> Message:
        return {}

    async def send(message: Any) -> None:
        return None

    scope = {"type": kind, "headers": [(b"host", b"evil.example")]}
    asyncio.run(_guard(app=app)(scope, receive, send))
    assert len(seen) == 1
    assert seen[0][0] is scope and seen[0][1] is receive and seen[0][2] is send


def test_framing_replaced_not_doubled() -> None:
    reply = _ask(_guard(), _scope())
    assert (reply.status, reply.body) == (200, "page")
    assert reply.all("x-frame-options") == ["DENY"]
    assert reply.all("content-security-policy") == ["frame-ancestors 'none'"]
    assert reply.all("content-type") == ["text/plain"]


def test_framing_added_to_a_start_without_headers() -> None:
    async def bare(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 204})
        await send({"type": "http.response.body", "body": b""})

    reply = _ask(_guard(app=bare), _scope())
    assert reply.status == 204
    assert reply.all("x-frame-options") == ["DENY"]


def test_host_refusals() -> None:
    reply = _ask(_guard(), _scope(host=None))
    assert reply.status == 400
    assert reply.body == "Host '' is not a host name with an optional port."
    long = "a/" + "b" * 148
    reply = _ask(_guard(), _scope(host=long))
    assert reply.status == 400
    assert reply.body == f"Host {long[:100]!r} is not a host name with an optional port."


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH"])
def test_length_needed_for_a_body(method: str) -> None:
    reply = _ask(_guard(), _scope(method))
    assert reply.status == 411
    assert reply.body == "A request with a body must say its length (Content-Length)."
    assert reply.all("x-frame-options") == ["DENY"]


@pytest.mark.parametrize("method", ["GET", "HEAD", "DELETE"])
def test_length_not_needed_without_a_body(method: str) -> None:
    assert _ask(_guard(), _scope(method)).status == 200


@pytest.mark.parametrize("length", [str(MAX_BODY_BYTES + 1), "12a", "-1"])
def test_length_over_or_unreadable(length: str) -> None:
    reply = _ask(_guard(), _scope("POST", headers={"content-length": length}))
    assert reply.status == 413
    assert reply.body == (
        f"The request body is over {MAX_BODY_BYTES} bytes, or its length is unreadable."
    )


@pytest.mark.parametrize("bind", ["localhost", "LocalHost", "127.0.0.1", "::1", "[::1]"])
def test_default_binds_check_the_host(bind: str) -> None:
    guard = _guard(bind)
    reply = _ask(guard, _scope(host="evil.example:8080"))
    assert reply.status == 421
    assert reply.body == (
        "Host 'evil.example:8080' is not this console's (open it as http://127.0.0.1:PORT/)."
    )
    for name in ("127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST"):
        assert _ask(guard, _scope(host=name)).status == 200, name


def test_other_binds_do_not_check_the_host() -> None:
    guard = _guard("0.0.0.0", token=TOKEN)
    scope = _scope(host="console.example:8080", headers={"authorization": f"Bearer {TOKEN}"})
    assert _ask(guard, scope).status == 200


def test_cross_origin_words() -> None:
    scope = _scope(headers={"origin": "http://evil.example"})
    reply = _ask(_guard(), scope)
    assert reply.status == 403
    assert reply.body == "Cross-origin requests are refused: open the console itself."


def test_opaque_origin() -> None:
    assert _ask(_guard(), _scope(headers={"origin": "null"})).status == 200
    posted = _scope("POST", headers={"origin": "null", "content-length": "0"})
    reply = _ask(_guard(), posted)
    assert reply.status == 403
    assert reply.body == "Requests from an opaque origin are refused."
    assert reply.all("x-frame-options") == ["DENY"]
    same = _scope("POST", headers={"origin": "http://127.0.0.1:8080", "content-length": "0"})
    assert _ask(_guard(), same).status == 200


def test_query_token_becomes_a_cookie_and_a_clean_redirect() -> None:
    guard = _guard(token=TOKEN)
    reply = _ask(guard, _scope(query=f"token={TOKEN}".encode()))
    assert reply.status == 303
    assert reply.all("location") == ["/"]
    (cookie,) = reply.all("set-cookie")
    assert cookie.startswith(f"{COOKIE}={TOKEN};")
    attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict"} <= attributes
    reply = _ask(guard, _scope(path="/runs", query=f"token={TOKEN}&page=2".encode()))
    assert reply.all("location") == ["/runs?page=2"]


def test_query_token_absent_or_scope_without_a_query() -> None:
    guard = _guard(token=TOKEN)
    for scope in (_scope(query=None), _scope(query=b"page=2")):
        reply = _ask(guard, scope)
        assert reply.status == 401
        assert reply.body == (
            "This console needs its token: open the address it printed at start "
            "(http://HOST:PORT/?token=...), or send Authorization: Bearer TOKEN."
        )
        assert reply.all("www-authenticate") == ['Bearer realm="toolrig console"']
    cookie = _scope(query=None, headers={"cookie": f"{COOKIE}={TOKEN}"})
    assert _ask(guard, cookie).status == 200


def test_bind_refusal_words() -> None:
    with pytest.raises(UnsafeConsoleBind) as refused:
        check_console_bind("0.0.0.0", None)
    assert str(refused.value) == (
        "refusing to serve the console on '0.0.0.0' without a token: anyone who can reach "
        "it could read the log and approve calls. Give --token (or token=), or bind to "
        "127.0.0.1."
    )


def test_new_token() -> None:
    made = {new_token() for _ in range(20)}
    assert len(made) == 20
    assert all(len(t) == 32 and t.replace("-", "").replace("_", "").isalnum() for t in made)

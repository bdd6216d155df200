"""The console's guard, boundary by boundary (docs/console.md, "Security"), through the ASGI
app (no socket).

The promise: without a token only this machine's loopback names may be bound; with a token
every request carries exactly ``Authorization: Bearer TOKEN`` (another scheme, a bare token, a
near token are refused); ``Host`` is exactly ``name[:port]`` (400 otherwise) and, on the
default bind, names this machine (no DNS rebinding); another site's ``Origin`` is refused; a
body over 1 MiB is refused with 413 before it is read, one that does not say its length with
411; every response, refusals included, forbids framing.

| promise | boundary | test |
|---|---|---|
| bind | loopback names with no token; `127.0.0.2`, `0.0.0.0`, `10.0.0.1`: refused | `test_bind_*` |
| token | `Bearer T` 200; `bearer T`, `Bearer  T`, `T`, `Tx`, `T[:-1]`, none: 401 | `test_token` |
| `Host` | `name`, `name:port`, `[::1]:80`: served | `test_host_*` |
| `Host` | user info, a path, a space, `name:`, empty: 400 | `test_host_*` |
| rebinding | another name on the default bind: 421 | `test_host_*` |
| `Origin` | this console's: served; another site's: 403 | `test_host_*` |
| body | exactly 1 MiB: past the guard; one byte more, an unreadable length: 413 | `test_body` |
| length | a POST that does not say its length (chunked): 411 | `test_body` |
| framing | each refusal above, and a page: `DENY` and `frame-ancestors 'none'` | every test |

Breaks tried (each made the named test fail, then was undone): the body limit as
``int(length) >= MAX_BODY_BYTES`` (exactly 1 MiB refused: ``test_body``); the `Host` pattern
without its ``$`` anchor (a path or a space after the name served: ``test_host_*``); the refusals
sent without the framing headers (every test).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from console_tools import tools

from toolrig.console import UnsafeConsoleBind, app
from toolrig.console._guard import MAX_BODY_BYTES
from toolrig.storage import SQLiteExecutionLog


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SQLiteExecutionLog]:
    opened = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    yield opened
    opened.close()


def _client(log: SQLiteExecutionLog, base: str, **options: object) -> httpx.AsyncClient:
    asgi = app(log=log, catalog=tools, **options)  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi), base_url=base)


def _unframed(response: httpx.Response) -> bool:
    return not (
        response.headers.get("x-frame-options") == "DENY"
        and response.headers.get("content-security-policy") == "frame-ancestors 'none'"
    )


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_bind_without_a_token_on_loopback(log: SQLiteExecutionLog, host: str) -> None:
    app(log=log, host=host)


@pytest.mark.parametrize("host", ["127.0.0.2", "0.0.0.0", "10.0.0.1"])
def test_bind_elsewhere_needs_a_token(log: SQLiteExecutionLog, host: str) -> None:
    with pytest.raises(UnsafeConsoleBind, match="without a token"):
        app(log=log, host=host)
    app(log=log, host=host, token="t0ken")


@pytest.mark.parametrize(
    ("authorization", "status"),
    [
        ("Bearer t0ken", 200),
        ("bearer t0ken", 401),
        ("Bearer  t0ken", 401),
        ("t0ken", 401),
        ("Basic t0ken", 401),
        ("Bearer t0kenx", 401),
        ("Bearer t0ke", 401),
        (None, 401),
    ],
)
async def test_token(log: SQLiteExecutionLog, authorization: str | None, status: int) -> None:
    async with _client(log, "http://10.0.0.1", host="0.0.0.0", token="t0ken") as http:
        headers = {} if authorization is None else {"authorization": authorization}
        response = await http.get("/runs", headers=headers)
    assert response.status_code == status and not _unframed(response)


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "127.0.0.1"}, 200),
        ({"host": "127.0.0.1:8765"}, 200),
        ({"host": "localhost:1"}, 200),
        ({"host": "[::1]:80"}, 200),
        ({"host": "user@127.0.0.1"}, 400),
        ({"host": "127.0.0.1/x"}, 400),
        ({"host": "127.0.0.1 x"}, 400),
        ({"host": "127.0.0.1:"}, 400),
        ({"host": ""}, 400),
        ({"host": "evil.example"}, 421),
        ({"origin": "http://127.0.0.1"}, 200),
        ({"origin": "http://evil.example"}, 403),
    ],
)
async def test_host_and_origin(
    log: SQLiteExecutionLog, headers: dict[str, str], status: int
) -> None:
    async with _client(log, "http://127.0.0.1") as http:
        response = await http.get("/runs", headers=headers)
    assert response.status_code == status and not _unframed(response)


async def _chunks() -> AsyncIterator[bytes]:
    yield b"decision=allow"


@pytest.mark.parametrize(
    ("length", "status"),
    [(str(MAX_BODY_BYTES), None), (str(MAX_BODY_BYTES + 1), 413), ("12x", 413), (None, 411)],
)
async def test_body(log: SQLiteExecutionLog, length: str | None, status: int | None) -> None:
    async with _client(log, "http://127.0.0.1") as http:
        if length is None:
            response = await http.post("/approvals/decide", content=_chunks())
        else:
            response = await http.post(
                "/approvals/decide", content=b"", headers={"content-length": length}
            )
    if status is None:  # past the guard: the page itself answers (no form token: refused)
        assert response.status_code not in (411, 413)
    else:
        assert response.status_code == status
    assert not _unframed(response)

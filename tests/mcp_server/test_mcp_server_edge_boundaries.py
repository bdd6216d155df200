"""A served catalogue's edges, boundary by boundary (docs/mcp.md, "What clients see" and the
HTTP limits), over real HTTP on 127.0.0.1: the stateless direct path (raw JSON-RPC POSTs),
a 2025 session and a 2026-07-28 client (both the ``mcp`` SDK's own client).

The promises: only a listed name is called (``todo__add``); the catalogue's own ``todo.add``
is refused with -32602 naming the listed name, any other name with -32602 and the closest
listed names, and nothing runs; arguments of the wrong type are an ``isError`` result coded
``invalid_arguments``, and arguments that are not an object get the SDK's JSON-RPC error (the
direct path hands them over), neither running the tool; a body over the 4 MiB limit is
answered ``413`` before any tool, one at the limit is served; a foreign ``Host`` is ``421``
and a foreign ``Origin`` ``403``, before any tool.

| promise | boundary | test |
|---|---|---|
| listed only | `todo__add` runs; `todo.add`, `TODO__ADD`, `todo__ad`, `` do not | `..._names` |
| what to send | `todo.add`: names `todo__add`; `todo__ad`: "Did you mean" it | `..._names` |
| every path | stateless direct, 2025 session, 2026-07-28 client | `..._names` |
| wrong values | `a` "two", null, 1.5; an unknown `c`: `invalid_arguments` | `..._values` |
| an object | arguments a list, a string, a number: a JSON-RPC error | `..._shapes` |
| body limit | 4 MiB - 1, 4 MiB: answered; 4 MiB + 1, 8 MiB: `413`, not run | `..._body_limit` |
| Host guard | `localhost:1` answered, then `evil.example`: `421` | `test_guard[host-*]` |
| Origin guard | `http://localhost` answered, then `http://evil.example`: `403` | `..[origin-*]` |
| eras, stateless | none, 2025, a stray session id: 200; 2026 bare, `1999-01-01`: 400 | `..._eras` |
| eras, sessions | none, 2025, 2026 bare, `1999-01-01`: 400; a made-up session: 404 | `..._eras` |

Breaks tried (each made the named test fail, then was undone): `_listed` accepting the
catalogue's call name (``..._names``, the three ``todo.add`` rows); the direct path's body
limit raised to 8 MiB (``..._body_limit[limit+1-stateless]`` and ``[twice-stateless]``: read
whole and run); the direct path taking arguments that are not an object
(``..._shapes[*-stateless]``: an ``isError`` result instead of the SDK's error); the guard
checking ``Host`` alone (``test_guard[origin-*]``); its remembered answers keyed by ``Host``
alone (``test_guard[origin-*]``: the foreign ``Origin`` passed after the loopback one); the
direct path taking any ``MCP-Protocol-Version`` (``..._eras``: the bare 2026-07-28 and the
``1999-01-01`` stateless rows answered and run). The
direct path's own copy of the SDK's check sits behind the guard, so dropping it broke nothing
here (``test_mcp_scaling`` compares that path with the SDK's).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import mcp_types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_support import session

from asgi_server import serve_asgi
from toolrig import BaseTool, action
from toolrig.mcp import ToolServer, http_app
from toolrig.registry import Catalog

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
LIMIT = 4 * 1024 * 1024  # docs: the SDK's request body limit, kept on the direct path
runs: list[str] = []


class Todo(BaseTool):
    """A tool of one action, listed as ``todo__add``."""

    name = "todo"

    @action
    def add(self, a: int, b: int = 0, note: str = "") -> int:
        """Add two integers (a note may ride along)."""
        runs.append("todo.add")
        return a + b


@pytest.fixture(scope="module")
def urls() -> Iterator[dict[str, str]]:
    """The same catalogue served stateless and with sessions."""
    stateless, stateful = ToolServer(Catalog([Todo()])), ToolServer(Catalog([Todo()]))
    with (
        serve_asgi(http_app(stateless, stateless=True)) as a,
        serve_asgi(http_app(stateful)) as b,
    ):
        yield {"stateless": f"{a}/mcp", "stateful": f"{b}/mcp"}
    stateless.close()
    stateful.close()


def _call(name: str, arguments: Any) -> bytes:
    params = {"name": name, "arguments": arguments}
    return json.dumps(
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    ).encode()


def _post(url: str, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(url, content=body, headers=headers or HEADERS, timeout=30)


async def _via_client(mode: str, url: str, name: str, arguments: dict[str, Any]) -> Any:
    """The result of one call through the SDK client (2025 session or 2026-07-28), or the
    `MCPError` it raised."""

    async def call(client: Any) -> Any:
        try:
            return await client.call_tool(name, arguments)
        except MCPError as exc:  # caught inside: the client's task group would wrap it
            return exc

    if mode == "2025":
        async with session("http", url) as client:
            return await call(client)
    async with Client(url, mode="2026-07-28") as modern:
        return await call(modern)


NAMES = [
    ("todo__add", None),
    ("todo.add", "by its listed name 'todo__add'"),
    ("TODO__ADD", "not found"),
    ("todo__ad", "Did you mean 'todo__add'"),
    ("", "not found"),
]
PATHS = ["stateless", "2025", "2026-07-28"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("name", "refusal"), NAMES, ids=[n or "empty" for n, _ in NAMES])
async def test_only_listed_names(
    urls: dict[str, str], path: str, name: str, refusal: str | None
) -> None:
    runs.clear()
    if path == "stateless":
        answer = _post(urls["stateless"], _call(name, {"a": 2, "b": 3})).json()
        error = answer.get("error")
        code, message = (error["code"], error["message"]) if error else (None, "")
        output = None if error else answer["result"]["structuredContent"]["result"]
    else:
        url = urls["stateless" if path == "2026-07-28" else "stateful"]
        got = await _via_client(path, url, name, {"a": 2, "b": 3})
        if isinstance(got, MCPError):
            code, message, output = got.error.code, got.error.message, None
        else:
            code, message, output = None, "", got.structured_content["result"]
    if refusal is None:
        assert (code, output, runs) == (None, 5, ["todo.add"])
    else:
        assert code == mcp_types.INVALID_PARAMS
        assert refusal in message
        assert runs == []


VALUES = [{"a": "two"}, {"a": None}, {"a": 1.5}, {"a": 1, "c": 3}]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("arguments", VALUES, ids=lambda a: json.dumps(a))
async def test_wrong_argument_values(
    urls: dict[str, str], path: str, arguments: dict[str, Any]
) -> None:
    runs.clear()
    if path == "stateless":
        result = _post(urls["stateless"], _call("todo__add", arguments)).json()["result"]
        error, meta = result["isError"], result["_meta"]
    else:
        url = urls["stateless" if path == "2026-07-28" else "stateful"]
        got = await _via_client(path, url, "todo__add", arguments)
        error, meta = got.is_error, got.meta
    assert error is True
    assert meta["toolrig/error"]["code"] == "invalid_arguments"
    assert runs == []


@pytest.mark.parametrize("mode", ["stateless", "stateful"])
@pytest.mark.parametrize("arguments", [[1, 2], "a=1", 3], ids=["list", "string", "number"])
def test_argument_shapes(urls: dict[str, str], mode: str, arguments: Any) -> None:
    runs.clear()
    headers = dict(HEADERS)
    if mode == "stateful":
        headers["mcp-session-id"] = _open_session(urls["stateful"])
    response = _post(urls[mode], _call("todo__add", arguments), headers)
    answer = _json_of(response)
    assert "result" not in answer
    assert answer["error"]["code"] in (mcp_types.INVALID_PARAMS, mcp_types.INVALID_REQUEST)
    assert runs == []


def _open_session(url: str) -> str:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "edges", "version": "0"},
        },
    }
    response = _post(url, json.dumps(init).encode())
    sid = response.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    _post(url, json.dumps(note).encode(), {**HEADERS, "mcp-session-id": sid})
    return sid


def _json_of(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of a JSON or an event-stream answer."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                found: dict[str, Any] = json.loads(line[5:])
                return found
        raise AssertionError(f"no message in {response.text!r}")
    answer: dict[str, Any] = response.json()
    return answer


def _sized(size: int) -> bytes:
    """A ``tools/call`` of ``todo__add`` whose body is exactly ``size`` bytes."""
    bare = _call("todo__add", {"a": 1, "b": 1, "note": ""})
    body = _call("todo__add", {"a": 1, "b": 1, "note": "x" * (size - len(bare))})
    assert len(body) == size
    return body


@pytest.mark.parametrize("mode", ["stateless", "stateful"])
@pytest.mark.parametrize(
    ("size", "served"),
    [(LIMIT - 1, True), (LIMIT, True), (LIMIT + 1, False), (2 * LIMIT, False)],
    ids=["limit-1", "limit", "limit+1", "twice"],
)
def test_body_limit(urls: dict[str, str], mode: str, size: int, served: bool) -> None:
    runs.clear()
    headers = dict(HEADERS)
    if mode == "stateful":
        headers["mcp-session-id"] = _open_session(urls["stateful"])
    response = _post(urls[mode], _sized(size), headers)
    if served:
        assert response.status_code == 200
        assert _json_of(response)["result"]["structuredContent"]["result"] == 2
        assert runs == ["todo.add"]
    else:
        assert response.status_code == 413
        assert runs == []


@pytest.mark.parametrize("mode", ["stateless", "stateful"])
@pytest.mark.parametrize(
    ("fine", "foreign", "status"),
    [
        ({"host": "localhost:1"}, {"host": "evil.example"}, 421),
        ({"origin": "http://localhost"}, {"origin": "http://evil.example"}, 403),
    ],
    ids=["host", "origin"],
)
def test_guard(
    urls: dict[str, str], mode: str, fine: dict[str, str], foreign: dict[str, str], status: int
) -> None:
    """A loopback spelling is answered; right after it, on the same server, a foreign one is
    refused (answers are remembered per Host and Origin pair, never per Host alone)."""
    headers = dict(HEADERS)
    if mode == "stateful":
        headers["mcp-session-id"] = _open_session(urls["stateful"])
    runs.clear()
    answered = _post(urls[mode], _call("todo__add", {"a": 1}), {**headers, **fine})
    assert answered.status_code == 200 and runs == ["todo.add"]
    runs.clear()
    response = _post(urls[mode], _call("todo__add", {"a": 1}), {**headers, **foreign})
    assert response.status_code == status
    assert runs == []


ERAS = [
    ("stateless", {}, 200),
    ("stateless", {"mcp-protocol-version": "2025-06-18"}, 200),
    ("stateless", {"mcp-session-id": "made-up"}, 200),  # no sessions kept: nothing to find
    ("stateless", {"mcp-protocol-version": "2026-07-28"}, 400),  # without its _meta envelope
    ("stateless", {"mcp-protocol-version": "1999-01-01"}, 400),
    ("stateful", {}, 400),  # no session
    ("stateful", {"mcp-protocol-version": "2025-06-18"}, 400),
    ("stateful", {"mcp-session-id": "made-up"}, 404),
    ("stateful", {"mcp-protocol-version": "2026-07-28"}, 400),
    ("stateful", {"mcp-protocol-version": "1999-01-01"}, 400),
]


@pytest.mark.parametrize(("mode", "header", "status"), ERAS, ids=lambda v: str(v))
def test_eras(urls: dict[str, str], mode: str, header: dict[str, str], status: int) -> None:
    """A raw ``tools/call`` without a handshake: a stateless server answers 2025 requests (a
    session id it never issued changes nothing); a 2026-07-28 one needs its envelope; a
    server with sessions needs one it issued; an unknown version is refused; only an answered
    call runs."""
    runs.clear()
    response = _post(urls[mode], _call("todo__add", {"a": 1, "b": 2}), {**HEADERS, **header})
    assert response.status_code == status
    if status == 200:
        assert response.json()["result"]["structuredContent"]["result"] == 3
        assert runs == ["todo.add"]
    else:
        assert "error" in response.json()
        assert runs == []

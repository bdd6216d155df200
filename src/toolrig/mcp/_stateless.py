"""The direct path for ``tools/call`` on a stateless JSON-response server.

In stateless mode (``stateless=True``: no ``Mcp-Session-Id``, every POST answered with one
JSON body) a ``tools/call`` needs nothing the SDK keeps per connection: no session, no
back channel. The SDK still builds a transport, a dispatcher, memory streams and a task group
for each request, about 1.5 ms of CPU per call here. `DirectCalls` answers such a POST
itself: the same security checks (the SDK's DNS-rebinding settings and Content-Type rule), the
same executor, the same ``CallToolResult`` and the same JSON-RPC error for an unknown tool.
Whatever it does not recognise with certainty (another method, a batch, a notification, a
2026-era request by its header or its ``_meta`` envelope, a round's ``inputResponses``, an
``Accept`` header without both media types, a malformed body) goes to the SDK's app untouched,
the body replayed, so the SDK answers it as it would have.
"""

from __future__ import annotations

import json
from typing import Any, Final

import mcp_types
import pydantic_core
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolrig.mcp._server import ToolServer

__all__ = ["DirectCalls", "route_path"]

_VERSIONS: Final = frozenset(v.encode() for v in HANDSHAKE_PROTOCOL_VERSIONS)
_JSON_HEADERS: Final = [(b"content-type", b"application/json")]
_MAX_BODY: Final = 4 * 1024 * 1024


def route_path(scope: Scope) -> str:
    """The request's path within the app (without the ``root_path`` it is mounted under), as
    Starlette routes it."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def _accepts_both(accept: bytes) -> bool:
    """Whether ``accept`` lists JSON and SSE (as a client must), wildcards counting."""
    kinds = {part.split(b";", 1)[0].strip().lower() for part in accept.split(b",")}
    if b"*/*" in kinds:
        return True
    return bool(kinds & {b"application/json", b"application/*"}) and bool(
        kinds & {b"text/event-stream", b"text/*"}
    )


class DirectCalls:
    """ASGI middleware in front of the SDK's stateless JSON app at ``path``."""

    def __init__(
        self,
        app: ASGIApp,
        server: ToolServer,
        *,
        path: str,
        security: TransportSecuritySettings | None,
    ) -> None:
        self.app = app
        self.server = server
        self.path = path
        self._security = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or route_path(scope) != self.path:
            await self.app(scope, receive, send)
            return
        content_type = accept = b""
        version: bytes | None = None
        for key, value in scope["headers"]:
            if key == b"content-type":
                content_type = value
            elif key == b"accept":
                accept = value
            elif key == b"mcp-protocol-version":
                version = value
        eligible = (
            content_type.split(b";", 1)[0].strip().lower() == b"application/json"
            and _accepts_both(accept)
            and (version is None or version in _VERSIONS)
            and await self._security.validate_request(Request(scope), is_post=True) is None
        )
        if not eligible:
            await self.app(scope, receive, send)
            return
        body, complete = await _read_body(receive)
        call = _tools_call(body) if complete else None
        if call is None:
            await self.app(scope, _replay(body, complete, receive), send)
            return
        request_id, name, arguments = call
        try:
            result = await self.server.call_without_channel(name, arguments)
            answer: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "result": result}
        except MCPError as exc:
            error = exc.error.model_dump(mode="json", by_alias=True, exclude_none=True)
            answer = {"jsonrpc": "2.0", "id": request_id, "error": error}
        try:
            data = json.dumps(answer, ensure_ascii=False, allow_nan=False).encode()
        except (TypeError, ValueError):  # to_jsonable guards this; a result must still go out
            error = {"code": mcp_types.INTERNAL_ERROR, "message": "the result is not JSON"}
            data = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [*_JSON_HEADERS, (b"content-length", str(len(data)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": data})


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    """The request body, and whether it was read whole (not cut at the size limit and not
    ended by a disconnect)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if size > _MAX_BODY:
            return b"".join(chunks), False
        if not message.get("more_body", False):
            return b"".join(chunks), True


def _replay(body: bytes, complete: bool, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` again, then (when it was not read whole) the rest."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": not complete}
        return await receive()

    return replay


def _tools_call(body: bytes) -> tuple[int | str, str, dict[str, Any] | None] | None:
    """``(id, name, arguments)`` of a plain ``tools/call`` request, else ``None``.

    Parsed by the SDK's own parser (pydantic-core), so the same bodies are refused: one
    nested deeper than its limit (about 200 levels) or malformed goes to the SDK, which
    answers 400 with a JSON-RPC parse error, as for any client (``json.loads`` raised
    ``RecursionError`` past ~1,000 levels here, and the answer was a 500)."""
    try:
        message = pydantic_core.from_json(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    request_id = message.get("id")
    params = message.get("params")
    if (
        message.get("jsonrpc") != "2.0"
        or isinstance(request_id, bool)
        or not isinstance(request_id, int | str)
        or not isinstance(params, dict)
    ):
        return None
    name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(name, str) or not (arguments is None or isinstance(arguments, dict)):
        return None
    if params.get("task") is not None:  # task-augmented calls: the SDK's business
        return None
    meta = params.get("_meta")
    if isinstance(meta, dict) and any(k.startswith("io.modelcontextprotocol/") for k in meta):
        return None  # a 2026-era envelope (its rounds and capabilities): the SDK's too
    if "inputResponses" in params or "requestState" in params:
        return None
    return request_id, name, arguments

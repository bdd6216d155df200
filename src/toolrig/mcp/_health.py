"""``/healthz``: a small JSON answer for load balancers in front of several MCP servers.

``GET /healthz`` answers ``200`` with ``{"status": "ok", "tools": N, "catalog_version": V}``
without the bearer token (a load balancer's probe carries none; it reveals no tool names),
where ``V`` is the catalogue version that workers and callers compare
(`toolrig.distributed._version.catalog_version`), so a front end serving another
catalogue than its peers is seen at a glance. Anything else goes to the app behind it.
"""

from __future__ import annotations

import json
from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

from toolrig.mcp._server import ToolServer
from toolrig.mcp._stateless import route_path

__all__ = ["HEALTH_PATH", "HealthCheck"]

HEALTH_PATH: Final = "/healthz"


class HealthCheck:
    """ASGI middleware answering ``GET``/``HEAD`` at ``path`` for ``server``."""

    def __init__(self, app: ASGIApp, server: ToolServer, *, path: str = HEALTH_PATH) -> None:
        self.app = app
        self.server = server
        self.path = path
        self._cached: tuple[tuple[int, ...], bytes] | None = None

    def body(self) -> bytes:
        """The JSON answer (recomputed only when the catalogue's tools change)."""
        from toolrig.distributed._version import catalog_version

        tools = self.server.catalog.tools()
        key = tuple(id(t) for t in tools)
        if self._cached is None or self._cached[0] != key:
            data = {"status": "ok", "tools": len(tools), "catalog_version": catalog_version(tools)}
            self._cached = (key, json.dumps(data).encode())
        return self._cached[1]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or route_path(scope) != self.path:
            await self.app(scope, receive, send)
            return
        if scope["method"] not in ("GET", "HEAD"):
            status, body, headers = 405, b"", [(b"allow", b"GET, HEAD")]
        else:
            status, body, headers = 200, self.body(), [(b"content-type", b"application/json")]
        headers.append((b"content-length", str(len(body)).encode()))
        headers.append((b"cache-control", b"no-store"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )

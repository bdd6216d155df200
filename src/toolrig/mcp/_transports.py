"""Running a `ToolServer`: over stdio, or over streamable HTTP (uvicorn).

HTTP binds to 127.0.0.1 by default. An optional bearer token guards every request; without
one, binding to anything but a loopback address is refused unless ``allow_remote=True``
(a tool server reachable from the network without a token lets anyone run its tools).
Every request's ``Host`` and ``Origin`` are checked against an allow-list derived from the
bind address (``_hosts``), and connections are bounded (``_limits``).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import socket
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

import uvicorn
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from toolrig.mcp._hosts import HostCheck, HostPolicy
from toolrig.mcp._limits import DEFAULT_HEAD_TIMEOUT, DEFAULT_MAX_CONNECTIONS, ServeConfig
from toolrig.mcp._server import ToolServer
from toolrig.runtime._sockets import listening_socket

if TYPE_CHECKING:
    from toolrig.mcp._auth import ResourceAuth

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PATH",
    "BearerTokenMiddleware",
    "UnsafeBindError",
    "check_bind",
    "http_app",
    "listening_socket",
    "serve_http",
    "serve_stdio",
]

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PATH: Final = "/mcp"


class UnsafeBindError(ValueError):
    """Refused to listen on a non-loopback address without a token (and without
    ``allow_remote``)."""


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback IP addresses (``127.0.0.0/8``, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, *, token: str | None, allow_remote: bool, auth: bool = False) -> None:
    """Raise `UnsafeBindError` when ``host`` is reachable from other machines, no token (nor
    OAuth, ``auth``) guards the server and ``allow_remote`` was not given."""
    if token is None and not auth and not allow_remote and not is_loopback(host):
        raise UnsafeBindError(
            f"refusing to serve on {host!r} without a token: anyone who can reach it could run "
            "the tools. Give a token (--token / --token-env), bind to 127.0.0.1, or pass "
            "allow_remote=True (--allow-remote) if the network is trusted."
        )


class BearerTokenMiddleware:
    """ASGI middleware answering 401 to HTTP requests without ``Authorization: Bearer <token>``
    (compared in constant time); lifespan events pass through."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("the bearer token must not be empty")
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = b""
        for key, value in scope.get("headers", ()):
            if key == b"authorization":
                given = value
                break
        if hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {
                    "code": -32001,
                    "message": "Unauthorized: a valid bearer token is required",
                },
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="toolrig"'),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def http_app(
    server: ToolServer,
    *,
    token: str | None = None,
    host: str = DEFAULT_HOST,
    path: str = DEFAULT_PATH,
    stateless: bool = False,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    auth: ResourceAuth | None = None,
) -> ASGIApp:
    """The streamable-HTTP ASGI app of ``server`` at ``path``, behind the bearer-token check
    when ``token`` is given, or serving as an OAuth resource server by ``auth`` (whose
    ``resource`` URL must be set; see ``_resource_server``). Every request's ``Host`` and
    ``Origin`` must fit the bind address ``host`` or be listed in ``allowed_hosts`` /
    ``allowed_origins`` (DNS-rebinding protection, on for every bind address; see ``_hosts``).

    ``stateless``: no sessions, every POST answered with one JSON body, so any of several
    processes or hosts behind one address can answer any request (see ``_stateless``).
    ``GET /healthz`` answers load balancers in both modes (see ``_health``)."""
    from toolrig.mcp._health import HealthCheck
    from toolrig.mcp._stateless import DirectCalls

    if token is not None and auth is not None:
        raise ValueError("give a static token or OAuth settings, not both")

    app: ASGIApp = server.server.streamable_http_app(
        streamable_http_path=path,
        host=host,
        # Host and Origin are checked by HostCheck, for every bind address; the SDK's own check
        # (exact strings, loopback binds only) would disagree with it.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        event_store=None if stateless else server.event_store,  # resumable SSE streams
        retry_interval=server.retry_interval_ms,
        stateless_http=stateless,
        json_response=stateless,
    )
    if stateless:
        security = server.server.session_manager.security_settings
        app = DirectCalls(app, server, path=path, security=security)
    if token is not None:
        app = BearerTokenMiddleware(app, token)
    if auth is not None:
        from toolrig.mcp._resource_server import ResourceServer

        app = ResourceServer(app, server, auth)
    app = HostCheck(app, HostPolicy.for_bind(host, hosts=allowed_hosts, origins=allowed_origins))
    app = HealthCheck(app, server)
    return app


async def serve_stdio(server: ToolServer) -> None:
    """Serve ``server`` over this process's stdin and stdout until the client closes them."""
    async with stdio_server() as (read_stream, write_stream):
        await server.server.run(
            read_stream, write_stream, server.server.create_initialization_options()
        )


async def serve_http(
    server: ToolServer,
    *,
    host: str = DEFAULT_HOST,
    port: int = 8000,
    token: str | None = None,
    allow_remote: bool = False,
    path: str = DEFAULT_PATH,
    log_level: str = "warning",
    on_ready: Callable[[str], Any] | None = None,
    stateless: bool = False,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    head_timeout: float = DEFAULT_HEAD_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    auth: ResourceAuth | None = None,
) -> None:
    """Serve ``server`` over streamable HTTP at ``http://host:port/path`` until cancelled
    (as an OAuth resource server by ``auth``, its resource URL that one unless set).

    ``port=0`` picks a free port; ``on_ready(url)`` is called with the actual URL once the
    socket is bound. A request head must arrive within ``head_timeout`` seconds, and at most
    ``max_connections`` connections stay open (see ``_limits``).
    """
    check_bind(host, token=token, allow_remote=allow_remote, auth=auth is not None)
    sock = listening_socket(host, port)
    try:
        bind_host = host.strip("[]")
        actual = sock.getsockname()[1]
        shown = f"[{bind_host}]" if sock.family == socket.AF_INET6 else bind_host
        url = f"http://{shown}:{actual}{path}"
        app = http_app(
            server,
            token=token,
            host=host,
            path=path,
            stateless=stateless,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
            auth=None if auth is None else auth.at(url),
        )
        config = ServeConfig(
            app,
            head_timeout=head_timeout,
            max_connections=max_connections,
            log_level=log_level,
            lifespan="on",
            access_log=False,
        )
        uv = uvicorn.Server(config)
        if on_ready is not None:
            on_ready(url)
        await uv.serve(sockets=[sock])
    finally:
        sock.close()


def announce(url: str) -> None:
    """Print where the server listens, on stderr (stdout may be a protocol channel)."""
    print(f"toolrig MCP server listening on {url}", file=sys.stderr, flush=True)

"""``serve(catalog, transport=...)``: serve a catalogue over MCP, blocking or async.

How to serve is one frozen `ServeOptions`, shared by `serve` and
`serve_async`; both still take its fields as keywords (`ServeKeywords`), which
build the options or replace fields of given ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypedDict, Unpack

from toolrig.mcp._auth import ResourceAuth
from toolrig.mcp._limits import DEFAULT_HEAD_TIMEOUT, DEFAULT_MAX_CONNECTIONS
from toolrig.mcp._server import ToolServer
from toolrig.mcp._transports import DEFAULT_HOST, DEFAULT_PATH, check_bind, serve_http, serve_stdio
from toolrig.registry._catalog import Catalog
from toolrig.runtime._executor import ToolExecutor

__all__ = ["ServeKeywords", "ServeOptions", "Transport", "serve", "serve_async"]

Transport = Literal["stdio", "http"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ServeOptions:
    """How to serve: over ``transport``, and for HTTP where (``host``, ``port``, ``path``) and
    to whom (``token``, ``allow_remote``; see `serve_http`). The ``token``
    is left out of the repr."""

    transport: Transport = "stdio"
    host: str = DEFAULT_HOST
    """HTTP: the address to bind (loopback by default)."""
    port: int = 8000
    """HTTP: the port to bind (``0``: any free one)."""
    token: str | None = field(default=None, repr=False)
    """HTTP: the bearer token every request must carry."""
    auth: ResourceAuth | None = None
    """HTTP: serve as an OAuth 2.1 resource server (JWT access tokens of an issuer, scopes
    per tool; see `ResourceAuth`), instead of one static ``token``."""
    allow_remote: bool = False
    """HTTP: bind a non-loopback address without a token all the same."""
    path: str = DEFAULT_PATH
    """HTTP: where the MCP endpoint is mounted."""
    name: str = "toolrig"
    """The server name sent to clients (unless serving a ready `ToolServer`)."""
    on_ready: Callable[[str], Any] | None = None
    """HTTP: called with the endpoint's URL once it listens."""
    stateless: bool = False
    """HTTP: no sessions, one JSON answer per POST, so several processes or hosts can serve
    behind one address (no server-to-client messages: progress, logs, change notices)."""
    allowed_hosts: tuple[str, ...] = ()
    """HTTP: ``Host`` names answered besides the bind address and loopback names (``name``
    for any port, or ``name:port``), e.g. the public name a reverse proxy forwards."""
    allowed_origins: tuple[str, ...] = ()
    """HTTP: browser origins allowed to call besides loopback ones (``https://app.example``)."""
    head_timeout: float = DEFAULT_HEAD_TIMEOUT
    """HTTP: seconds a request head may take to arrive before the connection is closed."""
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    """HTTP: open connections at most (past it, the oldest idle one is closed); lowered to
    fit the process's descriptor limit."""

    def __post_init__(self) -> None:
        if self.transport not in ("stdio", "http"):
            raise ValueError(f"unknown transport {self.transport!r}; use 'stdio' or 'http'")
        if self.stateless and self.transport != "http":
            raise ValueError("stateless serving is an HTTP mode: use transport='http'")
        if self.head_timeout <= 0:
            raise ValueError(f"head_timeout must be positive seconds, got {self.head_timeout!r}")
        if self.max_connections < 1:
            raise ValueError(f"max_connections must be at least 1, got {self.max_connections!r}")
        if self.auth is not None and (self.token is not None or self.transport != "http"):
            raise ValueError("OAuth (auth=) is an HTTP mode, and replaces a static token")


class ServeKeywords(TypedDict, total=False):
    """The fields of `ServeOptions` as keywords, to type ``**keywords`` of the
    functions that take them (defaults and meanings: see `ServeOptions`)."""

    transport: Transport
    host: str
    port: int
    token: str | None
    auth: ResourceAuth | None
    allow_remote: bool
    path: str
    name: str
    on_ready: Callable[[str], Any] | None
    stateless: bool
    allowed_hosts: tuple[str, ...]
    allowed_origins: tuple[str, ...]
    head_timeout: float
    max_connections: int


async def serve_async(
    source: Catalog | ToolExecutor | ToolServer,
    *,
    options: ServeOptions | None = None,
    **keywords: Unpack[ServeKeywords],
) -> None:
    """Serve the tools of ``source`` (a catalogue such as a ``Registry``, an executor, or a ready
    `ToolServer`) until the client leaves (stdio) or the task is cancelled (HTTP).

    How: ``options``, its fields as keywords, or both (the keywords replace those fields).
    """
    how = ServeOptions(**keywords) if options is None else replace(options, **keywords)
    if how.transport == "http":
        guarded = how.auth is not None
        check_bind(how.host, token=how.token, allow_remote=how.allow_remote, auth=guarded)
    server = source if isinstance(source, ToolServer) else ToolServer(source, name=how.name)
    try:
        if how.transport == "stdio":
            await serve_stdio(server)
        else:
            await serve_http(
                server,
                host=how.host,
                port=how.port,
                token=how.token,
                allow_remote=how.allow_remote,
                path=how.path,
                on_ready=how.on_ready,
                stateless=how.stateless,
                allowed_hosts=how.allowed_hosts,
                allowed_origins=how.allowed_origins,
                head_timeout=how.head_timeout,
                max_connections=how.max_connections,
                auth=how.auth,
            )
    finally:
        if server is not source:
            server.close()


def serve(
    source: Catalog | ToolExecutor | ToolServer,
    *,
    options: ServeOptions | None = None,
    **keywords: Unpack[ServeKeywords],
) -> None:
    """Blocking `serve_async` (runs its own event loop)."""
    asyncio.run(serve_async(source, options=options, **keywords))

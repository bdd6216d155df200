"""``serve(catalog, transport=...)``: serve a catalogue over MCP, blocking or async."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Literal

from toolrig.mcp._server import ToolServer
from toolrig.mcp._transports import DEFAULT_HOST, DEFAULT_PATH, check_bind, serve_http, serve_stdio
from toolrig.registry._catalog import Catalog
from toolrig.runtime._executor import ToolExecutor

__all__ = ["Transport", "serve", "serve_async"]

Transport = Literal["stdio", "http"]


async def serve_async(
    source: Catalog | ToolExecutor | ToolServer,
    *,
    transport: Transport = "stdio",
    host: str = DEFAULT_HOST,
    port: int = 8000,
    token: str | None = None,
    allow_remote: bool = False,
    path: str = DEFAULT_PATH,
    name: str = "toolrig",
    on_ready: Callable[[str], Any] | None = None,
) -> None:
    """Serve the tools of ``source`` (a catalogue such as a ``Registry``, an executor, or a ready
    :class:`ToolServer`) over ``transport`` until the client leaves (stdio) or the task is
    cancelled (HTTP). HTTP options: see :func:`~toolrig.mcp.serve_http`."""
    if transport not in ("stdio", "http"):
        raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'http'")
    if transport == "http":
        check_bind(host, token=token, allow_remote=allow_remote)  # before anything starts
    server = source if isinstance(source, ToolServer) else ToolServer(source, name=name)
    try:
        if transport == "stdio":
            await serve_stdio(server)
        else:
            await serve_http(
                server,
                host=host,
                port=port,
                token=token,
                allow_remote=allow_remote,
                path=path,
                on_ready=on_ready,
            )
    finally:
        if server is not source:
            server.close()


def serve(
    source: Catalog | ToolExecutor | ToolServer,
    *,
    transport: Transport = "stdio",
    host: str = DEFAULT_HOST,
    port: int = 8000,
    token: str | None = None,
    allow_remote: bool = False,
    path: str = DEFAULT_PATH,
    name: str = "toolrig",
    on_ready: Callable[[str], Any] | None = None,
) -> None:
    """Blocking :func:`serve_async` (runs its own event loop)."""
    asyncio.run(
        serve_async(
            source,
            transport=transport,
            host=host,
            port=port,
            token=token,
            allow_remote=allow_remote,
            path=path,
            name=name,
            on_ready=on_ready,
        )
    )

"""A local forward proxy that applies a :class:`~toolrig.tools.NetPolicy` to a browser.

The browser is launched with this proxy for every request (loopback included), so each
connection it makes (page loads, redirects, images, scripts, websockets) is checked here after
DNS resolution and goes to the very address that was checked. A refused plain-HTTP request
gets a ``403`` carrying the header ``X-Toolrig-Blocked``; a refused tunnel (HTTPS) is closed
with a ``403``, which the browser reports as a failed connection.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final
from urllib.parse import urlsplit

from toolrig.core.model._errors import ToolError
from toolrig.tools._netguard import NetPolicy, resolve_checked

__all__ = ["BLOCKED_HEADER", "GuardProxy"]

BLOCKED_HEADER: Final = "X-Toolrig-Blocked"
_HEAD_LIMIT: Final = 64 * 1024
_HOP_HEADERS: Final = frozenset(
    {"proxy-connection", "proxy-authorization", "connection", "keep-alive"}
)


class GuardProxy:
    """Serve on ``127.0.0.1`` (a free port) in the running event loop; :meth:`close` stops it."""

    def __init__(self, policy: NetPolicy) -> None:
        self.policy = policy
        self.blocked: list[str] = []
        """URLs or ``host:port`` refused so far (newest last)."""
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> str:
        """Start serving; returns the proxy URL for the browser."""
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > _HEAD_LIMIT:
            return
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        method, target, version = request_line.split(" ", 2)
        if method.upper() == "CONNECT":
            host, _, port = target.rpartition(":")
            url = f"https://{host}:{port}/"
        else:
            url = target
            parts = urlsplit(target)
            host, port = parts.hostname or "", str(parts.port or 80)
        try:
            address = await resolve_checked(url, self.policy)
        except ToolError as exc:
            self.blocked.append(url)
            await _refuse(writer, exc.message)
            return
        upstream_reader, upstream_writer = await asyncio.open_connection(str(address), int(port))
        if method.upper() == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        else:
            parts = urlsplit(target)
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            kept = [h for h in header_lines if h and h.split(":", 1)[0].lower() not in _HOP_HEADERS]
            upstream_writer.write(
                "\r\n".join(
                    [f"{method} {path} {version}", *kept, "Connection: close", "", ""]
                ).encode("latin-1")
            )
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))


async def _refuse(writer: asyncio.StreamWriter, message: str) -> None:
    body = f"Blocked by the network policy: {message}\n".encode()
    head = (
        "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"{BLOCKED_HEADER}: 1\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    writer.write(head.encode() + body)
    with contextlib.suppress(ConnectionError):
        await writer.drain()


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    except ConnectionError:
        pass
    finally:
        with contextlib.suppress(Exception):
            sink.close()

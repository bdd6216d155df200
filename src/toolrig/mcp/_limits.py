"""Connection limits of the HTTP server: unfinished request heads time out, connections are
capped.

uvicorn never times out a request head that is still arriving, so a client that opens
connections and sends a few header bytes on each holds them for ever; about 1,100 of them
exhausted a server (its descriptors, then its accept loop) and honest clients got no answer.
:class:`BoundedH11Protocol` is uvicorn's h11 protocol (and ``BoundedHttpToolsProtocol`` its
httptools one, picked when httptools is installed, as uvicorn would) with two limits enforced
while the connection lives:

- a head must arrive whole within ``head_timeout`` seconds of the connection (or, on a
  keep-alive connection, of its first byte), or the connection is closed;
- at most ``max_connections`` connections are open: a new one past the cap closes the oldest
  connection that is still waiting for its head (or idle between requests), so a flood of
  unfinished heads can never lock honest clients out; when every connection is busy with a
  request, the new one is closed instead.

Both are read from :class:`ServeConfig` (a ``uvicorn.Config`` with the two fields), which
pickles, so ``--workers`` processes get them too.
"""

from __future__ import annotations

import asyncio
import resource
import time
from typing import Any, Final

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

__all__ = [
    "DEFAULT_HEAD_TIMEOUT",
    "DEFAULT_MAX_CONNECTIONS",
    "BoundedH11Protocol",
    "ServeConfig",
    "accept_burst",
    "bounded_protocol",
    "connection_cap",
]

DEFAULT_HEAD_TIMEOUT: Final = 10.0
"""Seconds a request head may take to arrive (nginx allows 60; an MCP client sends its head
in one write)."""
DEFAULT_MAX_CONNECTIONS: Final = 1000
_RESERVED_FDS: Final = 64
"""Descriptors kept for what a call opens (files, sockets, the log) when the cap is derived
from the process's descriptor limit."""
_MAX_BURST: Final = 128


def accept_burst() -> int:
    """Connections asyncio accepts in one turn of the event loop (uvicorn's ``backlog``, also
    the kernel's queue of connections not yet accepted)."""
    return max(8, min(_MAX_BURST, _soft_fd_limit() // 8))


def connection_cap(wanted: int) -> int:
    """``wanted``, lowered so open connections can never use up the process's descriptors.

    asyncio accepts a burst of connections before any of them is seen (and the oldest idle
    one closed), and a closed one frees its descriptor a turn or two later: room is kept for
    four bursts and for the tools' own files. Past the limit, asyncio's accept loop fails
    with ``EMFILE`` and honest clients wait in the kernel's queue."""
    soft = _soft_fd_limit()
    return max(1, min(wanted, soft - _RESERVED_FDS - 4 * accept_burst()))


def _soft_fd_limit() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1 << 20 if soft == resource.RLIM_INFINITY else soft


class ServeConfig(uvicorn.Config):
    """``uvicorn.Config`` with the head timeout and the connection cap, served by
    :class:`BoundedH11Protocol`."""

    def __init__(
        self,
        app: Any,
        *,
        head_timeout: float = DEFAULT_HEAD_TIMEOUT,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        **kwargs: Any,
    ) -> None:
        if head_timeout <= 0:
            raise ValueError(f"head_timeout must be positive, got {head_timeout!r}")
        if max_connections < 1:
            raise ValueError(f"max_connections must be at least 1, got {max_connections!r}")
        super().__init__(app, http=bounded_protocol(), backlog=accept_burst(), **kwargs)
        self.head_timeout = head_timeout
        self.max_connections = connection_cap(max_connections)


class _HeadBound(asyncio.Protocol):
    """The head deadline and the connection cap, over a uvicorn HTTP protocol (h11 or
    httptools: both create their request cycle once a head is complete)."""

    cycle: Any
    transport: asyncio.Transport
    connections: Any
    loop: asyncio.AbstractEventLoop

    def _setup_bounds(self, config: uvicorn.Config) -> None:
        self.head_timeout: float = getattr(config, "head_timeout", DEFAULT_HEAD_TIMEOUT)
        self.max_connections: int = getattr(config, "max_connections", DEFAULT_MAX_CONNECTIONS)
        self._head_timer: asyncio.TimerHandle | None = None
        self._refused = False
        self.opened_at = time.monotonic()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._make_room()
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.waiting_for_head():
            if self._head_timer is None:  # keep-alive: the next head's clock starts now
                self._arm_head_timer()
        else:
            self._disarm_head_timer()

    def waiting_for_head(self) -> bool:
        """Open, and no request in progress: the head has not arrived (or the connection is
        idle between requests)."""
        return (
            (self.cycle is None or self.cycle.response_complete)
            and self.transport is not None
            and not self.transport.is_closing()
        )

    def _make_room(self) -> None:
        """Close the oldest connection waiting for its head when the cap is reached (this
        one, not yet counted, would pass it); close this one if all are busy."""
        if len(self.connections) < self.max_connections:
            return
        waiting = [
            c
            for c in self.connections
            if isinstance(c, _HeadBound) and c is not self and c.waiting_for_head()
        ]
        if waiting:
            min(waiting, key=lambda c: c.opened_at).drop()
        else:
            self._refused = True

    def _arm_head_timer(self) -> None:
        if self._refused:
            self.drop()
            return
        self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.waiting_for_head():
            self.drop()

    def drop(self) -> None:
        """Close the connection now (it holds no request: nothing to answer)."""
        self._disarm_head_timer()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()


class BoundedH11Protocol(_HeadBound, H11Protocol):
    """uvicorn's h11 protocol with a head deadline and a connection cap (module docstring)."""

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        H11Protocol.__init__(self, config, server_state, app_state, _loop)
        self._setup_bounds(config)


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools is optional: uvicorn then speaks h11
    _HTTPTOOLS: type[asyncio.Protocol] | None = None
else:

    class BoundedHttpToolsProtocol(_HeadBound, HttpToolsProtocol):
        """uvicorn's httptools protocol with the same bounds (module level: ``--workers``
        pickles it)."""

        def __init__(
            self,
            config: uvicorn.Config,
            server_state: ServerState,
            app_state: dict[str, Any],
            _loop: asyncio.AbstractEventLoop | None = None,
        ) -> None:
            HttpToolsProtocol.__init__(self, config, server_state, app_state, _loop)
            self._setup_bounds(config)

    _HTTPTOOLS = BoundedHttpToolsProtocol


def bounded_protocol() -> type[asyncio.Protocol]:
    """The bounded protocol uvicorn would pick itself: httptools when installed (faster), else
    h11."""
    return _HTTPTOOLS or BoundedH11Protocol

"""The listening socket the HTTP servers share (MCP's ``toolrig serve``, its ``--workers``
processes and the console): bound before the server starts, so a taken port is one clear
error and ``--port 0`` names the port it got."""

from __future__ import annotations

import socket

__all__ = ["listening_socket"]


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (``[::1]`` style IPv6 hosts too) and listening;
    ``OSError`` when the address cannot be taken."""
    bind_host = host.strip("[]")
    family = socket.AF_INET6 if ":" in bind_host else socket.AF_INET
    # IPPROTO_TCP named: asyncio turns Nagle off (TCP_NODELAY) only on sockets whose protocol
    # says TCP; with 0, a keep-alive client waited ~40 ms per answer (delayed ACK).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bind_host, port))
        sock.listen(2048)  # connections made before the server starts wait in the backlog
    except BaseException:
        sock.close()
        raise
    return sock

"""Which ``Host`` and ``Origin`` headers an HTTP MCP server answers (DNS-rebinding protection).

A web page can make a browser send requests to a server on the user's machine by pointing a
name it controls at 127.0.0.1 ("DNS rebinding"); the request then carries that name in
``Host`` and the page's address in ``Origin``. The MCP specification requires servers to
validate ``Origin``. The rule here is an allow-list derived from the bind address, for every
bind address, never a list of bad names:

- a loopback bind (any 127/8 address, ``::1``, ``localhost`` in any case) answers every
  loopback spelling: ``localhost``, any 127/8 address, ``[::1]`` (with any port);
- a wildcard bind (``0.0.0.0``, ``::``) answers those and any IP address written as such
  (a rebinding attack needs a name, so an IP literal is never one);
- any other bind answers its own address (or name);
- ``allowed_hosts`` and ``allowed_origins`` add names, e.g. a reverse proxy's public name.

``Origin`` is optional (clients that are not browsers send none); when present it must be an
``http``/``https`` origin whose host passes the same rule (IP literals other than the bind
address count only when listed), or be listed in ``allowed_origins``.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["HostCheck", "HostPolicy"]

_WILDCARDS: Final = frozenset({"", "0.0.0.0", "::"})
_SEEN_MAX: Final = 256


def _split_host(value: str) -> tuple[str, str | None] | None:
    """``(host, port)`` of a ``Host`` value (lower-cased, brackets kept off IPv6), or ``None``
    when it is not one: empty, a bad port, stray brackets, spaces or ``@``."""
    value = value.lower()
    if not value or any(c in value for c in " \t@/\\?#"):
        return None
    port: str | None = None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[1:end], value[end + 1 :]
        if rest:
            if not rest.startswith(":"):
                return None
            port = rest[1:]
        if _ip(host) is None or ":" not in host:
            return None  # only IPv6 addresses go in brackets
    else:
        host, colon, port_text = value.partition(":")
        if colon:
            port = port_text
        if "[" in host or "]" in host:
            return None
    if port is not None and not (port.isdigit() and 0 < int(port) < 65536 and len(port) <= 5):
        return None
    return host, port


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _is_loopback_name(host: str) -> bool:
    """``localhost`` (one trailing dot allowed) or a loopback IP address."""
    if host.removesuffix(".") == "localhost":
        return True
    address = _ip(host)
    return address is not None and address.is_loopback


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """The ``Host`` and ``Origin`` values a server bound to ``bind`` answers."""

    bind: str
    allowed_hosts: frozenset[str] = frozenset()
    """Extra host names (lower case), each either ``name`` (any port) or ``name:port``."""
    allowed_origins: frozenset[str] = frozenset()
    """Extra origins (lower case, no trailing slash), e.g. ``https://mcp.example.com``."""

    @classmethod
    def for_bind(
        cls, bind: str, *, hosts: Iterable[str] = (), origins: Iterable[str] = ()
    ) -> HostPolicy:
        """The policy of a server bound to ``bind``, plus the configured names."""
        return cls(
            bind=bind.strip("[]").lower(),
            allowed_hosts=frozenset(h.strip().lower() for h in hosts if h.strip()),
            allowed_origins=frozenset(o.strip().lower().rstrip("/") for o in origins if o.strip()),
        )

    def _bind_kind(self) -> str:
        if self.bind in _WILDCARDS:
            return "wildcard"
        return "loopback" if _is_loopback_name(self.bind) else "other"

    def _own(self, host: str, *, any_ip: bool) -> bool:
        kind = self._bind_kind()
        if kind in ("loopback", "wildcard") and _is_loopback_name(host):
            return True
        if kind == "wildcard" and any_ip and _ip(host) is not None:
            return True
        own = _ip(self.bind)
        given = _ip(host)
        if own is not None and given is not None:
            return own == given
        return host.removesuffix(".") == self.bind.removesuffix(".")

    def _listed(self, host: str, port: str | None) -> bool:
        return host in self.allowed_hosts or (
            port is not None and f"{host}:{port}" in self.allowed_hosts
        )

    def host_ok(self, value: str | None) -> bool:
        """Whether a ``Host`` header value is one this server answers."""
        parts = _split_host(value or "")
        if parts is None:
            return False
        host, port = parts
        return self._own(host, any_ip=True) or self._listed(host, port)

    def origin_ok(self, value: str | None) -> bool:
        """Whether an ``Origin`` header value (``None``: absent) may call this server."""
        if value is None:
            return True
        origin = value.strip().lower().rstrip("/")
        if origin in self.allowed_origins:
            return True
        scheme, sep, rest = origin.partition("://")
        if not sep or scheme not in ("http", "https"):
            return False  # "null", file:, chrome-extension:, ...: only when listed
        parts = _split_host(rest)
        if parts is None:
            return False
        host, port = parts
        return self._own(host, any_ip=False) or self._listed(host, port)


def _refusal(status: int, message: str) -> tuple[dict[str, object], bytes]:
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    ).encode()
    start = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
    }
    return start, body


class HostCheck:
    """ASGI middleware answering 421 to a foreign ``Host`` and 403 to a foreign ``Origin``
    (the statuses the MCP SDK uses), before anything else sees the request."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy
        self._seen: dict[tuple[str, str | None], bool] = {}
        """Answers already decided (clients repeat one Host and Origin: about 10 µs saved per
        request); emptied past :data:`_SEEN_MAX` entries, so varied headers cannot grow it."""

    def _allowed(self, host: str, origin: str | None) -> bool:
        key = (host, origin)
        known = self._seen.get(key)
        if known is None:
            if len(self._seen) >= _SEEN_MAX:
                self._seen.clear()
            known = self.policy.host_ok(host) and self.policy.origin_ok(origin)
            self._seen[key] = known
        return known

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        hosts: list[str] = []
        origins: list[str] = []
        for key, value in scope.get("headers", ()):
            if key == b"host":
                hosts.append(value.decode("latin-1"))
            elif key == b"origin":
                origins.append(value.decode("latin-1"))
        if (
            len(hosts) == 1
            and len(origins) <= 1
            and self._allowed(hosts[0], origins[0] if origins else None)
        ):
            await self.app(scope, receive, send)
            return
        if len(hosts) != 1 or not self.policy.host_ok(hosts[0]):
            shown = hosts[0] if len(hosts) == 1 else f"{len(hosts)} Host headers"
            message = (
                f"Invalid Host header {shown!r}: this server answers its bind address and "
                "loopback names; add the name with --allowed-host (allowed_hosts) to serve it"
            )
            await self._refuse(send, 421, message)
            return
        if len(origins) > 1 or not self.policy.origin_ok(origins[0] if origins else None):
            shown = origins[0] if len(origins) == 1 else f"{len(origins)} Origin headers"
            message = (
                f"Invalid Origin header {shown!r}: add the origin with --allowed-origin "
                "(allowed_origins) if pages from it may call this server"
            )
            await self._refuse(send, 403, message)
            return
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(send: Send, status: int, message: str) -> None:
        start, body = _refusal(status, message)
        await send(start)
        await send({"type": "http.response.body", "body": body})

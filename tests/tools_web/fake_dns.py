"""A resolver stand-in for the address-policy tests: host names answer from a table the test
fills, never from the machine's DNS or hosts file (which differ between machines: ``localhost``
is 127.0.0.1 alone on some and 127.0.0.1 plus ::1 on others).

It replaces ``socket.getaddrinfo``, the function the policy's resolution ends in (through the
event loop's ``getaddrinfo``). Numeric addresses, in every spelling the system's resolver
accepts (``127.1``, ``2130706433``), go to the real function with ``AI_NUMERICHOST``, which
looks nothing up; a name missing from the table does not resolve.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence
from typing import Any

import pytest

_REAL_GETADDRINFO = socket.getaddrinfo


class FakeDns:
    """``names[host]`` is the list of addresses ``host`` resolves to, in that order."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.names: dict[str, list[str]] = {}
        self.asked: list[str] = []
        self.ports: list[int] = []
        """The port of each name looked up (numeric addresses are not recorded)."""
        monkeypatch.setattr(socket, "getaddrinfo", self._getaddrinfo)

    def add(self, host: str, addresses: Sequence[str]) -> None:
        self.names[host.lower()] = list(addresses)

    def _getaddrinfo(
        self,
        host: Any,
        port: Any,
        family: int = 0,
        type: int = 0,
        proto: int = 0,
        flags: int = 0,
    ) -> list[tuple[Any, ...]]:
        text = host.decode() if isinstance(host, bytes) else str(host)
        try:  # a numeric address in any spelling the system accepts (127.1, 2130706433, ...)
            return _REAL_GETADDRINFO(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)
        except socket.gaierror:
            pass
        self.asked.append(text)
        addresses = self.names.get(text.lower().rstrip("."))
        if not addresses:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        number = int(port) if port not in (None, "") else 0
        self.ports.append(number)
        out: list[tuple[Any, ...]] = []
        for text_address in addresses:
            address = ipaddress.ip_address(text_address)
            kind = socket.AF_INET6 if address.version == 6 else socket.AF_INET
            if family not in (0, socket.AF_UNSPEC, kind):
                continue
            where: tuple[Any, ...] = (
                (str(address), number, 0, 0) if address.version == 6 else (str(address), number)
            )
            out.append((kind, type or socket.SOCK_STREAM, proto or socket.IPPROTO_TCP, "", where))
        if not out:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return out

"""The IPv4 addresses an IPv6 address carries, so that an address policy judges what it reaches.

``::ffff:127.0.0.1`` is only the obvious spelling of 127.0.0.1 in IPv6. The others, each of
which a host, a NAT64 gateway or a tunnel may turn into traffic to the IPv4 address inside:

* IPv4-mapped ``::ffff:0:0/96`` and IPv4-translated ``::ffff:0:0:0/96`` (SIIT): the same host;
* IPv4-compatible ``::/96`` (deprecated, still routed by some stacks): the same host;
* NAT64, well-known prefix ``64:ff9b::/96`` (RFC 6052): the IPv4 address in the last 32 bits;
* NAT64, local-use prefix ``64:ff9b:1::/48`` (RFC 8215): where the IPv4 address sits depends on
  the operator's prefix length, so it cannot be read off the address;
* 6to4 ``2002::/16``: the IPv4 address in bits 16-48 (``ipaddress``' ``sixtofour``);
* Teredo ``2001::/32``: the server and the (obfuscated) client address (``teredo``);
* ISATAP: any prefix with the interface identifier ``0:5efe:w.x.y.z`` or ``200:5efe:w.x.y.z``.

Python's ``is_global`` calls several of these global, whatever they carry.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["Embedding", "embedding"]

Form = Literal[
    "IPv4-mapped",
    "IPv4-translated",
    "IPv4-compatible",
    "NAT64",
    "local-use NAT64",
    "6to4",
    "Teredo",
    "ISATAP",
]

_TRANSLATED: Final = ipaddress.IPv6Network("::ffff:0:0:0/96")
_COMPATIBLE: Final = ipaddress.IPv6Network("::/96")
_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL: Final = ipaddress.IPv6Network("64:ff9b:1::/48")
_ISATAP_IDS: Final = frozenset({0x00005EFE, 0x02005EFE})
_LOW32: Final = 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class Embedding:
    """An IPv4-carrying form of an IPv6 address."""

    form: Form
    inner: tuple[ipaddress.IPv4Address, ...]
    """The IPv4 addresses it reaches (empty when they cannot be read off the address)."""
    spelling: bool
    """True when the IPv6 address is only another way to write the IPv4 host (mapped,
    translated, compatible): the IPv4 address alone decides. Otherwise the IPv6 address is
    reached too (a gateway, a relay), and both must be allowed."""


def _v4(value: int) -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address(value & _LOW32)


def embedding(address: ipaddress.IPv6Address) -> Embedding | None:
    """The IPv4 form ``address`` has, or ``None`` for a plain IPv6 address."""
    value = int(address)
    if address.ipv4_mapped is not None:
        return Embedding("IPv4-mapped", (address.ipv4_mapped,), True)
    if address in _TRANSLATED:
        return Embedding("IPv4-translated", (_v4(value),), True)
    if address in _COMPATIBLE and value > 1:  # :: and ::1 are themselves
        return Embedding("IPv4-compatible", (_v4(value),), True)
    if address in _NAT64:
        return Embedding("NAT64", (_v4(value),), False)
    if address in _NAT64_LOCAL:
        return Embedding("local-use NAT64", (), False)
    if address.sixtofour is not None:
        return Embedding("6to4", (address.sixtofour,), False)
    if address.teredo is not None:
        return Embedding("Teredo", address.teredo, False)
    if (value >> 32) & _LOW32 in _ISATAP_IDS:
        return Embedding("ISATAP", (_v4(value),), False)
    return None

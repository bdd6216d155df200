"""Guarding outbound HTTP against server-side request forgery (SSRF).

A URL a model gives may point at the machine itself, the local network or a cloud metadata
service. :class:`NetPolicy` says which addresses may be reached; :func:`resolve_checked` resolves
a host name and refuses it when any of its addresses is forbidden; :func:`guarded_stream` sends a
request and follows redirects by hand, checking every hop *after* DNS resolution and connecting
to the very address that was checked (the host name is kept for the ``Host`` header and TLS), so
a name that resolves differently a moment later (DNS rebinding) cannot slip through.

Forbidden unless allowed: every address that is not globally routable (private, loopback,
link-local, shared, reserved, unspecified), multicast, and the cloud metadata addresses. The
metadata addresses stay forbidden even with ``allow_private``; only an explicit ``allow`` entry
opens them. An IPv6 address that carries an IPv4 address (mapped, compatible, NAT64, 6to4,
Teredo, ISATAP: see ``_ip_embedding``) is judged by the IPv4 address too, so ``::7f00:1`` or
``64:ff9b::a9fe:a9fe`` is refused like 127.0.0.1 or 169.254.169.254.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urljoin

import httpx

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._ip_embedding import embedding

__all__ = [
    "METADATA_ADDRESSES",
    "GuardedResponse",
    "NetPolicy",
    "guarded_stream",
    "resolve_checked",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

METADATA_ADDRESSES: Final[frozenset[IPAddress]] = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean, ...
        "169.254.170.2",  # AWS ECS task metadata
        "169.254.169.123",  # AWS time sync
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud
        "fd00:ec2::254",  # AWS IPv6
    )
)
_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})
_DENIED_HINT: Final = (
    "Only public internet addresses can be fetched. Use a public URL; the operator can allow "
    "other addresses in the tool's network policy."
)


def _parse_networks(entries: Sequence[str]) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(e, strict=False) for e in entries)


@dataclass(frozen=True, slots=True, kw_only=True)
class NetPolicy:
    """Which network addresses outbound requests may reach.

    ``allow``: addresses or networks (``"127.0.0.1"``, ``"10.0.0.0/8"``) reachable even though
    they are not public, metadata addresses included. ``allow_private``: every non-public
    address except the metadata ones. ``schemes``: URL schemes accepted.
    """

    allow: tuple[str, ...] = ()
    allow_private: bool = False
    schemes: tuple[str, ...] = ("http", "https")
    _networks: tuple[IPNetwork, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_networks", _parse_networks(self.allow))

    def permits(self, address: IPAddress) -> bool:
        """Whether ``address`` may be connected to."""
        if any(address in net for net in self._networks):
            return True
        if isinstance(address, ipaddress.IPv6Address):
            form = embedding(address)
            if form is not None:
                if not form.inner:  # the IPv4 address cannot be located: refuse
                    return False
                inner = all(self.permits(v4) for v4 in form.inner)
                return inner if form.spelling else inner and self._permits_plain(address)
        return self._permits_plain(address)

    def _permits_plain(self, address: IPAddress) -> bool:
        if address in METADATA_ADDRESSES or address.is_multicast or address.is_unspecified:
            return False
        # Deprecated site-local IPv6 (fec0::/10) is routed within a site: private, whatever
        # ``is_global`` says.
        site_local = isinstance(address, ipaddress.IPv6Address) and address.is_site_local
        return self.allow_private or (address.is_global and not site_local)

    def reason(self, address: IPAddress) -> str:
        """Why ``address`` is refused, in a few words."""
        if isinstance(address, ipaddress.IPv6Address) and not any(
            address in net for net in self._networks
        ):
            form = embedding(address)
            if form is not None:
                if not form.inner:
                    return f"a {form.form} address, whose IPv4 address cannot be checked"
                for v4 in form.inner:
                    if not self.permits(v4):
                        return f"a {form.form} form of {v4}, {self.reason(v4)}"
        if address in METADATA_ADDRESSES:
            return "a cloud metadata address"
        for test, words in (
            ("is_loopback", "a loopback address"),
            ("is_link_local", "a link-local address"),
            ("is_site_local", "a site-local address"),
            ("is_multicast", "a multicast address"),
            ("is_unspecified", "the unspecified address"),
            ("is_private", "a private network address"),
        ):
            if getattr(address, test, False):
                return words
        return "not a public internet address"


def _denied(url: str, host: str, address: IPAddress, policy: NetPolicy) -> ToolError:
    shown = host if host == str(address) else f"{host} ({address})"
    return ToolError(
        f"Refused to connect to {shown} for {url}: it is {policy.reason(address)}.",
        code=ErrorCode.PERMISSION_DENIED,
        hint=_DENIED_HINT,
        details={"url": url, "address": str(address)},
    )


async def resolve_checked(url: str, policy: NetPolicy) -> IPAddress:
    """The address to connect to for ``url``, after checking scheme and every resolved address.

    Raises a ``permission_denied`` :class:`ToolError` when any address is forbidden (a name that
    resolves to one public and one private address is refused), ``invalid_arguments`` for a URL
    that cannot be fetched, ``not_found`` when the name does not resolve.
    """
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ToolError(
            f"{url!r} is not a valid URL: {exc}", code=ErrorCode.INVALID_ARGUMENTS
        ) from None
    if parsed.scheme not in policy.schemes:
        raise ToolError(
            f"URL scheme {parsed.scheme!r} is not allowed (use {' or '.join(policy.schemes)}).",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Give a full URL such as https://example.com/page.",
        )
    host = parsed.host
    if not host:
        raise ToolError(f"URL {url!r} has no host.", code=ErrorCode.INVALID_ARGUMENTS)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        addresses = await _resolve(host, port, url)
    for address in addresses:
        if not policy.permits(address):
            raise _denied(url, host, address, policy)
    return addresses[0]


async def _resolve(host: str, port: int, url: str) -> list[IPAddress]:
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ToolError(
            f"The host {host!r} of {url} could not be resolved: {exc}.",
            code=ErrorCode.NOT_FOUND,
            hint="Check the spelling of the address.",
        ) from None
    out: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if address not in out:
            out.append(address)
    if not out:
        raise ToolError(f"The host {host!r} has no address.", code=ErrorCode.NOT_FOUND)
    return out


def _pinned(url: httpx.URL, address: IPAddress) -> tuple[httpx.URL, dict[str, str], dict[str, str]]:
    """The URL rewritten to connect to ``address``, with the Host header and TLS name kept."""
    host_header = url.host if url.port is None else f"{url.host}:{url.port}"
    if url.host.strip("[]") == str(address):
        return url, {}, {}
    extensions = {"sni_hostname": url.host} if url.scheme == "https" else {}
    return url.copy_with(host=str(address)), {"Host": host_header}, extensions


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardedResponse:
    """A response reached through :func:`guarded_stream`; read its body with ``aiter_bytes``."""

    response: httpx.Response
    url: str
    """The final URL (after redirects), with its host name, not the pinned address."""
    redirects: int


@asynccontextmanager
async def guarded_stream(
    client: httpx.AsyncClient,
    url: str,
    policy: NetPolicy,
    *,
    max_redirects: int = 5,
    headers: Mapping[str, str] | None = None,
    method: str = "GET",
    content: bytes | None = None,
) -> AsyncIterator[GuardedResponse]:
    """Send ``method`` (GET by default) to ``url`` as a stream, following up to
    ``max_redirects`` redirects, each hop checked (``max_redirects=0`` answers a redirect with
    an error; use it for requests with a body, which a redirect must not silently resend).

    ``client`` must not follow redirects itself and should ignore proxy settings of the
    environment (``follow_redirects=False, trust_env=False``).
    """
    current = url
    for hop in range(max_redirects + 1):
        address = await resolve_checked(current, policy)
        target, extra, extensions = _pinned(httpx.URL(current), address)
        request = client.build_request(
            method,
            target,
            headers={**(headers or {}), **extra},
            extensions=extensions,
            content=content,
        )
        response = await client.send(request, stream=True)
        location = response.headers.get("location")
        if response.status_code in _REDIRECTS and location:
            await response.aclose()
            if hop == max_redirects:
                raise ToolError(
                    f"{url} redirected more than {max_redirects} times.",
                    code=ErrorCode.EXECUTION_ERROR,
                    details={"last_url": current},
                )
            current = urljoin(current, location)
            continue
        try:
            yield GuardedResponse(response=response, url=current, redirects=hop)
        finally:
            await response.aclose()
        return

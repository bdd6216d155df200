"""Boundaries of the address policy's promise (``NetPolicy``, ``resolve_checked``): only
public addresses are reached unless the operator allows more, each cell a test below.

| boundary      | cell                                                                      |
|---------------|---------------------------------------------------------------------------|
| every entry   | each of the six metadata addresses: refused by default and with           |
|               | ``allow_private``, opened by an explicit ``allow`` entry                  |
| every entry   | multicast and unspecified: refused even with ``allow_private``            |
| every entry   | site-local IPv6: private by default, reachable with ``allow_private``     |
| every entry   | each refusal reason has its own words (loopback, link-local, ...)         |
| scope         | an ``allow`` network opens its addresses and nothing beside them          |
| scope         | an embedding whose IPv4 cannot be located: refused, even ``allow_private``|
| scope         | a tunnel address carrying a public IPv4 under a private prefix: refused   |
| entry points  | a bare address, a name (resolved), every scheme of ``schemes``           |
| failure path  | invalid URL, other scheme, no host, unknown name: each its own code      |
| absent values | no port: the scheme's default port is the one resolved                    |
| absent values | a resolver answering no address: ``not_found``                            |
| every form    | a resolved IPv6 address with a zone (``fe80::1%eth0``) is judged without it |
| pinning       | a name is pinned to its address with ``Host`` (and the TLS name for https)|
| property      | any IPv4 address and its mapped IPv6 spelling get the same answer         |
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from typing import Any

import httpx
import pytest
from fake_dns import FakeDns
from hypothesis import given
from hypothesis import strategies as st

from toolrig import ToolError
from toolrig.tools import NetPolicy
from toolrig.tools._netguard import _pinned, resolve_checked

# Written out, not read from METADATA_ADDRESSES: dropping an entry there must fail a test.
METADATA = [
    "169.254.169.254",
    "169.254.170.2",
    "169.254.169.123",
    "100.100.100.200",
    "192.0.0.192",
    "fd00:ec2::254",
]


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(text)


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> FakeDns:
    return FakeDns(monkeypatch)


def _refusal(url: str, policy: NetPolicy) -> ToolError:
    with pytest.raises(ToolError) as caught:
        asyncio.run(resolve_checked(url, policy))
    return caught.value


@pytest.mark.parametrize("address", METADATA)
def test_each_metadata_address_is_refused_unless_allowed_by_name(address: str) -> None:
    assert not NetPolicy().permits(_ip(address))
    assert not NetPolicy(allow_private=True).permits(_ip(address))
    assert NetPolicy(allow_private=True).reason(_ip(address)) == "a cloud metadata address"
    assert NetPolicy(allow=(address,)).permits(_ip(address))


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("224.0.0.1", "a multicast address"),
        ("ff02::1", "a multicast address"),
        ("ff0e::1", "a multicast address"),
        ("0.0.0.0", "the unspecified address"),
        ("::", "the unspecified address"),
    ],
)
def test_multicast_and_unspecified_stay_refused_with_allow_private(
    address: str, reason: str
) -> None:
    for policy in (NetPolicy(), NetPolicy(allow_private=True)):
        assert not policy.permits(_ip(address))
        assert policy.reason(_ip(address)) == reason


def test_site_local_ipv6_is_private() -> None:
    assert not NetPolicy().permits(_ip("fec0::1"))
    assert NetPolicy().reason(_ip("fec0::1")) == "a site-local address"
    assert NetPolicy(allow_private=True).permits(_ip("fec0::1"))


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "a loopback address"),
        ("::1", "a loopback address"),
        ("169.254.1.1", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("10.0.0.1", "a private network address"),
        ("fd12::1", "a private network address"),
        ("100.64.0.1", "not a public internet address"),
        ("::ffff:10.0.0.1", "a IPv4-mapped form of 10.0.0.1, a private network address"),
        ("64:ff9b:1::a00:1", "a local-use NAT64 address, whose IPv4 address cannot be checked"),
    ],
)
def test_each_refusal_has_its_reason(address: str, reason: str) -> None:
    assert not NetPolicy().permits(_ip(address))
    assert NetPolicy().reason(_ip(address)) == reason


def test_private_addresses_are_reachable_with_allow_private() -> None:
    for address in ("127.0.0.1", "10.0.0.1", "fd12::1", "169.254.1.1", "100.64.0.1"):
        assert NetPolicy(allow_private=True).permits(_ip(address)), address
    assert NetPolicy(allow_private=True).permits(_ip("::ffff:10.0.0.1"))


def test_an_embedding_that_cannot_be_located_is_refused_even_with_allow_private() -> None:
    assert not NetPolicy(allow_private=True).permits(_ip("64:ff9b:1::a00:1"))
    assert NetPolicy(allow=("64:ff9b:1::/48",)).permits(_ip("64:ff9b:1::a00:1"))


def test_an_allow_network_opens_its_addresses_and_nothing_beside() -> None:
    policy = NetPolicy(allow=("10.0.0.5/24", "::ffff:127.0.0.1"))  # host bits are ignored
    assert policy.permits(_ip("10.0.0.200"))
    assert not policy.permits(_ip("10.0.1.1"))
    assert not policy.permits(_ip("127.0.0.1"))
    assert policy.permits(_ip("::ffff:127.0.0.1"))  # allowed as written
    assert not policy.permits(_ip("::ffff:127.0.0.2"))
    assert policy.reason(_ip("::ffff:127.0.0.2")).startswith("a IPv4-mapped form of 127.0.0.2")


@given(st.ip_addresses(v=4))
def test_an_ipv4_address_and_its_mapped_spelling_get_one_answer(
    address: ipaddress.IPv4Address,
) -> None:
    mapped = ipaddress.IPv6Address(f"::ffff:{address}")
    for policy in (NetPolicy(), NetPolicy(allow_private=True)):
        assert policy.permits(address) == policy.permits(mapped)


@pytest.mark.parametrize(
    ("url", "code", "words"),
    [
        ("http://[::1", "invalid_arguments", "is not a valid URL"),
        ("ftp://93.184.216.34/x", "invalid_arguments", "URL scheme 'ftp' is not allowed"),
        ("http:///path", "invalid_arguments", "has no host"),
        ("http://nowhere.example/", "not_found", "could not be resolved"),
    ],
)
def test_each_unusable_url_has_its_own_code(dns: FakeDns, url: str, code: str, words: str) -> None:
    error = _refusal(url, NetPolicy())
    assert error.code == code
    assert words in error.message, error.message


def test_the_policy_schemes_are_the_ones_accepted() -> None:
    https_only = NetPolicy(schemes=("https",))
    error = _refusal("http://93.184.216.34/", https_only)
    assert error.message == "URL scheme 'http' is not allowed (use https)."
    assert error.hint == "Give a full URL such as https://example.com/page."
    assert asyncio.run(resolve_checked("https://93.184.216.34/", https_only)) == _ip(
        "93.184.216.34"
    )


def test_a_refused_name_names_the_host_and_its_address(dns: FakeDns) -> None:
    dns.add("inside.example", ["10.0.0.7"])
    error = _refusal("http://inside.example/x", NetPolicy())
    assert error.code == "permission_denied"
    assert error.message == (
        "Refused to connect to inside.example (10.0.0.7) for http://inside.example/x: "
        "it is a private network address."
    )
    assert error.hint is not None
    assert error.hint.startswith("Only public internet addresses")
    bare = _refusal("http://10.0.0.7/x", NetPolicy())
    assert bare.message.startswith("Refused to connect to 10.0.0.7 for http://10.0.0.7/x:")


@pytest.mark.parametrize(
    ("url", "port"),
    [("http://a.example/", 80), ("https://a.example/", 443), ("http://a.example:8080/", 8080)],
)
def test_without_a_port_the_schemes_default_port_is_resolved(
    dns: FakeDns, url: str, port: int
) -> None:
    dns.add("a.example", ["93.184.216.34", "93.184.216.34", "2606:2800:220:1::1"])
    assert asyncio.run(resolve_checked(url, NetPolicy())) == _ip("93.184.216.34")
    assert dns.ports == [port]


def test_an_unknown_name_is_reported_with_its_url_and_a_hint(dns: FakeDns) -> None:
    error = _refusal("http://nowhere.example/x", NetPolicy())
    assert error.message.startswith(
        "The host 'nowhere.example' of http://nowhere.example/x could not be resolved: "
    )
    assert error.hint == "Check the spelling of the address."


def test_a_resolver_answering_no_address_is_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    def empty(*args: Any, **kwargs: Any) -> list[Any]:
        return []

    monkeypatch.setattr(socket, "getaddrinfo", empty)
    error = _refusal("http://empty.example/", NetPolicy())
    assert error.code == "not_found"
    assert error.message == "The host 'empty.example' has no address."


def test_a_zone_index_is_dropped_before_the_address_is_judged(dns: FakeDns) -> None:
    dns.add("zoned.example", ["fe80::1%eth0"])
    address = asyncio.run(resolve_checked("http://zoned.example/", NetPolicy(allow_private=True)))
    assert address == _ip("fe80::1")
    assert str(address) == "fe80::1"


@pytest.mark.parametrize(
    ("url", "host", "extensions"),
    [
        ("http://tea.example:8080/a?b=1", "tea.example:8080", {}),
        ("https://tea.example/a", "tea.example", {"sni_hostname": "tea.example"}),
    ],
)
def test_a_name_is_pinned_to_its_checked_address(
    url: str, host: str, extensions: dict[str, str]
) -> None:
    target, headers, ext = _pinned(httpx.URL(url), _ip("93.184.216.34"))
    assert target.host == "93.184.216.34"
    assert target.path == "/a"
    assert headers == {"Host": host}
    assert ext == extensions


@pytest.mark.parametrize("url", ["http://93.184.216.34:8080/a", "https://[2606:2800::1]/a"])
def test_an_address_literal_is_sent_as_it_is(url: str) -> None:
    parsed = httpx.URL(url)
    target, headers, ext = _pinned(parsed, _ip(parsed.host))
    assert target == parsed
    assert headers == {}
    assert ext == {}


def test_a_tunnel_address_is_judged_by_its_own_prefix_too() -> None:
    """ISATAP carries 93.184.216.34 (public), but the packet goes to the private fd00::/64
    network first: both must be allowed."""
    tunnel = _ip("fd00::5efe:5db8:d822")
    assert not NetPolicy().permits(tunnel)
    assert NetPolicy().reason(tunnel) == "a private network address"
    assert NetPolicy().permits(_ip("2001:db8:1::5efe:5db8:d822")) is False  # documentation net
    assert NetPolicy(allow_private=True).permits(tunnel)


def test_a_refused_scheme_names_every_scheme_accepted() -> None:
    error = _refusal("ftp://93.184.216.34/x", NetPolicy())
    assert error.message == "URL scheme 'ftp' is not allowed (use http or https)."

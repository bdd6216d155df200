"""Adversarial suite, address spellings: every way of writing a loopback, private, link-local or
cloud metadata address known here is refused by the address policy, for a bare address and in
a URL (no connection is made: the check happens before), and the same forms of public
addresses still pass."""

from __future__ import annotations

import asyncio
import ipaddress

import pytest

from toolrig import ToolError
from toolrig.tools import NetPolicy
from toolrig.tools._netguard import resolve_checked

DEFAULT = NetPolicy()
PRIVATE_OK = NetPolicy(allow_private=True)

LOOPBACK_V4 = ["127.0.0.1", "127.255.255.254", "127.1.2.3"]
METADATA_V4 = ["169.254.169.254", "169.254.170.2", "100.100.100.200", "192.0.0.192"]
PRIVATE_V4 = ["10.0.0.1", "172.16.0.1", "192.168.1.1", "100.64.0.1", "0.0.0.0", "169.254.1.1"]


def _v4(text: str) -> int:
    return int(ipaddress.IPv4Address(text))


def ipv6_forms(v4: str) -> dict[str, str]:
    """Every IPv6 spelling of ``v4`` that reaches it (through the host, NAT64 or a tunnel)."""
    n = _v4(v4)
    hi, lo = n >> 16, n & 0xFFFF
    teredo_client = n ^ 0xFFFFFFFF
    return {
        "mapped": f"::ffff:{v4}",
        "mapped hex": f"::ffff:{hi:x}:{lo:x}",
        "mapped long": f"0:0:0:0:0:ffff:{hi:x}:{lo:x}",
        "translated": f"::ffff:0:{hi:x}:{lo:x}",
        "compatible": f"::{hi:x}:{lo:x}",
        "compatible dotted": f"::{v4}",
        "nat64": f"64:ff9b::{hi:x}:{lo:x}",
        "nat64 dotted": f"64:ff9b::{v4}",
        "6to4": f"2002:{hi:x}:{lo:x}::1",
        "6to4 bare": f"2002:{hi:x}:{lo:x}::",
        "teredo client": (
            f"2001:0:4136:e378:8000:63bf:{teredo_client >> 16:x}:{teredo_client & 0xFFFF:x}"
        ),
        "teredo server": f"2001:0:{hi:x}:{lo:x}:8000:63bf:3fff:fdd2",
        "isatap": f"2001:db8:1::5efe:{hi:x}:{lo:x}",
        "isatap global": f"2001:db8:1::200:5efe:{hi:x}:{lo:x}",
    }


FORBIDDEN: list[tuple[str, str]] = [
    (f"{form} of {v4}", address)
    for v4 in LOOPBACK_V4[:1] + METADATA_V4 + PRIVATE_V4[:3]
    for form, address in ipv6_forms(v4).items()
]
FORBIDDEN += [(v4, v4) for v4 in LOOPBACK_V4 + METADATA_V4 + PRIVATE_V4]
FORBIDDEN += [
    ("loopback v6", "::1"),
    ("unspecified v6", "::"),
    ("link-local v6", "fe80::1"),
    ("unique local v6", "fd00::1"),
    ("AWS metadata v6", "fd00:ec2::254"),
    ("multicast v6", "ff02::1"),
    ("local-use NAT64", "64:ff9b:1::7f00:1"),
    ("local-use NAT64 public-looking", "64:ff9b:1:0:8:808:800::"),
    ("site-local v6", "fec0::1"),
    ("documentation v6", "2001:db8::1"),
    ("multicast v4", "224.0.0.1"),
    ("broadcast v4", "255.255.255.255"),
]
ALLOWED_PUBLIC = [
    ("public v4", "8.8.8.8"),
    ("public v6", "2606:4700:4700::1111"),
    ("mapped public", "::ffff:8.8.8.8"),
    ("nat64 public", "64:ff9b::808:808"),
    ("6to4 public", "2002:808:808::1"),
]


@pytest.mark.parametrize(("label", "address"), FORBIDDEN, ids=[f[0] for f in FORBIDDEN])
def test_forbidden_address_is_refused(label: str, address: str) -> None:
    ip = ipaddress.ip_address(address)
    assert not DEFAULT.permits(ip), label
    assert DEFAULT.reason(ip)


@pytest.mark.parametrize(("label", "address"), FORBIDDEN, ids=[f[0] for f in FORBIDDEN])
def test_forbidden_address_in_a_url_is_refused_before_connecting(label: str, address: str) -> None:
    host = f"[{address}]" if ":" in address else address
    with pytest.raises(ToolError) as info:
        asyncio.run(resolve_checked(f"http://{host}:8080/latest/meta-data/", DEFAULT))
    assert info.value.code == "permission_denied", label


METADATA_FORMS = [
    (f"{form} of {v4}", address)
    for v4 in METADATA_V4
    for form, address in ipv6_forms(v4).items()
    if form in ("mapped", "translated", "compatible", "nat64", "6to4", "isatap")
]


@pytest.mark.parametrize(("label", "address"), METADATA_FORMS, ids=[m[0] for m in METADATA_FORMS])
def test_metadata_forms_stay_refused_with_allow_private(label: str, address: str) -> None:
    ip = ipaddress.ip_address(address)
    assert not PRIVATE_OK.permits(ip), label
    assert "metadata" in PRIVATE_OK.reason(ip)


@pytest.mark.parametrize(("label", "address"), ALLOWED_PUBLIC, ids=[a[0] for a in ALLOWED_PUBLIC])
def test_public_addresses_in_any_form_pass(label: str, address: str) -> None:
    assert DEFAULT.permits(ipaddress.ip_address(address)), label


IPV4_SPELLINGS = ["2130706433", "0x7f000001", "0x7f.0.0.1", "0177.0.0.1", "127.1", "127.0.1"]


@pytest.mark.parametrize("host", IPV4_SPELLINGS)
def test_numeric_spellings_of_loopback_are_refused(host: str) -> None:
    with pytest.raises(ToolError) as info:
        asyncio.run(resolve_checked(f"http://{host}/", DEFAULT))
    assert info.value.code in ("permission_denied", "invalid_arguments", "not_found")


def test_an_explicit_allow_opens_a_form() -> None:
    policy = NetPolicy(allow=("127.0.0.1",))
    assert policy.permits(ipaddress.ip_address("::ffff:127.0.0.1"))
    assert policy.permits(ipaddress.ip_address("::7f00:1"))
    assert not policy.permits(ipaddress.ip_address("::ffff:169.254.169.254"))
    assert "NAT64" in DEFAULT.reason(ipaddress.ip_address("64:ff9b::7f00:1"))

"""DNS-rebinding protection of ``toolrig serve --transport http``: ``Host`` and ``Origin`` are
checked against an allow-list derived from the bind address, for every bind address.

The rule is tried directly on many spellings, then against ``toolrig serve`` in a subprocess
bound to several loopback spellings: a foreign ``Host`` or ``Origin`` never runs a tool."""

from __future__ import annotations

import http.client
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_support import _read_url, serve_argv, server_env, stop, write_tools

from toolrig.mcp._hosts import HostPolicy

BINDS = ["127.0.0.1", "127.0.0.2", "LOCALHOST", "localhost", "::1", "[::1]", "0.0.0.0", "::"]
LOOPBACK_BINDS = BINDS[:6]

FOREIGN_HOSTS = [
    "evil.com",
    "evil.com:8000",
    "EVIL.COM",
    "127.0.0.1.evil.com",
    "127.0.0.1.nip.io:8000",
    "localhost.evil.com",
    "evil.localhost",
    "localhost.localdomain",
    "127.0.0.1@evil.com",
    "evil.com#@127.0.0.1",
    "[::1].evil.com",
    "127.0.0.1 evil.com",
    "",
    "0x7f000001",
    "2130706433",
    "[127.0.0.1]",
    "[::1",
    "::1]",
    "localhost:0",
    "localhost:99999",
    "localhost:-1",
    "localhost:80:80",
    "localhost:",
    "localhost..",
    "localhost/evil",
]
LOOPBACK_HOSTS = [
    "127.0.0.1",
    "127.0.0.1:8000",
    "127.0.0.2:80",
    "127.255.255.254:1",
    "localhost",
    "LOCALHOST:8000",
    "LocalHost",
    "localhost.",
    "[::1]",
    "[::1]:8000",
    "[0:0:0:0:0:0:0:1]:8000",
]
FOREIGN_ORIGINS = [
    "http://evil.com",
    "https://evil.com",
    "HTTP://EVIL.COM",
    "http://evil.com:8000",
    "null",
    "http://localhost.evil.com",
    "http://127.0.0.1.evil.com",
    "http://127.0.0.1@evil.com",
    "http://[::1].evil.com",
    "file://",
    "chrome-extension://abcdef",
    "javascript:alert(1)",
    "http://",
    "ws://localhost",
    "http://192.168.1.5",
]
LOOPBACK_ORIGINS = [
    "http://localhost:3000",
    "http://127.0.0.1",
    "https://LOCALHOST",
    "http://[::1]:6274",
    "http://127.0.0.9:80",
    "http://localhost:6274/",
]


@pytest.mark.parametrize("bind", BINDS)
@pytest.mark.parametrize("host", FOREIGN_HOSTS)
def test_a_foreign_host_is_refused_whatever_the_bind(bind: str, host: str) -> None:
    assert not HostPolicy.for_bind(bind).host_ok(host)


@pytest.mark.parametrize("bind", BINDS)
@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
def test_a_foreign_origin_is_refused_whatever_the_bind(bind: str, origin: str) -> None:
    assert not HostPolicy.for_bind(bind).origin_ok(origin)


@pytest.mark.parametrize("bind", BINDS)
@pytest.mark.parametrize("host", LOOPBACK_HOSTS)
def test_every_loopback_spelling_is_answered_on_loopback_and_wildcard_binds(
    bind: str, host: str
) -> None:
    policy = HostPolicy.for_bind(bind)
    assert policy.host_ok(host)
    assert policy.origin_ok(f"http://{host}")


@pytest.mark.parametrize("origin", LOOPBACK_ORIGINS)
def test_loopback_origins_and_no_origin_may_call(origin: str) -> None:
    policy = HostPolicy.for_bind("127.0.0.1")
    assert policy.origin_ok(origin)
    assert policy.origin_ok(None)  # clients that are not browsers send no Origin


def test_a_specific_address_answers_itself_and_listed_names_only() -> None:
    policy = HostPolicy.for_bind("192.168.1.5", hosts=["mcp.example.com", "proxy:8443"])
    assert policy.host_ok("192.168.1.5:8000")
    assert policy.host_ok("MCP.example.com") and policy.host_ok("mcp.example.com:443")
    assert policy.host_ok("proxy:8443") and not policy.host_ok("proxy:8444")
    for foreign in ("127.0.0.1:8000", "localhost", "192.168.1.6", "mcp.example.com.evil.com"):
        assert not policy.host_ok(foreign), foreign
    assert not policy.origin_ok("http://localhost:3000")  # loopback cannot reach this bind


def test_a_wildcard_bind_answers_ip_literals_but_names_only_when_listed() -> None:
    policy = HostPolicy.for_bind("0.0.0.0", origins=["https://app.example.com/"])
    assert policy.host_ok("10.1.2.3:8000") and policy.host_ok("[fe80::1]:80")
    assert not policy.host_ok("myserver.lan:8000")
    assert not policy.origin_ok("http://10.1.2.3")  # a page elsewhere must be listed
    assert policy.origin_ok("https://APP.example.com")


# --- against `toolrig serve` in a subprocess -------------------------------------------------


@pytest.fixture(scope="module", params=["127.0.0.1", "127.0.0.2", "LOCALHOST", "::1"])
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, int]]:
    """A stateless server (a POSTed ``tools/call`` runs at once) on one loopback spelling."""
    tools = write_tools(tmp_path_factory.mktemp("tools"))
    bind: str = request.param
    proc = subprocess.Popen(
        serve_argv(str(tools), "--transport", "http", "--host", bind, "--port", "0", "--stateless"),
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        text=True,
        env=server_env(),
    )
    try:
        url = _read_url(proc)
        port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
        yield bind, port
    finally:
        stop(proc)


def _call(bind: str, port: int, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """POST a ``tools/call`` of ``add(2, 3)`` with exactly ``headers`` (Host included)."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
        }
    ).encode()
    conn = http.client.HTTPConnection(bind.lower(), port, timeout=10)
    try:
        conn.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
        base = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Content-Length": str(len(body)),
        }
        for key, value in {**base, **headers}.items():
            conn.putheader(key, value)
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        conn.close()


SERVED_FOREIGN = [
    {"Host": "evil.com"},
    {"Host": "127.0.0.1.evil.com:{port}"},
    {"Host": "localhost.evil.com:{port}"},
    {"Host": "[::1].evil.com"},
    {"Host": "{loop}:{port}", "Origin": "http://evil.com"},
    {"Host": "{loop}:{port}", "Origin": "null"},
    {"Host": "{loop}:{port}", "Origin": "http://{loop}.evil.com:{port}"},
    {"Host": "evil.com:{port}", "Origin": "http://evil.com:{port}"},
]


@pytest.mark.parametrize("attempt", range(len(SERVED_FOREIGN)))
def test_a_foreign_host_or_origin_never_runs_a_tool(served: tuple[str, int], attempt: int) -> None:
    bind, port = served
    loop = "[::1]" if ":" in bind else "127.0.0.1"
    headers = {k: v.format(port=port, loop=loop) for k, v in SERVED_FOREIGN[attempt].items()}
    status, answer = _call(bind, port, headers)
    assert status in (421, 403), (headers, status, answer)
    assert "result" not in answer
    assert "--allowed-" in answer["error"]["message"]  # says what to do


@pytest.mark.parametrize("host", ["{bind}:{port}", "localhost:{port}", "127.0.0.1:{port}"])
def test_the_bind_spelling_and_loopback_names_are_answered(
    served: tuple[str, int], host: str
) -> None:
    bind, port = served
    shown = f"[{bind}]" if ":" in bind else bind
    headers = {"Host": host.format(bind=shown, port=port), "Origin": "http://localhost:3000"}
    status, answer = _call(bind, port, headers)
    assert status == 200, answer
    assert answer["result"]["structuredContent"] == {"result": 5}


def test_allowed_host_and_origin_flags_admit_a_proxy_name(tmp_path: Path) -> None:
    tools = write_tools(tmp_path / "tools")
    argv = serve_argv(
        str(tools),
        "--transport",
        "http",
        "--port",
        "0",
        "--stateless",
        "--allowed-host",
        "mcp.example.com",
        "--allowed-origin",
        "https://app.example.com",
    )
    proc = subprocess.Popen(
        argv, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=server_env()
    )
    try:
        port = int(_read_url(proc).rsplit(":", 1)[1].split("/", 1)[0])
        ok = {"Host": "mcp.example.com", "Origin": "https://app.example.com"}
        assert _call("127.0.0.1", port, ok)[0] == 200
        assert _call("127.0.0.1", port, {"Host": "mcp.example.com.evil.com"})[0] == 421
        assert _call("127.0.0.1", port, {**ok, "Origin": "https://evil.com"})[0] == 403
    finally:
        stop(proc)

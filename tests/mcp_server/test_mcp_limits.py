"""Connection limits of ``toolrig serve --transport http``, with real sockets against a
subprocess: unfinished request heads time out, and a flood of them never locks an honest
client out (about 1,100 half-sent heads used to exhaust the server)."""

from __future__ import annotations

import contextlib
import http.client
import json
import resource
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_support import _read_url, serve_argv, server_env, stop, write_tools

HALF_HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: applic"
FD_LIMIT = 1024  # a common default: 1,100 half-sent heads exhausted such a server
FLOOD = 1100
HEAD_TIMEOUT = 3.0


def _limit_descriptors() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[int]:
    """``toolrig serve`` (stateless) with few descriptors and a short head timeout; its port."""
    tools = write_tools(tmp_path / "tools")
    argv = serve_argv(
        str(tools),
        *("--transport", "http", "--port", "0", "--stateless"),
        *("--head-timeout", str(HEAD_TIMEOUT)),
    )
    proc = subprocess.Popen(
        argv,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        text=True,
        env=server_env(),
        preexec_fn=_limit_descriptors,
    )
    try:
        yield int(_read_url(proc).rsplit(":", 1)[1].split("/", 1)[0])
    finally:
        stop(proc)


def _honest_call(port: int, timeout: float) -> int:
    """A complete ``tools/call`` of ``add(2, 3)``; its result (``timeout`` bounds the wait)."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
        }
    )
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/mcp", body, headers)
        answer = json.loads(conn.getresponse().read())
        result: int = answer["result"]["structuredContent"]["result"]
        return result
    finally:
        conn.close()


def _half_heads(port: int, count: int, budget: float) -> list[socket.socket]:
    """Up to ``count`` connections each holding a half-sent head, opened within ``budget``
    seconds."""
    opened: list[socket.socket] = []
    deadline = time.monotonic() + budget
    while len(opened) < count and time.monotonic() < deadline:
        sock = socket.create_connection(("127.0.0.1", port), timeout=2)
        sock.sendall(HALF_HEAD)
        opened.append(sock)
    return opened


def test_a_flood_of_unfinished_heads_leaves_room_for_an_honest_client(served: int) -> None:
    flood = _half_heads(served, FLOOD, budget=20)
    try:
        assert len(flood) == FLOOD  # more than the server has descriptors for
        started = time.monotonic()
        assert _honest_call(served, timeout=5) == 5
        assert time.monotonic() - started < 5
    finally:
        for sock in flood:
            sock.close()


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


@pytest.mark.parametrize("drip", [False, True], ids=["silent", "one-byte-a-second"])
def test_an_unfinished_head_is_closed_at_its_deadline(served: int, drip: bool) -> None:
    """Also when the client keeps sending a byte at a time: the deadline counts from the
    connection, not from the last byte."""
    heads = _half_heads(served, 5, budget=5)
    started = time.monotonic()
    try:
        if drip:
            for _ in range(int(HEAD_TIMEOUT) + 3):
                time.sleep(1)
                for sock in heads:
                    with contextlib.suppress(OSError):
                        sock.send(b"X")
        for sock in heads:
            assert _closed_by_server(sock, within=HEAD_TIMEOUT + 3)
        assert time.monotonic() - started < HEAD_TIMEOUT + 6
        assert _honest_call(served, timeout=5) == 5  # the server itself is fine
    finally:
        for sock in heads:
            sock.close()


def test_bad_limits_are_refused_on_the_command_line(tmp_path: Path) -> None:
    for flag, value in (("--head-timeout", "0"), ("--max-connections", "0")):
        done = subprocess.run(
            serve_argv("--transport", "http", "--port", "0", flag, value),
            capture_output=True,
            text=True,
            timeout=60,
            env=server_env(),
        )
        assert done.returncode == 2, done.stderr
        assert flag in done.stderr


def test_the_second_head_of_a_keep_alive_connection_has_its_deadline_too(served: int) -> None:
    """The failure path of a kept connection: after one whole request and its answer, a
    second head that never ends is closed at the deadline, counted from its first byte."""
    conn = http.client.HTTPConnection("127.0.0.1", served, timeout=10)
    try:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        conn.request(
            "POST",
            "/mcp",
            body,
            {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        )
        first = conn.getresponse()
        first.read()
        assert first.status == 200 and not first.will_close  # the connection is kept
        sock = conn.sock
        assert sock is not None
        sock.sendall(HALF_HEAD)
        assert _closed_by_server(sock, within=HEAD_TIMEOUT + 3)
    finally:
        conn.close()
    assert _honest_call(served, timeout=5) == 5

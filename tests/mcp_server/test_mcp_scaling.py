"""Scaled serving: stateless HTTP, several worker processes behind one port, ``/healthz``, and
every served call in the shared PostgreSQL log exactly once.

The direct ``tools/call`` path of a stateless server must answer exactly as the SDK's own
stateless JSON app does, and hand everything else to it unchanged.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp_support import http_server, session, write_tools

from asgi_server import serve_asgi
from postgres_db import scratch_database
from toolrig import Registry, ToolContext, tool
from toolrig.core.model._errors import ToolError
from toolrig.mcp import ToolServer, http_app

TOKEN = "workers-token"
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def _registry() -> Registry:
    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @tool
    def refuse(reason: str) -> str:
        """Always fails."""
        raise ToolError(f"refused: {reason}", code="permission_denied", hint="ask")

    @tool
    def greet(name: str) -> str:
        """Greets in several scripts."""
        return f"héllo {name} — 你好 ✓"

    @tool
    async def ask(ctx: ToolContext) -> str:
        """Asks the user (no one can answer without a channel back)."""
        ctx.log("info", "asking")
        return str(await ctx.elicit("Name?", {"type": "object", "properties": {}}))

    @tool
    async def think(ctx: ToolContext) -> str:
        """Asks a model (none can answer without a channel back)."""
        return str(await ctx.sample([{"role": "user", "content": "hi"}], max_tokens=5))

    registry = Registry()
    for t in (add, refuse, greet, ask, think):
        registry.add(t)
    return registry


@pytest.fixture(scope="module")
def two_apps() -> Iterator[tuple[str, str, list[str]]]:
    """The same tools behind toolrig's stateless app and behind the SDK's own stateless JSON
    app; the third item records the tools the direct path ran."""
    registry = _registry()
    ours, theirs = ToolServer(registry), ToolServer(registry)
    direct: list[str] = []
    call = ours.call_without_channel

    async def spy(name: str, arguments: Any) -> dict[str, Any]:
        direct.append(name)
        return await call(name, arguments)

    ours.call_without_channel = spy  # type: ignore[method-assign]
    sdk = theirs.server.streamable_http_app(
        streamable_http_path="/mcp", host="127.0.0.1", stateless_http=True, json_response=True
    )
    with serve_asgi(http_app(ours, stateless=True)) as a, serve_asgi(sdk) as b:
        yield f"{a}/mcp", f"{b}/mcp", direct
    ours.close()
    theirs.close()


def _post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, str, Any]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = httpx.post(url, content=raw, headers=headers or HEADERS, timeout=10)
    kind = response.headers.get("content-type", "").split(";")[0]
    data = response.json() if kind == "application/json" and response.content else response.text
    return response.status_code, kind, data


def _call(name: str, arguments: Any, request_id: Any = 7) -> dict[str, Any]:
    params = {"name": name} if arguments is None else {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


CALLS = [
    _call("add", {"a": 2, "b": 3}),
    _call("add", {"a": "two", "b": 3}),  # invalid arguments: an isError result
    _call("add", {"a": 1, "b": 2, "c": 3}),  # unknown argument
    _call("add", None),  # arguments left out
    _call("refuse", {"reason": "no"}),  # a structured failure
    _call("greet", {"name": "Zoë"}),  # non-ASCII output
    _call("nope", {}),  # unknown tool: the protocol's error
    _call("add", {"a": 1, "b": 1}, request_id="text-id"),
]


@pytest.mark.parametrize("body", CALLS, ids=lambda b: json.dumps(b["params"])[:40])
def test_direct_calls_answer_as_the_sdk_does(two_apps: Any, body: dict[str, Any]) -> None:
    ours, theirs, direct = two_apps
    before = len(direct)
    assert _post(ours, body) == _post(theirs, body)
    assert len(direct) == before + 1  # answered by the direct path, not the SDK


@pytest.mark.parametrize("name", ["ask", "think"])
def test_calls_that_need_the_client_fail_alike(two_apps: Any, name: str) -> None:
    """Without a channel back, asking a person or a model fails with the same code and shape
    on both paths (the wording of the message may differ)."""
    ours, theirs, _ = two_apps
    mine, sdk = _post(ours, _call(name, {})), _post(theirs, _call(name, {}))
    assert mine[:2] == sdk[:2]
    left, right = mine[2]["result"], sdk[2]["result"]
    assert left["isError"] is right["isError"] is True
    assert left["_meta"]["toolrig/error"]["code"] == right["_meta"]["toolrig/error"]["code"]


PASSED_ON = [
    ({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}, None),
    ({"jsonrpc": "2.0", "id": 1, "method": "ping"}, None),
    ({"jsonrpc": "2.0", "method": "notifications/initialized"}, None),
    ([_call("add", {"a": 1, "b": 2})], None),  # a batch
    ({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "add"}}, None),  # no id
    ({"jsonrpc": "2.0", "id": None, "method": "tools/call", "params": {"name": "add"}}, None),
    (b"{not json", None),
    (_call("add", {"a": 1, "b": 2}), {**HEADERS, "accept": "application/json"}),
    (_call("add", {"a": 1, "b": 2}), {**HEADERS, "content-type": "text/plain"}),
    (_call("add", {"a": 1, "b": 2}), {**HEADERS, "mcp-protocol-version": "1999-01-01"}),
]


@pytest.mark.parametrize(("body", "headers"), PASSED_ON, ids=range(len(PASSED_ON)))
def test_everything_else_reaches_the_sdk_unchanged(
    two_apps: Any, body: Any, headers: dict[str, str] | None
) -> None:
    ours, theirs, direct = two_apps
    before = len(direct)
    mine, sdk = _post(ours, body, headers), _post(theirs, body, headers)
    if isinstance(sdk[2], dict) and "id" in sdk[2] and isinstance(sdk[2].get("error"), dict):
        sdk[2]["error"].pop("data", None)  # may name a per-request object
        mine[2]["error"].pop("data", None)
    assert mine == sdk
    assert len(direct) == before


def _deep(depth: int, where: str) -> bytes:
    nested = "[" * depth + "]" * depth
    if where == "top":
        return nested.encode()
    inner = nested if where == "arguments" else "0"
    text = (
        '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", '
        f'"params": {{"name": "add", "arguments": {{"a": {inner}, "b": 1}}}}}}'
    )
    return text.encode()


@pytest.mark.parametrize("where", ["top", "arguments"])
@pytest.mark.parametrize("depth", [150, 199, 200, 201, 202, 255, 999, 1000, 1001, 5000, 100_000])
def test_deep_bodies_are_answered_as_the_sdk_answers(two_apps: Any, depth: int, where: str) -> None:
    """Nesting past the SDK parser's limit: 400 and the same JSON-RPC parse error on both
    paths (the direct path answered 100,000 levels with a 500, a RecursionError)."""
    ours, theirs, _ = two_apps
    body = _deep(depth, where)
    mine, sdk = _post(ours, body), _post(theirs, body)
    if isinstance(sdk[2], dict) and isinstance(sdk[2].get("error"), dict):
        sdk[2]["error"].pop("data", None)
        mine[2]["error"].pop("data", None)
    assert mine == sdk
    if depth > 201:
        assert mine[0] == 400 and mine[2]["error"]["code"] == -32700


@pytest.mark.parametrize(
    "headers",
    [{**HEADERS, "host": "evil.example"}, {**HEADERS, "origin": "http://evil.example"}],
    ids=["host", "origin"],
)
def test_dns_rebinding_is_refused_with_the_sdk_status(
    two_apps: Any, headers: dict[str, str]
) -> None:
    """Refused before either path (toolrig's message says which option admits the name)."""
    ours, theirs, direct = two_apps
    before = len(direct)
    body = _call("add", {"a": 1, "b": 2})
    mine, sdk = _post(ours, body, headers), _post(theirs, body, headers)
    assert mine[0] == sdk[0] in (421, 403)
    assert "--allowed-" in mine[2]["error"]["message"]
    assert len(direct) == before


def test_healthz_answers_without_the_token() -> None:
    registry = _registry()
    server = ToolServer(registry)
    with serve_asgi(http_app(server, token="s3cret", stateless=True)) as base:
        first = httpx.get(f"{base}/healthz", timeout=5)
        assert first.status_code == 200
        data = first.json()
        assert data["status"] == "ok" and data["tools"] == 5
        assert len(data["catalog_version"]) == 16
        assert not any(name in first.text for name in ("add", "refuse", "greet", "think"))
        assert httpx.post(f"{base}/healthz", timeout=5).status_code == 405
        assert httpx.post(f"{base}/mcp", json=CALLS[0], headers=HEADERS).status_code == 401

        @tool
        def extra() -> str:
            """One more."""
            return "x"

        registry.add(extra)
        after = httpx.get(f"{base}/healthz", timeout=5).json()
        assert after["tools"] == 6 and after["catalog_version"] != data["catalog_version"]
    server.close()


@pytest.fixture(scope="module")
def postgres_log() -> Iterator[str]:
    with scratch_database("toolrig_scale") as dsn:
        yield dsn


@pytest.fixture(scope="module")
def workers(
    tmp_path_factory: Any, postgres_log: str
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``toolrig serve --transport http --workers 2 --log postgresql://...``; yields its URL
    and its process."""
    tools = write_tools(tmp_path_factory.mktemp("tools"))
    args = ("--workers", "2", "--log", postgres_log, "--token-env", "SCALE_TOKEN")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SCALE_TOKEN", TOKEN)
        with http_server(str(tools), *args) as (url, proc):
            yield url, proc
            assert proc.poll() is None


def _worker_pids(server: int) -> set[int]:
    """The worker processes of ``server`` now: its children that multiprocessing started as
    workers (``--multiprocessing-fork``), not its resource tracker."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            argv = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[1]) == server and b"--multiprocessing-fork" in argv:
            found.add(int(stat.parent.name))
    return found


def _wait_for_workers(server: int, count: int, *, not_: int = 0) -> set[int]:
    """The worker pids once ``count`` of them run (none of them ``not_``), within 30 s."""
    deadline = time.monotonic() + 30
    while True:
        pids = _worker_pids(server) - {not_}
        if len(pids) == count or time.monotonic() > deadline:
            return pids
        time.sleep(0.1)


async def _client_calls(url: str, client: int, calls: int, b: int) -> list[tuple[int, int]]:
    """One real MCP client session: ``calls`` adds and pids; returns (sum, pid) pairs."""
    out = []
    async with session("http", url, token=TOKEN) as mcp:
        for i in range(calls):
            result = await mcp.call_tool("add", {"a": client * 1000 + i, "b": b})
            assert not result.is_error
            pid = await mcp.call_tool("pid", {})
            out.append((int(result.structured_content["result"]), int(pid.content[0].text)))
    return out


async def _gather(url: str, *, clients: int, calls: int, b: int) -> list[tuple[int, int]]:
    results = await asyncio.gather(*(_client_calls(url, c, calls, b) for c in range(clients)))
    return [pair for one in results for pair in one]


def _logged(url: str, b: int) -> list[Any]:
    from toolrig.storage._open import open_log

    log = open_log(url)
    try:
        return [r for r in log.query(tool="add", limit=10_000) if r.input_data["b"] == b]
    finally:
        log.close()


def test_two_workers_behind_one_port_log_every_call_once(
    workers: tuple[str, subprocess.Popen[str]], postgres_log: str
) -> None:
    """Which worker takes a connection is the kernel's choice (on a busy machine one may take
    them all): whichever answered, each call is logged once, under the run of that worker."""
    url, server = workers
    base = url.rsplit("/", 1)[0]
    health = httpx.get(f"{base}/healthz", timeout=10).json()
    assert health["status"] == "ok" and health["tools"] == 4
    refused = httpx.post(url, json=CALLS[0], headers=HEADERS, timeout=10)
    assert refused.status_code == 401  # the workers require the token
    running = _wait_for_workers(server.pid, 2)
    assert len(running) == 2  # two worker processes behind the one port
    answered: list[tuple[int, int, int]] = []  # (a, b, pid) of each call
    for b in range(10, 13):  # new connections each round: a chance for both workers
        answered += [
            (s - b, b, pid) for s, pid in asyncio.run(_gather(url, clients=4, calls=2, b=b))
        ]
    assert {pid for _, _, pid in answered} <= running
    records = [r for b in range(10, 13) for r in _logged(postgres_log, b)]
    logged = sorted((r.input_data["a"], r.input_data["b"]) for r in records)
    assert logged == sorted((a, b) for a, b, _ in answered)  # each call once: none lost or twice
    run_of = {(r.input_data["a"], r.input_data["b"]): r.run_id for r in records}
    runs: dict[int, set[str]] = {}
    for a, b, pid in answered:
        runs.setdefault(pid, set()).add(run_of[a, b])
    assert all(len(ids) == 1 for ids in runs.values())  # one worker, one run: its own
    assert len(set().union(*runs.values())) == len(runs)  # no two workers share a run


def test_a_killed_worker_is_replaced_and_the_port_keeps_answering(
    workers: tuple[str, subprocess.Popen[str]], postgres_log: str
) -> None:
    import signal

    url, server = workers
    victim = asyncio.run(_gather(url, clients=1, calls=1, b=50))[0][1]
    os.kill(victim, signal.SIGKILL)
    answered = asyncio.run(_gather(url, clients=3, calls=2, b=51))
    assert len(answered) == 6 and victim not in {p for _, p in answered}  # answered meanwhile
    running = _wait_for_workers(server.pid, 2, not_=victim)
    assert len(running) == 2  # a replacement started beside the survivor
    after = asyncio.run(_gather(url, clients=3, calls=1, b=52))
    assert {p for _, p in after} <= running
    assert len(_logged(postgres_log, 51)) == 6


def test_workers_need_http() -> None:
    from toolrig.cli.main import main

    assert main(["serve", "--demo", "--workers", "2"]) == 2
    with pytest.raises(SystemExit) as refused:  # a count below 1: refused while parsing
        main(["serve", "--demo", "--transport", "http", "--workers", "0"])
    assert refused.value.code == 2


def test_workers_refuse_a_port_in_use() -> None:
    from mcp_support import serve_argv, server_env

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = subprocess.run(
            serve_argv("--demo", "--transport", "http", "--workers", "2", "--port", str(port)),
            capture_output=True,
            text=True,
            timeout=60,
            env=server_env(),
        )
    assert done.returncode == 2
    assert "cannot listen" in done.stderr


async def test_serve_stateless_from_python_with_the_real_client() -> None:
    import contextlib

    from toolrig.mcp import ServeOptions, serve_async

    with pytest.raises(ValueError, match="HTTP mode"):
        ServeOptions(stateless=True)  # stdio has no stateless mode
    registry = _registry()
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(
        serve_async(registry, transport="http", port=0, stateless=True, on_ready=ready.set_result)
    )
    try:
        url = await asyncio.wait_for(ready, 20)
        async with session("http", url) as one, session("http", url) as two:
            first, second = await asyncio.gather(
                one.call_tool("add", {"a": 1, "b": 2}), two.call_tool("add", {"a": 3, "b": 4})
            )
            assert first.structured_content == {"result": 3}
            assert second.structured_content == {"result": 7}
            bad = await one.call_tool("add", {"a": "x", "b": 1})
            assert bad.is_error and bad.meta["toolrig/error"]["code"] == "invalid_arguments"
        async with httpx.AsyncClient(timeout=5) as http:
            probe = await http.post(url, json=CALLS[0], headers=HEADERS)
        assert "mcp-session-id" not in probe.headers  # stateless: no session to stick to
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 20)

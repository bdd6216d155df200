#!/usr/bin/env python3
"""MCP over streamable HTTP: calls/s and server CPU per call, toolrig beside the MCP SDK.

Run from the checkout:  .venv/bin/python bench/distributed_serve.py [--seconds S] [--quick]
(also run by ``bench/distributed.py``, whose serving section this is)

Servers, each a subprocess on 127.0.0.1 serving the same ``add(a, b)`` tool:

- ``toolrig serve --demo --transport http`` (the default: sessions, SSE answers);
- ``toolrig serve ... --stateless`` with 1 process and with ``--workers 2``;
- the MCP SDK's ``MCPServer`` (``mcp.server.MCPServer``), as it runs by default and in its
  stateless JSON mode (``stateless_http=True, json_response=True``);
- FastMCP (the ``fastmcp`` package) over ``http``, when it is installed.

The clients are the same for every server: ``N`` concurrent raw HTTP clients (httpx, one
connection each) in this process, each doing the MCP handshake (``initialize``, then
``notifications/initialized``, keeping the ``Mcp-Session-Id`` when one is given) and then
``tools/call`` back to back, reading JSON or SSE answers. Raw clients keep the client's own
CPU small on a shared 2-core machine. Server CPU is read from ``/proc/<pid>/stat``
(utime + stime of the server process and its children) before and after each scenario.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

perf = time.perf_counter
ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")
ACCEPT = "application/json, text/event-stream"
VERSION = "2025-11-25"

MCPSERVER = """
import sys
from mcp.server import MCPServer
server = MCPServer("bench")

@server.tool()
def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b

stateless = sys.argv[2] == "stateless"
server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]),
           stateless_http=stateless, json_response=stateless)
"""

FASTMCP = """
import sys
from fastmcp import FastMCP
server = FastMCP("bench")

@server.tool()
def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b

server.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False,
           log_level="WARNING")
"""


@dataclass(frozen=True)
class Server:
    label: str
    argv: list[str]


def servers(quick: bool) -> list[Server]:
    """The servers to compare (``quick``: without toolrig's session mode)."""
    toolrig = [sys.executable, "-m", "toolrig.cli.main", "serve", "--demo", "--transport", "http"]
    out = [
        Server("toolrig serve (sessions, 1 process)", toolrig),
        Server("toolrig serve --stateless (1 process)", [*toolrig, "--stateless"]),
        Server(
            "toolrig serve --stateless --workers 2", [*toolrig, "--stateless", "--workers", "2"]
        ),
        Server("MCPServer (default)", [sys.executable, "-c", MCPSERVER, "{port}", "stateful"]),
        Server(
            "MCPServer (stateless JSON)", [sys.executable, "-c", MCPSERVER, "{port}", "stateless"]
        ),
    ]
    try:
        import fastmcp  # noqa: F401

        out.append(Server("FastMCP (http)", [sys.executable, "-c", FASTMCP, "{port}"]))
    except ImportError:
        print("FastMCP is not installed (pip install fastmcp): left out\n")
    return out[1:] if quick else out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def cpu_seconds(pids: Sequence[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def start(server: Server) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in server.argv]
    if argv[1:3] == ["-m", "toolrig.cli.main"]:
        argv += ["--port", str(port)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"{server.label} did not start")


def _message(response: httpx.Response, want: int) -> dict[str, object]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:") and line[5:].strip():  # skip priming events
                data = json.loads(line[5:])
                if data.get("id") == want:
                    return data  # type: ignore[no-any-return]
        raise RuntimeError(f"no answer in the stream: {response.text[:200]}")
    return response.json()  # type: ignore[no-any-return]


class Client:
    """One MCP client over raw HTTP: handshake, then ``tools/call`` requests."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=1))
        self.headers = {"accept": ACCEPT, "content-type": "application/json"}
        self.next_id = 0

    async def post(self, method: str, params: dict[str, object], notify: bool = False) -> object:
        body: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            self.next_id += 1
            body["id"] = self.next_id
        response = await self.http.post(self.url, content=json.dumps(body), headers=self.headers)
        response.raise_for_status()
        if notify:
            return None
        data = _message(response, self.next_id)
        if "error" in data:
            raise RuntimeError(data["error"])
        if method == "initialize":
            session = response.headers.get("mcp-session-id")
            if session:
                self.headers["mcp-session-id"] = session
            self.headers["mcp-protocol-version"] = str(data["result"]["protocolVersion"])  # type: ignore[index]
        return data["result"]

    async def connect(self) -> None:
        await self.post(
            "initialize",
            {
                "protocolVersion": VERSION,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        )
        await self.post("notifications/initialized", {}, notify=True)

    async def add(self, a: int, b: int) -> None:
        result = await self.post("tools/call", {"name": "add", "arguments": {"a": a, "b": b}})
        if result.get("isError") or result.get("structuredContent") != {"result": a + b}:  # type: ignore[union-attr]
            raise RuntimeError(f"unexpected result: {result}")

    async def close(self) -> None:
        await self.http.aclose()


async def scenario(url: str, clients: int, seconds: float) -> tuple[int, float]:
    """Calls made by ``clients`` concurrent clients in ``seconds``; returns (calls, elapsed)."""
    pool = [Client(url) for _ in range(clients)]
    await asyncio.gather(*(c.connect() for c in pool))
    for c in pool:
        await c.add(1, 2)  # warm-up
    stop = perf() + seconds
    counts = [0] * clients

    async def run(i: int, client: Client) -> None:
        n = 0
        while perf() < stop:
            await client.add(n, 1)
            n += 1
        counts[i] = n

    t0 = perf()
    await asyncio.gather(*(run(i, c) for i, c in enumerate(pool)))
    elapsed = perf() - t0
    await asyncio.gather(*(c.close() for c in pool))
    return sum(counts), elapsed


def measure(server: Server, clients: Sequence[int], seconds: float) -> list[dict[str, object]]:
    proc, url = start(server)
    rows = []
    try:
        asyncio.run(scenario(url, 2, 0.3))  # warm every worker up
        for n in clients:
            pids = tree(proc.pid)
            before = cpu_seconds(pids)
            calls, elapsed = asyncio.run(scenario(url, n, seconds))
            used = cpu_seconds(pids) - before
            rows.append(
                {
                    "server": server.label,
                    "clients": n,
                    "calls_per_s": calls / elapsed,
                    "cpu_us_per_call": used / max(calls, 1) * 1e6,
                    "processes": len(pids),
                }
            )
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    return rows


def serve_section(
    *, seconds: float = 2.0, clients: Sequence[int] = (1, 8, 32), quick: bool = False
) -> list[dict[str, object]]:
    """Run the serving benchmark, print its table (Markdown), return its rows."""
    print("## Serving (MCP over streamable HTTP, tool `add`)\n")
    print(
        f"{seconds:g} s per scenario on 127.0.0.1; Python {platform.python_version()}, "
        f"{os.cpu_count()} CPU(s) shared by the clients and the server; server CPU read from "
        "/proc (utime + stime of the server's processes).\n"
    )
    print("| server | clients | calls/s | server CPU per call (µs) |")
    print("|---|---:|---:|---:|")
    rows: list[dict[str, object]] = []
    for server in servers(quick):
        for row in measure(server, clients, seconds):
            rows.append(row)
            print(
                f"| {row['server']} | {row['clients']} | {row['calls_per_s']:.0f} "
                f"| {row['cpu_us_per_call']:.0f} |"
            )
    print()
    _summary(rows)
    return rows


def _summary(rows: list[dict[str, object]]) -> None:
    """toolrig's stateless server CPU per call against ``MCPServer``'s, at each client count."""

    def cpu(label: str, n: object) -> float | None:
        for row in rows:
            if row["server"] == label and row["clients"] == n:
                return float(row["cpu_us_per_call"])  # type: ignore[arg-type]
        return None

    for n in sorted({row["clients"] for row in rows}):  # type: ignore[type-var]
        ours = cpu("toolrig serve --stateless (1 process)", n)
        for peer in ("MCPServer (default)", "MCPServer (stateless JSON)"):
            theirs = cpu(peer, n)
            if ours is not None and theirs is not None:
                print(
                    f"- {n} client(s): toolrig stateless uses {ours / theirs:.2f}x the server "
                    f"CPU per call of {peer} (target: at most 0.5x)"
                )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per scenario (2)")
    parser.add_argument("--clients", default="1,8,32", help="concurrent clients (1,8,32)")
    parser.add_argument(
        "--quick", action="store_true", help="1 s per scenario, 1 and 32 clients, no sessions"
    )
    args = parser.parse_args()
    if args.quick:
        serve_section(seconds=1.0, clients=(1, 32), quick=True)
    else:
        clients = tuple(int(c) for c in args.clients.split(","))
        serve_section(seconds=args.seconds, clients=clients)


if __name__ == "__main__":
    main()

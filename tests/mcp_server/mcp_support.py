"""Helpers of the MCP tests: YAML tools on disk, `toolrig serve` subprocesses, client sessions."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

HERE = Path(__file__).resolve().parent
WAIT = 20.0  # seconds: the bound of every wait in these tests

TOOLS_YAML = {
    "add.yaml": """\
name: add
description: Add two integers.
parameters:
  - {name: a, type: integer, required: true, description: First addend}
  - {name: b, type: integer, required: true, description: Second addend}
output_schema: {type: integer}
annotations: {read_only: true, idempotent: true}
executor: mcp_fixture_tools.add
""",
    "boom.yaml": """\
name: boom
description: Always fails.
parameters:
  - {name: reason, type: string, required: true}
executor: mcp_fixture_tools.boom
""",
    "nap.yaml": """\
name: nap
description: Sleeps, then answers.
parameters:
  - {name: seconds, type: number, required: true}
timeout: 0.3
executor: mcp_fixture_tools.nap
""",
    "pid.yaml": """\
name: pid
description: The server's process id.
executor: mcp_fixture_tools.pid
""",
}

EXTRA_YAML = """\
name: added_later
description: Appears while the server runs.
parameters:
  - {name: a, type: integer, required: true}
  - {name: b, type: integer, required: true}
executor: mcp_fixture_tools.add
"""


class StreamWatch:
    """Tells when an MCP HTTP client has opened its stream of server messages (the ``GET``
    event stream that carries notifications such as ``tools/list_changed``): the server
    registers the stream before it answers the ``GET``, so a notification sent after
    :attr:`opened` is set reaches the client. Before that, a notification has nowhere to go."""

    def __init__(self) -> None:
        self.opened = threading.Event()

    async def _on_response(self, response: Any) -> None:
        kind = response.headers.get("content-type", "")
        get = response.request.method == "GET" and response.status_code == 200
        if get and kind.startswith("text/event-stream"):
            self.opened.set()

    def client(self, headers: dict[str, str] | None = None, **kwargs: Any) -> Any:
        """An MCP HTTP client (as the SDK makes it) that reports its stream opening here."""
        made = create_mcp_http_client(headers=headers, **kwargs)
        made.event_hooks = {"request": [], "response": [self._on_response]}
        return made

    def wait(self, timeout: float = 20.0) -> None:
        if not self.opened.wait(timeout):
            raise AssertionError("the client's notification stream did not open in time")

    async def await_open(self, timeout: float = 20.0) -> None:
        await asyncio.to_thread(self.wait, timeout)


def write_tools(folder: Path) -> Path:
    """The test tools as YAML files under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in TOOLS_YAML.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def server_env() -> dict[str, str]:
    """The environment of a served subprocess: the fixture tools importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def serve_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "toolrig.cli.main", "serve", *args]


@contextmanager
def http_server(*args: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``toolrig serve --transport http --port 0 ARGS`` on 127.0.0.1; yields its URL."""
    proc = subprocess.Popen(
        serve_argv("--transport", "http", "--host", "127.0.0.1", "--port", "0", *args),
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        text=True,
        env=server_env(),
    )
    try:
        url = _read_url(proc)
        yield url, proc
    finally:
        stop(proc)


def _read_url(proc: subprocess.Popen[str]) -> str:
    found: list[str] = []
    done = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            match = re.search(r"listening on (http://\S+)", line)
            if match and not found:
                found.append(match.group(1))
                done.set()
        done.set()

    threading.Thread(target=read, daemon=True).start()
    if not done.wait(WAIT) or not found:
        raise RuntimeError("the HTTP server did not report its address")
    return found[0]


def stop(proc: subprocess.Popen[Any]) -> None:
    """Terminate ``proc`` (killing it if it lingers)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@asynccontextmanager
async def session(
    transport: str,
    target: Sequence[str] | str,
    *,
    token: str | None = None,
    on_message: Callable[[Any], Any] | None = None,
    watch: StreamWatch | None = None,
) -> AsyncIterator[ClientSession]:
    """An initialized client session: ``target`` is the server's argv (stdio) or URL (http).
    Over HTTP, ``watch`` is told when the session's notification stream opens."""

    async def handler(message: Any) -> None:
        if on_message is not None:
            on_message(message)

    if transport == "stdio":
        argv = list(target)
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=server_env())
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, message_handler=handler) as client,
        ):
            await client.initialize()
            yield client
        return
    headers = {"Authorization": f"Bearer {token}"} if token else None
    assert isinstance(target, str)
    async with (
        streamable_http_client(target, http_client=(watch or StreamWatch()).client(headers)) as (
            read,
            write,
        ),
        ClientSession(read, write, message_handler=handler) as client,
    ):
        await client.initialize()
        yield client


@asynccontextmanager
async def serving(server: Any, token: str | None = None) -> AsyncIterator[str]:
    """``server`` (a ``ToolServer``) over streamable HTTP on a free port in this event loop,
    asking for ``token`` when given; yields its URL, and closes the server afterwards."""
    import contextlib

    from toolrig.mcp import serve_http

    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve_http(server, port=0, token=token, on_ready=ready.set_result))
    try:
        yield await asyncio.wait_for(ready, WAIT)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, WAIT)
        server.close()

"""``toolrig serve``: one-line errors for a missing path or a busy port, an access log line
per call, ``--log``, and hot reloads printed (applied, or rejected with the reason)."""

from __future__ import annotations

import asyncio
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_runner import env, one_line_error, toolrig

from toolrig.storage import open_log

mcp = pytest.importorskip("mcp")

WAIT = 20.0

GREET = """\
name: greet
description: Greets someone.
parameters:
  - {name: who, type: string, required: true}
executor: greetings.greet
"""


def test_a_missing_path_is_one_line_and_exit_2() -> None:
    done = toolrig("serve", "/nonexistent")
    assert done.returncode == 2
    assert "path '/nonexistent': no such file or folder" in one_line_error(done, "serve")


def test_a_port_in_use_is_one_line_and_exit_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = toolrig("serve", "--transport", "http", "--port", str(port))
    assert done.returncode == 2
    line = one_line_error(done, "serve")
    assert f"cannot listen on 127.0.0.1:{port}" in line and "in use" in line


async def _wait_for(path: Path, text: str) -> str:
    """The stderr file's text once it contains ``text`` (at most :data:`WAIT` seconds)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        content = await asyncio.to_thread(path.read_text, encoding="utf-8")
        if text in content:
            return content
        await asyncio.sleep(0.05)
    raise AssertionError(f"{text!r} never appeared in the server's stderr:\n{content}")


async def test_calls_and_reloads_are_reported_and_recorded(tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from mcp import types as mcp_types

    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "greetings.py").write_text(
        "def greet(who: str) -> str:\n    return f'Hello, {who}!'\n", encoding="utf-8"
    )
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "greet.yaml").write_text(GREET, encoding="utf-8")
    log = tmp_path / "log.sqlite3"
    argv = ["-m", "toolrig.cli.main", "serve", str(tools), "--watch"]
    argv += ["--import-path", str(tmp_path / "code"), "--log", str(log)]
    params = StdioServerParameters(command=sys.executable, args=argv, env=env())
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            changed.set()

    stderr = tmp_path / "stderr.txt"
    with stderr.open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, message_handler=on_message) as client,
        ):
            await asyncio.wait_for(client.initialize(), WAIT)
            result = await asyncio.wait_for(client.call_tool("greet", {"who": "Ada"}), WAIT)
            assert not result.is_error
            await _wait_for(stderr, "call greet ok")
            bad = await asyncio.wait_for(client.call_tool("greet", {}), WAIT)
            assert bad.is_error
            await _wait_for(stderr, "call greet invalid_arguments")

            # an edit that loads: printed as applied, and clients are told list_changed
            (tools / "wave.yaml").write_text(GREET.replace("greet\n", "wave\n", 1))
            await asyncio.wait_for(changed.wait(), WAIT)
            await _wait_for(stderr, "reload applied: added wave")

            # a broken edit: printed with file, line and reason; no list_changed
            changed.clear()
            (tools / "greet.yaml").write_text(GREET.replace("type: string", "type: strang"))
            text = await _wait_for(stderr, "reload rejected:")
            assert f"{tools / 'greet.yaml'}:4:" in text and "the last good version stays" in text
            await asyncio.sleep(0.5)
            assert not changed.is_set()
            still = await asyncio.wait_for(client.call_tool("greet", {"who": "Bo"}), WAIT)
            assert not still.is_error  # the last good version is still served
    with open_log(str(log)) as opened:
        records = opened.query(tool="greet")
    assert [r.status for r in records] == ["succeeded", "failed", "succeeded"]
    assert records[0].run_id.startswith("serve-")

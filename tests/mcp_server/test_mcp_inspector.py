"""The MCP Inspector's command-line mode lists and calls our tools (stdio and HTTP).

Inspector 0.17.2 runs on Node.js 20 (its `engines` asks for 22.7.5, npm only warns; 2.x
needs 22.19). Set TOOLRIG_MCP_INSPECTOR to an installed `mcp-inspector` binary, or let `npx`
fetch the pinned version. Skipped, with the reason, when neither node nor npx is available.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from mcp_support import http_server, serve_argv, server_env, write_tools

INSPECTOR = "@modelcontextprotocol/inspector@0.17.2"


def _inspector() -> list[str]:
    given = os.environ.get("TOOLRIG_MCP_INSPECTOR")
    if given:
        return [given]
    if shutil.which("node") is None or shutil.which("npx") is None:
        pytest.skip("the MCP Inspector needs Node.js and npx, which are not installed")
    return ["npx", "--yes", INSPECTOR]


def _run(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [*_inspector(), "--cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=server_env(),
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0 and "npm" in done.stderr and "ERR" in done.stderr:
        pytest.skip(f"could not fetch {INSPECTOR}: {done.stderr.strip()[:300]}")
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def test_inspector_over_stdio(tmp_path: Path) -> None:
    server = serve_argv(str(write_tools(tmp_path / "tools")))
    listed = _run(*server, "--method", "tools/list")
    names = {t["name"] for t in listed["tools"]}  # type: ignore[attr-defined]
    assert names == {"add", "boom", "nap", "pid"}
    called = _run(
        *server, "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "b=40"
    )
    assert called["structuredContent"] == {"result": 42}
    assert called["isError"] is False


def test_inspector_over_http(tmp_path: Path) -> None:
    _inspector()
    with http_server(str(write_tools(tmp_path / "tools")), "--token", "t") as (url, _proc):
        common = [url, "--transport", "http", "--header", "Authorization: Bearer t"]
        listed = _run(*common, "--method", "tools/list")
        assert "add" in {t["name"] for t in listed["tools"]}  # type: ignore[attr-defined]
        called = _run(
            *common, "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=1", "b=2"
        )
        assert called["structuredContent"] == {"result": 3}

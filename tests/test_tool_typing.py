"""Calling a ``@tool`` function keeps the function's signature for type checkers: mypy
--strict is run on a small file that misuses decorated functions, and must find each misuse."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")

SAMPLE = """\
from toolrig import Tool, tool


@tool
def add(a: int, b: int) -> int:
    return a + b


@tool(timeout=5, when_to_use="When a page is needed.")
async def fetch(url: str) -> bytes:
    return b""


total: int = add(1, 2)
plain: Tool = add  # a bare annotation accepts any tool
tools: list[Tool] = [add, fetch]
greet = Tool(name="greet", description="Greet.", func=lambda who: f"Hello, {who}!")
z: str = add(1, 2)  # error: an int is not a str
add("1", 2)  # error: "1" is not an int
add(1)  # error: b is missing
w: bytes = fetch("x")  # error: a coroutine, not bytes
"""


def test_mypy_strict_sees_the_function_signature(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(SAMPLE, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(sample),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "MYPY_FORCE_COLOR": "0"},
    )
    lines = [line for line in done.stdout.splitlines() if ": error:" in line]
    flagged = {int(line.split(":")[1]) for line in lines}
    expected = {n for n, line in enumerate(SAMPLE.splitlines(), 1) if "# error" in line}
    assert flagged == expected, done.stdout + done.stderr
    assert 'expression has type "int", variable has type "str"' in done.stdout
    assert '"Coroutine[Any, Any, bytes]", variable has type "bytes"' in done.stdout

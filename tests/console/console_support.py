"""What the console tests share: a log filled by real agent runs, and a real ``toolrig
console`` subprocess serving it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from console_tools import tools

from toolrig.agent import Agent
from toolrig.storage import SQLiteExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
TOOLS_FILE = HERE / "console_tools.py"
HTML_OUTPUT = "<script>document.title='owned'</script><b>bold</b>"


def fill_log(path: Path) -> None:
    """Three agent runs: two calls in order, one call that fails, and one whose output is
    HTML."""
    log = SQLiteExecutionLog(path)
    scripts = [
        [
            ModelTurn(calls=[("add", {"a": 2, "b": 3}, "a1")]),
            ModelTurn(calls=[("echo", {"text": "five"}, "e1")]),
            "2 + 3 = five",
        ],
        [ModelTurn(calls=[("add", {"a": "two", "b": 3}, "bad")]), "I could not add."],
        [ModelTurn(calls=[("echo", {"text": HTML_OUTPUT}, "h1")]), "Echoed."],
    ]
    for number, script in enumerate(scripts, 1):
        agent = Agent("helper", "You help.", ScriptedModel(script), tools, log=log)
        agent.run(f"task {number}", run_id=f"run-{number}")
    log.close()


@contextmanager
def console(log: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """``toolrig console`` over ``log`` in a subprocess; yields its base URL."""
    command = [
        sys.executable,
        "-m",
        "toolrig.cli.main",
        "console",
        "--log",
        str(log),
        "--catalog",
        str(TOOLS_FILE),
        "--port",
        "0",
        *extra,
    ]
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(HERE), **(env or {})},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if "toolrig console on" not in line:
            proc.kill()
            raise AssertionError(f"the console did not start: {line}{proc.communicate()[1]}")
        url = line.split(" on ", 1)[1].split("/ ", 1)[0].split("/?", 1)[0]
        yield url.rstrip("/")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

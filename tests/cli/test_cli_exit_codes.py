"""``toolrig`` at the edges of its options, through the real command: a call without
``--timeout`` keeps the tool's own limit (the absent value), and ``--json`` changes what is
printed, never the exit code (the entry point)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import toolrig

from runtime_timing import Beside

TOOLS_PY = '''
import time

from toolrig import tool


@tool(timeout=0.5)
def nap(seconds: float) -> str:
    """Sleep, within its own 0.5 s limit."""
    time.sleep(seconds)
    return "awake"


@tool
def fail() -> str:
    """Always fails."""
    raise ValueError("no luck")


tools = [nap, fail]
'''


@pytest.fixture
def tools_py(tmp_path: Path) -> Path:
    path = tmp_path / "edge_tools.py"
    path.write_text(TOOLS_PY, encoding="utf-8")
    return path


def test_a_call_without_timeout_keeps_the_tools_own_limit(tools_py: Path) -> None:
    with Beside(0.5) as ref:
        done = toolrig("call", "nap", "seconds:=20", "--catalog", tools_py, "--json")
    assert done.returncode == 1, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "timeout" and "0.5 s" in error["message"], error
    assert ref.elapsed < 15  # the 20 s sleep was not waited for (the command starts in ~1 s)
    given = toolrig("call", "nap", "seconds:=0.9", "--timeout", "5", "--catalog", tools_py)
    assert given.returncode == 0 and "awake" in given.stdout  # --timeout replaces it


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["call", "fail"], 1),
        (["call", "nap", "seconds:=0"], 0),
        (["call", "nap", "seconds=x"], 1),
        (["plan", "check", "{plan}"], 1),
        (["plan", "run", "{plan}"], 1),
        (["plan", "run", "{good}"], 0),
    ],
    ids=["call-fails", "call-ok", "call-invalid", "plan-check", "plan-run", "plan-ok"],
)
def test_json_output_keeps_the_exit_code(
    tools_py: Path, tmp_path: Path, args: list[str], code: int
) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text("steps:\n  - {id: a, tool: fail}\n  - {id: b, tool: nope}\n", encoding="utf-8")
    if "run" in args:  # a plan that passes its check and fails when run
        plan.write_text("steps:\n  - {id: a, tool: fail}\n", encoding="utf-8")
    good = tmp_path / "good.yaml"
    good.write_text("steps:\n  - {id: a, tool: nap, params: {seconds: 0}}\n", encoding="utf-8")
    paths = {"{plan}": str(plan), "{good}": str(good)}
    argv = [paths.get(a, a) for a in args] + ["--catalog", str(tools_py)]
    text = toolrig(*argv)
    as_json = toolrig(*argv, "--json")
    assert text.returncode == as_json.returncode == code, (text.stdout, as_json.stdout)
    json.loads(as_json.stdout)  # and the output is JSON

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

from toolrig import tool
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


def fill_story(path: Path) -> dict[str, str]:
    """Runs that tell the statuses apart, made by real agents on a real SQLite log: a call
    refused with a hint, a run held for approval, one whose only non-success is a person's
    deny, one whose typed answer was rejected, and a plan with a step never run. The run ids,
    by what they show."""
    from toolrig.agent import ApprovalPolicy
    from toolrig.console._approvals import decide, stored_decisions
    from toolrig.runtime import Plan, PlanRunner, ToolExecutor
    from toolrig.storage import LogSessionStore

    @tool
    def unreachable(host: str) -> str:
        """Reach a host that is down."""
        raise ConnectionError(f"{host} is down")

    log = SQLiteExecutionLog(path)
    hint = Agent(
        "helper",
        "You help.",
        ScriptedModel([ModelTurn(calls=[("add", {"a": "two", "b": 3}, "bad")]), "Sorry."]),
        tools,
        log=log,
    ).run("add two and three", run_id="run-hint")

    def dba(script: list[object]) -> Agent:
        return Agent(
            "DBA",
            "You maintain the database.",
            ScriptedModel(script),
            tools,
            approval=ApprovalPolicy(destructive=True),
            log=log,
        )

    held = dba([ModelTurn(calls=[("drop_table", {"name": "logs"}, "k1")]), "Gone."]).run(
        "Drop logs.", session_id="held-session", run_id="run-held"
    )
    assert held.stop_reason == "approval"
    denier = dba([ModelTurn(calls=[("drop_table", {"name": "users"}, "d1")]), "Kept."])
    first = denier.run("Drop users.", session_id="deny-session", run_id="run-asked")
    assert first.stop_reason == "approval"
    decide(log, "deny-session", "d1", {"kind": "deny", "reason": "users stay"})
    decisions = stored_decisions(log, LogSessionStore(log).load("deny-session"))
    denied = denier.run(session_id="deny-session", approvals=decisions, run_id="run-denied")
    assert denied.output == "Kept."
    rejected = Agent(
        "counter",
        "You count.",
        ScriptedModel(["many", "lots"]),
        tools,
        output_type=int,
        log=log,
        raise_on_error=False,
    ).run("how many?", run_id="run-rejected")
    assert rejected.stop_reason == "error"
    plan = Plan.from_data(
        {
            "id": "plan-skip",
            "steps": [
                {"id": "a", "tool": "unreachable", "params": {"host": "db"}},
                {"id": "b", "tool": "echo", "params": {"text": "${a.output}"}},
            ],
        }
    )
    PlanRunner(ToolExecutor([*tools, unreachable]), store=log).run_sync(plan)
    log.close()
    return {
        "hint": hint.run_id,
        "held": "run-held",
        "asked": "run-asked",
        "denied": "run-denied",
        "rejected": "run-rejected",
        "plan": "plan-skip",
    }

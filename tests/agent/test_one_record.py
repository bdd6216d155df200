"""One record per call, whatever door the call comes through, and one decision per held call,
whatever door the decision comes through.

| rule | boundary | test |
|---|---|---|
| runs: one record | straight, composed, async, retried, refused, unknown | ``..._every_path`` |
| held: none yet | the run's status is held; the session holds it | ``..._held...`` |
| decided: one | denied, answered, approved; in the deciding run | ``..._decided...`` |
| nested | its own record, its parent call named | ``..._nested...`` |
| a plan step never run | one skipped record; the run failed, not the step | ``..._plan...`` |
| the agent's turns | messages, tools, settings recorded; secrets out | ``..._turn_input...`` |
| one decision | a console Deny, then a resume that allows: nothing runs | ``..._deny_then...`` |
| one decision | the same from a second process, and from the CLI | ``..._second...``, ``..._cli`` |
| one decision | the same decision again is no conflict | ``..._same_decision...`` |
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from agent_support import in_another_process
from file_tools import delete_file, read_file

from toolrig import BaseTool, ToolContext, ToolExecutor, action, tool
from toolrig.agent import Agent, AlreadyDecided, Answer, ApprovalPolicy, Deny
from toolrig.console._approvals import decide, held_calls, stored_decisions
from toolrig.runtime import Plan, PlanRunner
from toolrig.storage import ExecutionLog, LogSessionStore, SQLiteExecutionLog, open_log
from toolrig.testing import ModelTurn, ScriptedModel

ROOT = Path(__file__).resolve().parents[2]
FLAKY: list[int] = []


@tool(max_retries=1)
def flaky(n: int) -> int:
    """Fails on its first attempt."""
    FLAKY.append(n)
    if len(FLAKY) % 2:
        raise ConnectionError("try again")
    return n


@tool(timeout=5)
def bounded(n: int) -> int:
    """Runs on the composed path (it has a time limit)."""
    return n + 1


@tool
async def later(n: int) -> int:
    """An async tool."""
    return n * 2


@tool
def plain(n: int) -> int:
    """The straight line."""
    return n


class Outer(BaseTool):
    """Calls another tool from inside."""

    name = "outer"

    @action
    async def run(self, n: int, ctx: ToolContext) -> int:
        """Add one through the inner tool."""
        inner = await ctx.run_tool(plain, "plain", {"n": n})
        return int(inner.output) + 1


@pytest.fixture
def log(tmp_path: Path) -> ExecutionLog:
    return SQLiteExecutionLog(tmp_path / "log.sqlite3")


def test_a_call_that_runs_is_recorded_once_on_every_path(log: ExecutionLog) -> None:
    import asyncio

    FLAKY.clear()
    executor = ToolExecutor([flaky, bounded, later, plain])
    with log.run("r") as scope:
        executor.execute_sync("plain", {"n": 1}, tool_call_id="straight")
        executor.execute_sync("bounded", {"n": 1}, tool_call_id="composed")
        asyncio.run(executor.execute("later", {"n": 1}, tool_call_id="async"))
        executor.execute_sync("flaky", {"n": 1}, tool_call_id="retried")
        executor.execute_sync("plain", {"n": "x"}, tool_call_id="refused")
        executor.execute_sync("nothing_here", {}, tool_call_id="unknown")
        executor.execute_many_sync([("plain", {"n": 2}), ("bounded", {"n": 2})])
    assert scope.run_id == "r"
    records = log.get_run("r")
    by_id = {r.tool_call_id: r for r in records}
    assert len(records) == 8 == len({r.tool_call_id for r in records})  # one each
    assert by_id["retried"].attempts == 2 and by_id["retried"].status == "succeeded"
    assert by_id["refused"].error_code == "invalid_arguments"
    assert by_id["refused"].error_hint and "Parameters: n" in by_id["refused"].error_hint
    assert by_id["unknown"].status == "failed" and by_id["unknown"].error_code == "not_found"
    info = log.run_info("r")
    assert info is not None and info.status == "failed"  # a refused call failed
    executor.execute_sync("plain", {"n": 3})  # outside any run: not recorded
    assert len(log.query()) == 8


def test_a_nested_call_has_its_own_record_naming_its_parent(log: ExecutionLog) -> None:
    executor = ToolExecutor([Outer(), plain])
    with log.run("nested"):
        result = executor.execute_sync("outer.run", {"n": 1}, tool_call_id="outer-1")
    assert result.output == 2
    inner, outer = log.get_run("nested")  # the inner call finishes first
    assert (inner.executor, inner.parent_call_id) == ("plain", "outer-1")
    assert (outer.executor, outer.parent_call_id) == ("outer", None)


def test_a_plan_step_that_never_ran_is_skipped_not_failed(log: ExecutionLog) -> None:
    @tool
    def boom(n: int) -> int:
        """Fails."""
        raise ValueError("no")

    plan = Plan.from_data(
        {
            "id": "p1",
            "steps": [
                {"id": "a", "tool": "boom", "params": {"n": 1}},
                {"id": "b", "tool": "plain", "params": {"n": "${a.output}"}},
            ],
        }
    )
    PlanRunner(ToolExecutor([boom, plain]), store=log).run_sync(plan)
    by_step = {r.step_id: r for r in log.get_run("p1")}
    assert (by_step["a"].status, by_step["b"].status) == ("failed", "skipped")
    info = log.run_info("p1")
    assert info is not None and (info.kind, info.status) == ("plan", "failed")


def _cleaner(model: ScriptedModel, log: ExecutionLog) -> Agent:
    return Agent(
        "Cleaner",
        "You tidy.",
        model,
        [read_file, delete_file],
        approval=ApprovalPolicy(destructive=True),
        log=log,
    )


def _held(tmp_path: Path, log: ExecutionLog) -> tuple[Agent, str, Path, str]:
    """An agent run that read one file and holds the deletion of another."""
    target = tmp_path / "old.txt"
    target.write_text("old", encoding="utf-8")
    keep = tmp_path / "keep.txt"
    keep.write_text("keep", encoding="utf-8")
    model = ScriptedModel(
        [
            ModelTurn(
                calls=[
                    ("read_file", {"path": str(keep)}, "r1"),
                    ("delete_file", {"path": str(target)}, "d1"),
                ]
            ),
            "Done.",
        ]
    )
    agent = _cleaner(model, log)
    session = f"s-{uuid.uuid4().hex[:8]}"
    held = agent.run("Tidy up.", session_id=session)
    assert held.stop_reason == "approval"
    return agent, session, target, held.run_id


def test_a_held_call_is_not_recorded_and_its_run_is_held(tmp_path: Path, log: ExecutionLog) -> None:
    _, session, target, run_id = _held(tmp_path, log)
    records = log.get_run(run_id)
    assert [r.executor for r in records if r.executor_type == "tool"] == ["read_file"]
    info = log.run_info(run_id)
    assert info is not None
    assert (info.status, info.kind, info.name, info.session_id) == (
        "held",
        "agent",
        "Cleaner",
        session,
    )
    assert target.exists()


@pytest.mark.parametrize(
    ("decision", "status", "exists"),
    [
        (True, "succeeded", False),
        (Deny(reason="keep it"), "denied", True),
        (Answer(output="x"), "answered", True),
    ],
)
def test_a_decided_call_is_recorded_once_in_the_deciding_run(
    tmp_path: Path, log: ExecutionLog, decision: Any, status: str, exists: bool
) -> None:
    agent, session, target, first = _held(tmp_path, log)
    done = agent.run(session_id=session, approvals={"d1": decision})
    assert done.output == "Done." and target.exists() is exists
    every = [r for r in log.query() if r.executor_type == "tool"]
    assert [(r.run_id, r.tool_call_id) for r in every] == [(first, "r1"), (done.run_id, "d1")]
    assert every[1].status == status
    info = log.run_info(done.run_id)
    assert info is not None
    assert info.status == ("denied" if status == "denied" else "succeeded")
    assert info.session_id == session


def test_the_turn_input_is_recorded_with_secrets_redacted(
    tmp_path: Path, log: ExecutionLog
) -> None:
    model = ScriptedModel([ModelTurn(calls=[("plain", {"n": 1}, "c1")]), "ok"])
    agent = Agent("Counter", "You count.", model, [plain], log=log)
    result = agent.run("Count with api_key sk-abcdefghijklmnopqrstuvwx please.")
    turns = [r for r in log.get_run(result.run_id) if r.executor_type == "llm"]
    assert [t.step_id for t in turns] == ["turn1", "turn2"]
    first, second = (t.input_data for t in turns)
    assert first["system"].startswith("You are Counter")
    assert [m["role"] for m in first["messages"]] == ["user"]
    assert "sk-abc" not in json.dumps(first) and "[redacted]" in first["messages"][0]["content"]
    assert [t["name"] for t in first["tools"]] == ["plain", "attempt_completion"]
    assert all(len(t["schema_hash"]) == 16 for t in first["tools"])
    assert first["settings"]["model"] == "scripted"
    # the second turn is given what is new since the first: the model's call and its result
    assert second["first_message"] == 1 and "system" not in second
    assert [m["role"] for m in second["messages"]] == ["assistant", "tool"]
    assert first["tools"] == second["tools"]


def test_a_console_deny_then_a_resume_that_allows_runs_nothing(
    tmp_path: Path, log: ExecutionLog
) -> None:
    agent, session, target, _ = _held(tmp_path, log)
    decide(log, session, "d1", {"kind": "deny", "reason": "no"})
    with pytest.raises(AlreadyDecided, match="denied by console"):
        agent.run(session_id=session, approvals={"d1": True})
    assert target.exists()
    assert [r.tool_call_id for r in log.query() if r.executor_type == "tool"] == ["r1"]
    # the decision that stands is the console's, and a resume with it finishes the turn
    state = LogSessionStore(log).load(session)
    found = stored_decisions(log, state)
    assert found == {"d1": Deny(reason="no")}
    done = agent.run(session_id=session, approvals=found)
    assert done.output == "Done." and target.exists()
    assert [c for c in held_calls(log) if c.session_id == session] == []


def test_the_same_decision_twice_is_not_a_conflict(tmp_path: Path, log: ExecutionLog) -> None:
    agent, session, target, _ = _held(tmp_path, log)
    decide(log, session, "d1", {"kind": "allow"})
    with pytest.raises(AlreadyDecided):  # a second, different decision in the console
        decide(log, session, "d1", {"kind": "deny"})
    done = agent.run(session_id=session, approvals={"d1": True})
    assert done.output == "Done." and not target.exists()


CHILD = """
import json, sys
sys.path.insert(0, "tests/agent")
from file_tools import delete_file, read_file
from toolrig.agent import AlreadyDecided, Agent, ApprovalPolicy
from toolrig.storage import open_log
from toolrig.testing import ScriptedModel

agent = Agent("Cleaner", "You tidy.", ScriptedModel(["Done."]), [read_file, delete_file],
              approval=ApprovalPolicy(destructive=True), log=open_log(url))
try:
    agent.run(session_id=session, approvals={"d1": True})
    print(json.dumps({"raised": None}))
except AlreadyDecided as exc:
    print(json.dumps({"raised": str(exc)}))
"""


def test_a_console_deny_holds_against_a_second_process(tmp_path: Path) -> None:
    url = str(tmp_path / "shared.sqlite3")
    log = open_log(url)
    _, session, target, _ = _held(tmp_path, log)
    decide(log, session, "d1", {"kind": "deny", "reason": "no"})
    answer = in_another_process(CHILD, url=url, session=session)
    assert answer["raised"] and "denied by console" in answer["raised"]
    assert target.exists()


def test_a_console_deny_holds_against_the_cli(tmp_path: Path) -> None:
    url = str(tmp_path / "cli.sqlite3")
    log = open_log(url)
    _, session, target, _ = _held(tmp_path, log)
    decide(log, session, "d1", {"kind": "deny", "reason": "no"})
    tools = tmp_path / "tools.py"
    tools.write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'tests' / 'agent')!r})\n"
        "from file_tools import delete_file, read_file\ntools = [read_file, delete_file]\n",
        encoding="utf-8",
    )
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["Done."]), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "toolrig.cli.main", "agent", "--session", session,
         "--allow", "d1", "--log", url, "--catalog", str(tools), "--script", str(script),
         "--approve-destructive"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        check=False,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert "already decided" in said and "denied by console" in said, said
    assert target.exists()

"""Approvals: a call the policy names is held (it does not run), the run stops with it pending,
and a later run, in this process or another one, approves it, denies it with a reason the
model reads, or answers it by hand."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from agent_support import config, in_another_process
from file_tools import delete_file, read_file

from llm_server import ScriptedLLM, Turn, tool_results
from toolrig import ToolExecutor
from toolrig.agent import Agent, Answer, ApprovalPolicy, Deny
from toolrig.storage import LogSessionStore, open_log
from toolrig.testing import ModelTurn, ScriptedModel

CHILD = """
import json, sys
sys.path.insert(0, "tests/agent")
from file_tools import delete_file, read_file
from toolrig.agent import Agent, ApprovalPolicy, Deny, LLMConfig
from toolrig.storage import open_log

llm = LLMConfig(provider="openai", model="scripted", base_url=base, api_key="k", max_retries=0)
agent = Agent("Cleaner", "You tidy folders.", llm, [read_file, delete_file],
              approval=ApprovalPolicy(destructive=True), log=open_log(url))
decision = True if decide == "approve" else Deny(reason="keep it, it is the only copy")
result = agent.run(session_id=session, approvals={"d1": decision})
print(json.dumps({"output": result.output, "stop": result.stop_reason,
                  "steps": [[r.code for r in s.results] for s in result.steps]}))
"""


def _cleaner(server: ScriptedLLM, url: str, provider: str = "openai", **kwargs: Any) -> Agent:
    return Agent(
        "Cleaner",
        "You tidy folders.",
        config(provider, server),
        [read_file, delete_file],
        approval=ApprovalPolicy(destructive=True),
        log=open_log(url),
        **kwargs,
    )


@pytest.mark.parametrize(("decide", "backend"), [("approve", "sqlite"), ("deny", "postgres")])
def test_a_held_call_is_decided_in_another_process(
    decide: str, backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = (
        str(tmp_path / "log.sqlite3")
        if backend == "sqlite"
        else str(request.getfixturevalue("postgres_dsn"))
    )
    target = tmp_path / "old.txt"
    target.write_text("old notes", encoding="utf-8")
    keep = tmp_path / "keep.txt"
    keep.write_text("keep", encoding="utf-8")

    def after_the_decision(request: dict[str, Any]) -> Turn:
        results = tool_results(request)
        assert results["r1"] == ("keep", False)  # ran in the first process, kept for the turn
        text, is_error = results["d1"]
        if decide == "approve":
            assert (text, is_error) == ("deleted old.txt", False)
        else:
            assert is_error and "permission_denied" in text, text
            assert "keep it, it is the only copy" in text, text
        return Turn(text="Done." if decide == "approve" else "Left it alone.")

    session = f"s-{uuid.uuid4().hex[:8]}"
    script = [
        Turn(
            calls=[
                ("read_file", {"path": str(keep)}, "r1"),
                ("delete_file", {"path": str(target)}, "d1"),
            ]
        ),
        after_the_decision,
    ]
    with ScriptedLLM(script) as server:
        agent = _cleaner(server, url)
        held = agent.run("Delete old.txt.", session_id=session)
        assert held.stop_reason == "approval" and held.output is None
        assert [(p.tool_call_id, p.name, p.arguments) for p in held.pending] == [
            ("d1", "delete_file", {"path": str(target)})
        ]
        assert target.exists()  # held: it did not run
        stored = LogSessionStore(agent.log).load(session)  # type: ignore[arg-type]
        assert stored is not None and stored.pending is not None
        assert [p["id"] for p in stored.pending["pending"]] == ["d1"]
        child = in_another_process(
            CHILD, url=url, base=f"{server.url}/v1", session=session, decide=decide
        )
        assert agent.log is not None
        agent.log.close()
    assert server.errors == [] and server.refusals == []
    assert len(server.requests) == 2
    assert target.exists() is (decide == "deny")
    expected_code = None if decide == "approve" else "permission_denied"
    assert child["stop"] == "answer"
    assert child["steps"][0] == [None, expected_code]  # the held turn, finished


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic"])
def test_deny_and_answer_by_hand_in_one_process(provider: str, tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("a", encoding="utf-8")
    b.write_text("b", encoding="utf-8")

    def decided(request: dict[str, Any]) -> Turn:
        results = tool_results(request)
        assert results["x"][1] and "no deleting today" in results["x"][0], results
        assert results["y"] == ("pretend it is gone", False), results
        return Turn(text="OK.")

    script = [
        Turn(
            calls=[("delete_file", {"path": str(a)}, "x"), ("delete_file", {"path": str(b)}, "y")]
        ),
        decided,
    ]
    with ScriptedLLM(script) as server:
        agent = _cleaner(server, str(tmp_path / "log.sqlite3"), provider)
        held = agent.run("Delete both.")
        assert {p.tool_call_id for p in held.pending} == {"x", "y"}
        with pytest.raises(ValueError, match=r"no decision for held call\(s\) \['y'\]"):
            agent.run(session_id=held.session_id, approvals={"x": False})
        with pytest.raises(ValueError, match=r"no held call\(s\) \['z'\]"):
            agent.run(session_id=held.session_id, approvals={"x": False, "y": True, "z": True})
        with pytest.raises(ValueError, match="no decision for held call"):
            agent.run("Something else.", session_id=held.session_id)
        done = agent.run(
            session_id=held.session_id,
            approvals={
                "x": Deny(reason="no deleting today"),
                "y": Answer(output="pretend it is gone"),
            },
        )
    assert server.errors == [] and server.refusals == [] and done.output == "OK."
    assert a.exists() and b.exists()


def test_the_policy_can_name_tools_or_decide_per_call(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("t", encoding="utf-8")
    policy = ApprovalPolicy(
        tools={"read_file"}, when=lambda call: "secret" in str(call.arguments.get("path"))
    )
    script = [
        Turn(
            calls=[
                ("read_file", {"path": str(target)}, "named"),
                ("delete_file", {"path": str(tmp_path / "secret.txt")}, "picked"),
                ("delete_file", {"path": str(target)}, "free"),
            ]
        )
    ]
    with ScriptedLLM(script) as server:
        agent = Agent(
            "Cleaner",
            "You tidy.",
            config("openai", server),
            [read_file, delete_file],
            approval=policy,
        )
        held = agent.run("Tidy.")
    assert sorted(p.tool_call_id for p in held.pending) == ["named", "picked"]
    assert not target.exists()  # the call no rule named ran at once


def test_the_gate_holds_nothing_outside_an_agent_run(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("t", encoding="utf-8")
    executor = ToolExecutor([delete_file])
    with ScriptedLLM([]) as server:
        Agent(
            "Cleaner",
            "You tidy.",
            config("openai", server),
            executor,
            approval=ApprovalPolicy(destructive=True),
        )
    result = executor.execute_sync("delete_file", {"path": str(target)})
    assert result.success and not target.exists()
    executor.close()


def test_a_resume_may_bring_a_new_prompt_after_the_decided_results(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("t", encoding="utf-8")
    model = ScriptedModel([ModelTurn(calls=[("delete_file", {"path": str(target)}, "d")]), "ok"])
    agent = Agent(
        "Cleaner", "You tidy.", model, [delete_file], approval=ApprovalPolicy(destructive=True)
    )
    held = agent.run("Delete it.")
    done = agent.run("And say ok.", session_id=held.session_id, approvals={"d": True})
    roles = [m["role"] for m in model.requests[-1].messages]
    assert roles == ["system", "user", "assistant", "tool", "user"]  # the API's order
    assert done.output == "ok" and not target.exists()

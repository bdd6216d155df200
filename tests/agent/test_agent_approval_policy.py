"""The approval policy travels with the session: a run on a stored session follows the policy
stored with it joined with its agent's own, so a resume may tighten it and never drops it."""

from __future__ import annotations

from pathlib import Path

import pytest
from file_tools import delete_file, read_file

from toolrig.agent import Agent, ApprovalPolicy
from toolrig.storage import LogSessionStore, SQLiteExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel


def _agent(
    log: SQLiteExecutionLog, turns: list[ModelTurn | str], policy: ApprovalPolicy | None
) -> Agent:
    return Agent(
        "Cleaner", "You tidy.", ScriptedModel(turns), [read_file, delete_file], approval=policy,
        log=log,
    )  # fmt: skip


def _delete(path: Path, call_id: str) -> ModelTurn:
    return ModelTurn(calls=[("delete_file", {"path": str(path)}, call_id)])


def test_a_resume_without_the_policy_still_holds_a_new_destructive_call(tmp_path: Path) -> None:
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    for path in (old, new):
        path.write_text("x", encoding="utf-8")
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    held = _agent(log, [_delete(old, "d1")], ApprovalPolicy(destructive=True)).run(
        "Delete old.txt.", session_id="s"
    )
    assert [p.tool_call_id for p in held.pending] == ["d1"]
    # a second agent, built without any approval policy, decides the held call
    resumed = _agent(log, [_delete(new, "d2"), "Done."], None).run(
        session_id="s", approvals={"d1": True}
    )
    assert not old.exists()  # the approved call ran
    assert resumed.stop_reason == "approval" and [p.tool_call_id for p in resumed.pending] == ["d2"]
    assert new.exists()  # the new destructive call waits for its own approval
    stored = LogSessionStore(log).load("s")
    assert stored is not None and stored.policy == {
        "tools": [],
        "destructive": True,
        "when": False,
    }
    log.close()


def test_a_new_prompt_on_the_session_keeps_the_policy(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("x", encoding="utf-8")
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    first = _agent(log, ["Nothing to do."], ApprovalPolicy(destructive=True))
    assert first.run("Hello.", session_id="s").output == "Nothing to do."
    later = _agent(log, [_delete(target, "d1")], None).run("Delete t.txt.", session_id="s")
    assert later.stop_reason == "approval" and target.exists()
    log.close()


def test_a_resume_may_tighten_the_policy(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("x", encoding="utf-8")
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    read = ModelTurn(calls=[("read_file", {"path": str(target)}, "r1")])
    held = _agent(log, [read], ApprovalPolicy(tools={"read_file"})).run("Read.", session_id="s")
    assert [p.tool_call_id for p in held.pending] == ["r1"]
    tighter = _agent(log, [_delete(target, "d1"), "Done."], ApprovalPolicy(destructive=True))
    again = tighter.run(session_id="s", approvals={"r1": True})
    assert [p.tool_call_id for p in again.pending] == ["d1"] and target.exists()
    stored = LogSessionStore(log).load("s")
    assert stored is not None and stored.policy is not None
    assert stored.policy["tools"] == ["read_file"] and stored.policy["destructive"] is True
    log.close()


def test_a_when_rule_cannot_be_dropped_by_a_resume(tmp_path: Path) -> None:
    target = tmp_path / "secret.txt"
    target.write_text("x", encoding="utf-8")
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    policy = ApprovalPolicy(when=lambda call: "secret" in str(call.arguments.get("path")))
    held = _agent(log, [_delete(target, "d1")], policy).run("Delete.", session_id="s")
    assert held.stop_reason == "approval"
    with pytest.raises(ValueError, match="same when= rule"):
        _agent(log, ["Done."], ApprovalPolicy(destructive=True)).run(
            session_id="s", approvals={"d1": True}
        )
    assert target.exists()
    done = _agent(log, ["Done."], policy).run(session_id="s", approvals={"d1": True})
    assert done.output == "Done." and not target.exists()
    log.close()

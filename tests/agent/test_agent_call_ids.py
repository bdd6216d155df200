"""Call ids are unique within a session: a repeated id is renamed (``{id}-2``), so two calls
never show as one held call, an approval never reaches a later call that reuses its id, and the
model still gets every result under the id it sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from file_tools import delete_file

from toolrig.agent import Agent, AlreadyDecided, ApprovalPolicy
from toolrig.storage import SQLiteExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel


def _files(tmp_path: Path, *names: str) -> list[Path]:
    paths = [tmp_path / name for name in names]
    for path in paths:
        path.write_text(path.name, encoding="utf-8")
    return paths


def _cleaner(model: ScriptedModel, tmp_path: Path) -> Agent:
    return Agent(
        "Cleaner",
        "You tidy.",
        model,
        [delete_file],
        approval=ApprovalPolicy(destructive=True),
        log=SQLiteExecutionLog(tmp_path / "log.sqlite3"),
    )


def _tool_message_ids(model: ScriptedModel) -> list[str]:
    return [m["tool_call_id"] for m in model.requests[-1].messages if m["role"] == "tool"]


def test_two_calls_sharing_an_id_in_one_turn_are_held_apart(tmp_path: Path) -> None:
    a, b = _files(tmp_path, "a.txt", "b.txt")
    turn = ModelTurn(
        calls=[("delete_file", {"path": str(a)}, "dup"), ("delete_file", {"path": str(b)}, "dup")]
    )
    model = ScriptedModel([turn, "Deleted a, kept b."])
    agent = _cleaner(model, tmp_path)
    held = agent.run("Delete both.", session_id="s")
    assert [(p.tool_call_id, p.arguments["path"]) for p in held.pending] == [
        ("dup", str(a)),
        ("dup-2", str(b)),
    ]
    done = agent.run(session_id="s", approvals={"dup": True, "dup-2": False})
    assert done.output == "Deleted a, kept b."
    assert not a.exists() and b.exists()  # approving one ran only that one
    assert _tool_message_ids(model) == ["dup", "dup"]  # the provider's ids, as it sent them


def test_an_approval_does_not_reach_a_later_call_reusing_its_id(tmp_path: Path) -> None:
    first, second = _files(tmp_path, "first.txt", "second.txt")
    model = ScriptedModel(
        [
            ModelTurn(calls=[("delete_file", {"path": str(first)}, "c1")]),
            ModelTurn(calls=[("delete_file", {"path": str(second)}, "c1")]),  # the same id
            "Done.",
        ]
    )
    agent = _cleaner(model, tmp_path)
    agent.run("Delete first, then second.", session_id="s")
    again = agent.run(session_id="s", approvals={"c1": True})
    assert not first.exists()
    assert again.stop_reason == "approval"  # the reused id is a new call, held for its own yes
    assert [p.tool_call_id for p in again.pending] == ["c1-2"]
    assert second.exists()
    with pytest.raises(AlreadyDecided, match="c1 of session 's' were already decided"):
        agent.run(session_id="s", approvals={"c1": True})  # a retried decision: no effect
    assert second.exists()
    done = agent.run(session_id="s", approvals={"c1-2": True})
    assert done.output == "Done." and not second.exists()
    assert _tool_message_ids(model) == ["c1", "c1"]


def test_a_repeated_id_is_renamed_in_events_and_the_log(tmp_path: Path) -> None:
    a, b = _files(tmp_path, "a.txt", "b.txt")
    model = ScriptedModel(
        [
            ModelTurn(
                calls=[
                    ("delete_file", {"path": str(a)}, "x"),
                    ("delete_file", {"path": str(b)}, "x"),
                ]
            ),
            "ok",
        ]
    )
    agent = Agent("Cleaner", "You tidy.", model, [delete_file])  # no approvals at all
    done = agent.run("Delete both.")
    assert done.output == "ok" and not a.exists() and not b.exists()
    assert [c["id"] for c in done.steps[0].calls] == ["x", "x-2"]
    assert [r.metadata.tool_call_id for r in done.steps[0].results if r.metadata] == ["x", "x-2"]

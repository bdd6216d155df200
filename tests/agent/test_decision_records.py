"""One decision per held call, at the store: the first decision stands, the same one again is
no conflict, a different one is refused naming the first (both stores), and decisions convert
to and from what ``approvals=`` takes without losing a reason or an answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolrig.agent import AllowForSession, AlreadyDecided, Answer, Deny, Edit
from toolrig.agent._approval import PendingCall
from toolrig.agent._claim import as_decision, record_decisions, stored
from toolrig.storage import LogSessionStore, MemorySessionStore, SessionStore, SQLiteExecutionLog
from toolrig.storage._runs import DecisionTaken, StoredDecision

HELD = [PendingCall(tool_call_id="c1", name="drop", arguments={}, tool="drop")]


@pytest.fixture(params=["memory", "log"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> SessionStore:
    if request.param == "memory":
        return MemorySessionStore()
    return LogSessionStore(SQLiteExecutionLog(tmp_path / "log.sqlite3"))


def test_the_first_decision_stands_and_a_different_one_is_refused(store: SessionStore) -> None:
    first = StoredDecision(session_id="s", tool_call_id="c1", kind="deny", reason="no",
                           decided_by="console")  # fmt: skip
    assert store.decide(first).kind == "deny"
    again = StoredDecision(session_id="s", tool_call_id="c1", kind="deny", decided_by="run r")
    kept = store.decide(again)  # the same decision: no conflict, the first one kept
    assert (kept.reason, kept.decided_by) == ("no", "console")
    with pytest.raises(DecisionTaken) as taken:
        store.decide(StoredDecision(session_id="s", tool_call_id="c1", kind="allow"))
    assert taken.value.existing.kind == "deny" and "deny by console" in str(taken.value)
    assert store.decisions("s", ["c1", "c2"]).keys() == {"c1"}
    assert store.decisions("other", ["c1"]) == {}
    answer = StoredDecision(session_id="s", tool_call_id="c2", kind="answer", output={"n": 1})
    store.decide(answer)
    with pytest.raises(DecisionTaken):  # an answer with another output is another decision
        store.decide(StoredDecision(session_id="s", tool_call_id="c2", kind="answer", output=2))
    assert store.decisions("s", ["c2"])["c2"].output == {"n": 1}


@pytest.mark.parametrize(
    ("first", "word"),
    [(True, "approved"), (Deny(reason="no"), "denied"), (Answer(output=1), "answered")],
)
def test_a_resume_that_decides_otherwise_is_told_how_it_was_decided(
    store: SessionStore, first: object, word: str
) -> None:
    record_decisions(store, "s", HELD, {"c1": first}, "console")  # type: ignore[dict-item]
    other = first is not True  # the other way
    with pytest.raises(AlreadyDecided, match=f"{word} by console") as refused:
        record_decisions(store, "s", HELD, {"c1": other}, "run r2")
    assert refused.value.call_ids == ["c1"] and refused.value.session_id == "s"


def test_the_standing_decisions_are_returned(store: SessionStore) -> None:
    record_decisions(store, "s", HELD, {"c1": Deny(reason="keep it")}, "console")
    standing = record_decisions(store, "s", HELD, {"c1": Deny()}, "run r")  # the same kind
    assert standing == {"c1": Deny(reason="keep it")}  # the first reason stands


def test_decisions_convert_both_ways() -> None:
    allow = stored("s", "c", True, "run r")
    assert (allow.kind, allow.decided_by, allow.session_id, allow.tool_call_id) == (
        "allow",
        "run r",
        "s",
        "c",
    )
    answer = stored("s", "c", Answer(output={"x": 1}), "console")
    assert (answer.kind, answer.output, answer.decided_by) == ("answer", {"x": 1}, "console")
    deny = stored("s", "c", Deny(reason="no"), "console")
    assert (deny.kind, deny.reason, deny.decided_by) == ("deny", "no", "console")
    refused = stored("s", "c", False, "console")
    assert (refused.kind, refused.reason) == ("deny", Deny().reason)
    assert as_decision(allow) is True
    assert as_decision(answer) == Answer(output={"x": 1})
    assert as_decision(deny) == Deny(reason="no")
    assert as_decision(StoredDecision(session_id="s", tool_call_id="c", kind="deny")) == Deny()


@pytest.mark.parametrize(
    "decision",
    [
        True,
        AllowForSession(),
        Deny(reason="no"),
        Deny(),
        Answer(output={"x": 1}),
        Edit(arguments={"n": 2}, reason="smaller"),
        Edit(arguments={"n": 2}),
    ],
    ids=["allow", "allow_session", "deny", "deny_default", "answer", "edit", "edit_no_reason"],
)
def test_every_decision_survives_the_store_unchanged(decision: object) -> None:
    kept = stored("s", "c", decision, "console", {"n": 9})  # type: ignore[arg-type]
    assert (kept.session_id, kept.tool_call_id, kept.decided_by) == ("s", "c", "console")
    assert as_decision(kept) == decision


def test_each_kind_is_stored_under_its_own_word() -> None:
    assert stored("s", "c", AllowForSession(), "r").kind == "allow_session"
    edit = stored("s", "c", Edit(arguments={"n": 2}, reason="smaller"), "run r", {"n": 9})
    assert (edit.session_id, edit.tool_call_id, edit.kind, edit.reason, edit.decided_by) == (
        "s",
        "c",
        "edit",
        "smaller",
        "run r",
    )
    assert edit.output == {"arguments": {"n": 2}, "proposed": {"n": 9}}
    assert stored("s", "c", Edit(arguments={}), "r").reason is None  # no reason: none stored
    assert stored("s", "c", Edit(arguments={}), "r").output == {"arguments": {}, "proposed": None}


def test_an_edit_records_the_models_own_arguments(store: SessionStore) -> None:
    held = [PendingCall(tool_call_id="c1", name="drop", arguments={"n": 9}, tool="drop")]
    standing = record_decisions(store, "s", held, {"c1": Edit(arguments={"n": 2})}, "console")
    assert standing == {"c1": Edit(arguments={"n": 2})}
    kept = store.decisions("s", ["c1"])["c1"]
    assert kept.output == {"arguments": {"n": 2}, "proposed": {"n": 9}}


def test_a_refusal_names_no_decider_when_none_was_recorded(store: SessionStore) -> None:
    store.decide(StoredDecision(session_id="s", tool_call_id="c1", kind="deny"))
    with pytest.raises(AlreadyDecided) as refused:
        record_decisions(store, "s", HELD, {"c1": True}, "run r")
    assert "(it was denied)" in str(refused.value) and " by " not in str(refused.value)


def test_a_kind_without_a_word_is_named_as_stored(store: SessionStore) -> None:
    store.decide(StoredDecision(session_id="s", tool_call_id="c1", kind="later", decided_by="x"))
    with pytest.raises(AlreadyDecided, match=r"\(it was later by x\)"):
        record_decisions(store, "s", HELD, {"c1": True}, "run r")

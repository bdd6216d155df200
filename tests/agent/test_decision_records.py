"""One decision per held call, at the store: the first decision stands, the same one again is
no conflict, a different one is refused naming the first (both stores), and decisions convert
to and from what ``approvals=`` takes without losing a reason or an answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolrig.agent import AlreadyDecided, Answer, Deny
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

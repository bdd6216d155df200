"""Boundaries of two approval promises, each cell a test below.

*Deciding held calls claims them once* (``toolrig.agent._claim``):

| boundary        | cell                                                                    |
|-----------------|-------------------------------------------------------------------------|
| absent values   | no held turn and no decisions: nothing is refused                       |
| absent values   | a claim without a run id: refused, ``claimed_by`` is ``None``           |
| absent values   | the session expired / lost its held turn before the conflict: ``None`` |
| scope           | a decision for a call never used in the session is not "already decided"|
| scope           | a decision for a call still held is not "already decided"               |
| scope           | the claim records the held calls only, not other decisions sent        |
| every entry     | each decision form is recorded by its word (True, False, Deny, Answer,  |
|                 | Edit, AllowForSession)                                                  |
| failure path    | another run saved first: ``AlreadyDecided`` names the held calls and it |
| every store     | memory and SQLite session stores claim alike                            |

*A session keeps its approval policy* (``toolrig.agent._session_policy``): a resume joins
the stored policy with its own (tool names add up, ``destructive`` stays on, a ``when=`` rule
cannot be dropped) and never loosens it; property-based over tool-name sets and flags.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolrig.agent import (
    AllowForSession,
    AlreadyDecided,
    Answer,
    ApprovalPolicy,
    Decision,
    Deny,
    Edit,
    PendingCall,
)
from toolrig.agent._claim import check_not_decided, claim_held
from toolrig.agent._session_policy import policy_data, session_policy, standing_allows
from toolrig.storage import LogSessionStore, MemorySessionStore, SessionStore
from toolrig.storage._sessions import SessionConflict, SessionState
from toolrig.storage._sqlite import SQLiteExecutionLog


def _held(*ids: str) -> dict[str, object]:
    return {"pending": [{"id": i} for i in ids], "turn": 3}


def _state(*, pending: dict[str, object] | None = None, used: tuple[str, ...] = ()) -> SessionState:
    return SessionState(session_id="s1", pending=pending, call_ids=list(used))


def _call(call_id: str) -> PendingCall:
    return PendingCall(tool_call_id=call_id, name="launch", arguments={}, tool="launch")


# --- check_not_decided ------------------------------------------------------------------


def test_no_held_turn_and_no_decisions_refuses_nothing() -> None:
    check_not_decided(_state(), None)
    check_not_decided(_state(used=("c1",)), {})


def test_a_claimed_turn_is_refused_naming_the_held_calls_and_the_claimer() -> None:
    state = _state(pending={**_held("c1", "c2"), "claim": {"run_id": "run-7"}})
    with pytest.raises(AlreadyDecided) as caught:
        check_not_decided(state, None)
    assert caught.value.call_ids == ["c1", "c2"]
    assert caught.value.claimed_by == "run-7"
    assert caught.value.session_id == "s1"
    assert str(caught.value) == (
        "call(s) c1, c2 of session 's1' were already decided by run 'run-7'; nothing ran in "
        "this run. Load the session to see what is held now (the execution log has what the "
        "deciding run did)"
    )


def test_a_claim_without_a_run_id_is_refused_without_naming_a_run() -> None:
    state = _state(pending={**_held("c1"), "claim": {}})
    with pytest.raises(AlreadyDecided) as caught:
        check_not_decided(state, {"c1": True})
    assert caught.value.claimed_by is None
    assert "by run" not in str(caught.value)
    assert "were already decided; nothing ran" in str(caught.value)


def test_decisions_for_used_calls_no_longer_held_are_refused_sorted() -> None:
    state = _state(pending=_held("c3"), used=("c1", "c2", "c3"))
    with pytest.raises(AlreadyDecided) as caught:
        check_not_decided(state, {"c2": True, "c1": Deny(), "c3": True})
    assert caught.value.call_ids == ["c1", "c2"]
    assert caught.value.claimed_by is None
    assert caught.value.session_id == "s1"


def test_decisions_for_held_or_never_used_calls_are_not_already_decided() -> None:
    check_not_decided(_state(pending=_held("c1"), used=("c1",)), {"c1": True})
    check_not_decided(_state(pending=_held("c1"), used=("c1",)), {"c9": True})
    check_not_decided(_state(used=("c1",)), {"c9": False})


# --- claim_held ---------------------------------------------------------------------------


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SessionStore]:
    if request.param == "memory":
        yield MemorySessionStore()
        return
    log = SQLiteExecutionLog(tmp_path / "log.db")
    yield LogSessionStore(log)
    log.close()


def _saved_held(store: SessionStore, *ids: str) -> SessionState:
    return store.save(_state(pending=_held(*ids), used=ids))


def test_the_claim_records_each_held_call_by_its_word_and_the_run(store: SessionStore) -> None:
    state = _saved_held(store, "a", "b", "c", "d", "e", "f")
    held = [_call(i) for i in "abcdef"]
    decisions: dict[str, Decision] = {
        "a": True,
        "b": False,
        "c": Deny(reason="no"),
        "d": Answer(output=1),
        "e": Edit(arguments={"n": 1}),
        "f": AllowForSession(),
        "x": True,
    }
    before = time.time()
    written = claim_held(store, state, held, decisions, "run-1")
    claim = written.pending["claim"] if written.pending else None
    assert claim is not None
    assert claim["run_id"] == "run-1"
    assert claim["decisions"] == {
        "a": "approved",
        "b": "denied",
        "c": "denied",
        "d": "answered",
        "e": "edited",
        "f": "approved for the session",
    }
    assert before <= claim["at"] <= time.time()
    assert written.version == state.version + 1
    assert written.pending is not None and written.pending["turn"] == 3  # the rest is kept
    loaded = store.load("s1")
    assert loaded is not None and loaded.pending == written.pending


def test_a_second_claim_on_the_same_read_is_refused_naming_the_first(store: SessionStore) -> None:
    state = _saved_held(store, "a", "b")
    claim_held(store, state, [_call("a"), _call("b")], {"a": True, "b": True}, "run-1")
    with pytest.raises(AlreadyDecided) as caught:
        claim_held(store, state, [_call("a"), _call("b")], {"a": True, "b": True}, "run-2")
    assert caught.value.claimed_by == "run-1"
    assert caught.value.call_ids == ["a", "b"]
    assert caught.value.session_id == "s1"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.mark.parametrize("now", ["held turn gone", "no claim"])
def test_a_conflict_without_a_claim_to_name_names_no_run(store: SessionStore, now: str) -> None:
    state = _saved_held(store, "a")
    if now == "held turn gone":
        store.save(SessionState(session_id="s1", version=state.version))
    else:
        store.save(SessionState(session_id="s1", pending=_held("a"), version=state.version))
    with pytest.raises(AlreadyDecided) as caught:
        claim_held(store, state, [_call("a")], {"a": True}, "run-2")
    assert caught.value.claimed_by is None


# --- session_policy -----------------------------------------------------------------------

NAMES = st.frozensets(st.sampled_from(["a", "b", "c", "d"]))


def _rule(call: object) -> bool:
    return False


@given(stored=NAMES, own=NAMES, stored_d=st.booleans(), own_d=st.booleans())
def test_a_resume_joins_the_policies_and_never_loosens(
    stored: frozenset[str], own: frozenset[str], stored_d: bool, own_d: bool
) -> None:
    data = policy_data(ApprovalPolicy(tools=tuple(stored), destructive=stored_d))
    joined = session_policy("s", ApprovalPolicy(tools=tuple(own), destructive=own_d), data)
    assert joined is not None
    assert tuple(joined.tools) == tuple(sorted(stored | own))
    assert joined.destructive is (stored_d or own_d)
    assert joined.when is None


@given(stored=NAMES, stored_d=st.booleans())
def test_a_resume_without_a_policy_keeps_the_stored_one(
    stored: frozenset[str], stored_d: bool
) -> None:
    data = policy_data(ApprovalPolicy(tools=tuple(stored), destructive=stored_d))
    assert data == {"tools": sorted(stored), "destructive": stored_d, "when": False}
    joined = session_policy("s", None, data)
    assert joined is not None
    assert tuple(joined.tools) == tuple(sorted(stored))
    assert joined.destructive is stored_d and joined.when is None


def test_no_stored_policy_leaves_the_agents_own() -> None:
    own = ApprovalPolicy(tools=("a",), when=_rule)
    assert policy_data(None) is None
    assert session_policy("s", own, None) is own
    assert session_policy("s", own, {}) is own
    assert session_policy("s", None, None) is None


def test_the_tools_allowed_for_the_session_are_stored_and_read_back() -> None:
    data = policy_data(ApprovalPolicy(tools=("a",)), {"zeta", "alpha"})
    assert data == {
        "tools": ["a"],
        "destructive": False,
        "when": False,
        "allowed": ["alpha", "zeta"],
    }
    assert standing_allows(data) == ["alpha", "zeta"]
    assert "allowed" not in (policy_data(ApprovalPolicy(), ()) or {})  # none: no key
    assert standing_allows({"allowed": [1]}) == ["1"]  # read back as tool names
    for absent in (None, {}, {"allowed": None}, {"tools": ["a"]}):
        assert standing_allows(absent) == []
    no_tools = session_policy("s", None, {"destructive": True})  # a stored policy without tools
    assert no_tools is not None and no_tools.tools == () and no_tools.destructive


def test_a_when_rule_is_remembered_and_required_then_kept() -> None:
    data = policy_data(ApprovalPolicy(when=_rule))
    assert data == {"tools": [], "destructive": False, "when": True}
    for own in (None, ApprovalPolicy(tools=("a",), destructive=True)):
        with pytest.raises(ValueError, match="when= rule") as caught:
            session_policy("s", own, data)
        assert str(caught.value) == (
            "session 's' is governed by an approval policy with a when= rule, which cannot be "
            "stored: continue it with an agent whose ApprovalPolicy has the same when= rule"
        )
    joined = session_policy("s", ApprovalPolicy(when=_rule), data)
    assert joined is not None and joined.when is _rule
    kept = session_policy("s", ApprovalPolicy(when=_rule), {"tools": ["a"], "when": False})
    assert kept is not None and kept.when is _rule and not kept.destructive


class _ExpiringStore(MemorySessionStore):
    """A store of one's own whose sessions expire: the conflicting save finds none left."""

    def save(self, state: SessionState) -> SessionState:
        raise SessionConflict("expired")

    def load(self, session_id: str) -> SessionState | None:
        return None


def test_a_conflict_on_a_session_that_is_gone_names_no_run() -> None:
    state = _state(pending=_held("a"), used=("a",))
    with pytest.raises(AlreadyDecided) as caught:
        claim_held(_ExpiringStore(), state, [_call("a")], {"a": True}, "run-2")
    assert caught.value.claimed_by is None
    assert caught.value.call_ids == ["a"]

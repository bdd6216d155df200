"""The boundaries of the session promise: a session saved by one run is loaded whole by the
next, in memory and in each log database, and a save that did not read the newest version
is refused (`SessionConflict`) rather than dropping another run's turns.

| promise | boundary | test |
|---|---|---|
| loaded whole | messages, held calls, policy, call ids, version: each | ``test_every_field...`` |
| absent values | never saved: ``None``; no held calls, policy, ids, messages | ``test_absent...`` |
| absent values | messages ``None``; a row from before call ids were kept | ``..._absent_*`` |
| versions | first save 1, each save +1; the version read, not a count | ``test_versions...`` |
| conflicts | first save of a saved id; an older version; a newer one | ``test_a_stale...`` |
| conflicts | a later version of an id never saved | ``test_a_first_save...`` |
| conflict text | names the session, says to load it again | ``test_a_stale...`` |
| where | log tables by the log's prefix; no prefix; memory without a log | ``test_where...`` |
| scope | saving one session changes no other | ``test_versions...`` |
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolrig.storage import (
    LogSessionStore,
    MemorySessionStore,
    SessionConflict,
    SessionState,
    SessionStore,
    SQLiteExecutionLog,
    open_log,
)
from toolrig.storage._sessions import session_store


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SessionStore]:
    if request.param == "memory":
        yield MemorySessionStore()
        return
    url = (
        str(tmp_path / "log.sqlite3")
        if request.param == "sqlite"
        else str(request.getfixturevalue("postgres_dsn"))
    )
    log = open_log(url)
    yield LogSessionStore(log)
    log.close()


def _id() -> str:
    return f"s-{uuid.uuid4().hex[:8]}"


FULL: dict[str, Any] = {
    "messages": [{"role": "user", "content": "Tidy ü"}, {"role": "assistant", "content": None}],
    "pending": {"calls": [{"id": "d1", "name": "delete_file", "arguments": {"path": "/x"}}]},
    "policy": {"tools": ["delete_file"], "destructive": True},
    "call_ids": ["d1", "d2"],
}


def test_every_field_comes_back_as_it_was_saved(store: SessionStore) -> None:
    session = _id()
    saved = store.save(SessionState(session_id=session, **FULL))
    loaded = store.load(session)
    assert loaded == saved == SessionState(session_id=session, version=1, **FULL)


def test_absent_values_come_back_absent(store: SessionStore) -> None:
    assert store.load(_id()) is None
    session = _id()
    store.save(SessionState(session_id=session))
    assert store.load(session) == SessionState(
        session_id=session, messages=[], pending=None, policy=None, call_ids=[], version=1
    )


def test_absent_messages_are_stored_as_none(store: SessionStore) -> None:
    session = _id()
    store.save(SessionState(session_id=session, messages=None))  # type: ignore[arg-type]
    loaded = store.load(session)
    assert loaded is not None and loaded.messages in ([], None)
    if isinstance(store, LogSessionStore):
        assert loaded.messages == []


def test_a_session_saved_before_call_ids_were_kept_has_none(tmp_path: Path) -> None:
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    log._conn().execute(
        "INSERT INTO agent_sessions (session_id, messages, pending, version, updated_at) "
        "VALUES ('old', '[]', NULL, 3, 0)"
    )
    loaded = LogSessionStore(log).load("old")
    assert loaded == SessionState(session_id="old", version=3)
    assert loaded.call_ids == [] and loaded.policy is None
    log.close()


def test_versions_count_the_saves_of_one_session_only(store: SessionStore) -> None:
    one, other = _id(), _id()
    state = store.save(SessionState(session_id=one, messages=[{"n": 1}]))
    assert state.version == 1
    store.save(SessionState(session_id=other))
    for n in (2, 3):
        state = store.save(SessionState(session_id=one, messages=[{"n": n}], version=n - 1))
        assert state.version == n
    assert store.load(one) == SessionState(session_id=one, messages=[{"n": 3}], version=3)
    assert store.load(other) == SessionState(session_id=other, version=1)


@pytest.mark.parametrize("read", [0, 1, 3])
def test_a_stale_or_unknown_version_is_refused_and_keeps_the_stored_one(
    store: SessionStore, read: int
) -> None:
    session = _id()
    store.save(SessionState(session_id=session, messages=[{"n": 1}]))
    newest = store.save(SessionState(session_id=session, messages=[{"n": 2}], version=1))
    if read == newest.version:
        read += 1  # a version no save produced
    with pytest.raises(SessionConflict) as refused:
        store.save(SessionState(session_id=session, messages=[{"lost": True}], version=read))
    assert str(refused.value) == (
        f"session {session!r} was saved by another run since this one loaded it; load it "
        "again (run again with the same session_id) to continue from the newest state"
    )
    assert store.load(session) == newest


def test_a_first_save_of_an_unknown_id_at_a_later_version_is_refused(store: SessionStore) -> None:
    session = _id()
    with pytest.raises(SessionConflict):
        store.save(SessionState(session_id=session, version=1))
    assert store.load(session) is None


def test_where_sessions_live(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    assert isinstance(session_store(None), MemorySessionStore)
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    chosen = session_store(log)
    assert isinstance(chosen, LogSessionStore) and chosen.log is log
    assert chosen.table == "agent_sessions"
    log.table = "toolrig_calls_v2"  # no ``executions`` suffix: no prefix either
    assert LogSessionStore(log).table == "agent_sessions"
    log.close()
    postgres = open_log(str(request.getfixturevalue("postgres_dsn")))
    stored = LogSessionStore(postgres)
    assert stored.table == "toolrig_agent_sessions"
    session = _id()
    before = time.time()
    stored.save(SessionState(session_id=session))
    row = (
        postgres._conn()
        .execute(
            "SELECT version, updated_at FROM toolrig_agent_sessions WHERE session_id = %s",
            [session],
        )
        .fetchone()
    )
    assert row[0] == 1 and before <= row[1] <= time.time()
    postgres.close()

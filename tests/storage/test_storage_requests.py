"""The request log: (request, tool) pairs stored only when enabled, read back, purged; on
SQLite and PostgreSQL, added to logs that already exist."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from toolrig.storage import ExecutionLog, RequestLog, SQLiteExecutionLog


@pytest.fixture(autouse=True)
def _no_pairs_left(request: pytest.FixtureRequest) -> None:
    """The PostgreSQL database is shared by the session: each test starts with no pairs."""
    if "log" in request.fixturenames:
        RequestLog(request.getfixturevalue("log")).purge()


def test_nothing_is_stored_unless_enabled(log: ExecutionLog) -> None:
    off = RequestLog(log)
    assert off.record("what is the weather in Oslo", "weather") is False
    assert off.pairs() == []
    on = RequestLog(log, enabled=True)
    assert on.record("what is the weather in Oslo", "weather", run_id="r1") is True
    assert on.record("   ", "weather") is False  # a blank request says nothing
    [pair] = off.pairs()  # reading works either way
    assert (pair.request, pair.tool, pair.succeeded, pair.run_id) == (
        "what is the weather in Oslo",
        "weather",
        True,
        "r1",
    )


def test_pairs_newest_first_successful_by_default_and_filtered(log: ExecutionLog) -> None:
    requests = RequestLog(log, enabled=True)
    requests.record("old request", "a", created_at=100.0)
    requests.record("failed request", "b", succeeded=False, created_at=200.0)
    requests.record("new request", "c", source="search", created_at=300.0)
    assert [p.tool for p in requests.pairs()] == ["c", "a"]
    assert [p.tool for p in requests.pairs(successful_only=False)] == ["c", "b", "a"]
    assert [p.tool for p in requests.pairs(since=150.0)] == ["c"]
    assert [p.tool for p in requests.pairs(limit=1)] == ["c"]
    assert requests.pairs()[0].source == "search"
    with pytest.raises(ValueError, match="limit"):
        requests.pairs(limit=-1)


def test_purge_by_age_tool_run_or_everything(log: ExecutionLog) -> None:
    requests = RequestLog(log, enabled=True)
    for i, tool in enumerate(["a", "a", "b", "c"]):
        requests.record(f"request {i}", tool, run_id=f"run{i % 2}", created_at=float(i))
    assert requests.purge(before=1.0) == 1
    assert requests.purge(tool="b") == 1
    assert [p.request for p in requests.pairs()] == ["request 3", "request 1"]
    assert requests.purge(run_id="run1") == 2
    requests.record("again", "a")
    assert log.purge_requests() == 1  # the execution log purges them too
    assert requests.pairs() == []


def test_long_requests_are_cut_and_bad_names_refused(log: ExecutionLog) -> None:
    requests = RequestLog(log, enabled=True)
    requests.record("x" * 20_000, "a")
    assert len(requests.pairs()[0].request) == 10_000
    with pytest.raises(TypeError):
        requests.record("a request", "")


def test_the_table_is_added_to_an_existing_log_once(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite3"
    SQLiteExecutionLog(path).close()  # a log made before request pairs existed
    first = SQLiteExecutionLog(path)
    RequestLog(first, enabled=True).record("weather in Oslo", "weather")
    again = RequestLog(SQLiteExecutionLog(path))  # migrating again keeps what is there
    assert [p.tool for p in again.pairs()] == ["weather"]
    with sqlite3.connect(path) as db:
        versions = db.execute("SELECT component, version FROM toolrig_component_versions")
        assert list(versions) == [("tool_requests", 1)]
        db.execute("UPDATE toolrig_component_versions SET version = 99")
    with pytest.raises(RuntimeError, match="newer than this toolrig"):
        RequestLog(SQLiteExecutionLog(path))

"""The boundaries of the execution log's promises: a record that cannot be written is never
dropped silently (counted for its run, told, warned about, raised to a direct writer), what is
written is read back by every filter and nothing else, and a result without metadata is still
recorded.

| promise | boundary | test |
|---|---|---|
| never silent | a refused insert; an error whose message cannot be shown | ``..._lost_*`` |
| never silent | counted per run, total, unknown run 0; each listener told | ``..._lost_*`` |
| never silent | every write of a run failed: the summary says so | ``..._every_write..`` |
| recording | each result, with its hint, step, parent call, version | ``..._recording...`` |
| absent values | a result without metadata; a failure keeps no output | ``..._metadata`` |
| as given | times, attempts, cost (given over the result's), version | ``..._tool_result...`` |
| queries | each filter alone and nothing else; ``since`` in, ``until`` out | ``..._filter...`` |
| queries | ``action``; ``after_id``: a record written late that started early | ``..._filter...`` |
| queries | order both ways; ``limit`` 0 and n; a negative one refused | ``..._each_filter...`` |
| usage | succeeded only, or all but skipped; ``since``; calls only; actions | ``..._usage...`` |
| connections | ``close`` and ``with`` close them; the next use reopens | ``..._close...`` |
| run id | required: an empty one is refused before anything is written | ``..._run_id...`` |
| absent values | no tool name: "?"; no attempts: one; the default cut | ``..._unknown``, ... |
| connections | one the server closed is opened again | ``..._server_closed...`` |
| requests | purged by age, tool, run, or all | ``..._purge_requests...`` |
"""

from __future__ import annotations

import sqlite3
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest

from toolrig import ToolResult
from toolrig.core.context._recording import Recording
from toolrig.core.result._result import ErrorInfo, ResultMetadata
from toolrig.storage import ExecutionLog, LogWriteWarning, SQLiteExecutionLog, WriteFailure


def _run() -> str:
    return f"run-{uuid.uuid4().hex[:8]}"


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no words")


def _refusing(path: Path, error: BaseException) -> SQLiteExecutionLog:
    log = SQLiteExecutionLog(path)

    def refuse(row: tuple[Any, ...]) -> int:
        raise error

    log._insert = refuse  # type: ignore[method-assign]
    return log


def test_lost_writes_are_counted_per_run_told_and_warned(tmp_path: Path) -> None:
    log = _refusing(tmp_path / "log.sqlite3", sqlite3.OperationalError("disk I/O error"))
    first: list[WriteFailure] = []
    second: list[WriteFailure] = []
    log.add_failure_listener(first.append)
    log.add_failure_listener(second.append)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(sqlite3.OperationalError):
            log.add_result(
                "fetch", "tool", None, {}, None, "failed", run_id="r1", tool_call_id="c1"
            )
        log.remove_failure_listener(second.append)
        with pytest.raises(sqlite3.OperationalError):
            log.add_result("fetch", "tool", None, {}, None, "failed", run_id="r1", step_id="s")
        with pytest.raises(sqlite3.OperationalError):
            log.add_result("store", "tool", None, {}, None, "failed", run_id="r2")
    assert [w.category for w in caught] == [LogWriteWarning] * 3
    assert (log.failed_writes("r1"), log.failed_writes("r2"), log.failed_writes()) == (2, 1, 3)
    assert log.failed_writes("never") == 0
    error = "OperationalError: disk I/O error"
    assert first == [
        WriteFailure(run_id="r1", executor="fetch", tool_call_id="c1", error=error),
        WriteFailure(run_id="r1", executor="fetch", step_id="s", error=error),
        WriteFailure(run_id="r2", executor="store", error=error),
    ]
    assert second == first[:1]
    texts = [str(w.message) for w in caught]
    assert len(texts) == 3 and all(repr(log) in t for t in texts)
    assert f"could not record a call of 'fetch' in run 'r1': {error}" in texts[0]
    assert "'store' in run 'r2'" in texts[2]
    log.close()


def test_lost_when_the_error_cannot_be_shown(tmp_path: Path) -> None:
    log = _refusing(tmp_path / "log.sqlite3", Unprintable())
    told: list[WriteFailure] = []
    log.add_failure_listener(told.append)
    with pytest.warns(LogWriteWarning), pytest.raises(Unprintable):
        log.add_result("t\ud800", "tool", None, {}, None, "failed", run_id="r\ud800")
    assert told[0].error == "Unprintable: (its message could not be rendered)"
    assert told[0].executor == "t\ufffd" and told[0].run_id == "r\ufffd"
    assert log.failed_writes("r\ufffd") == 1
    log.close()


def test_lost_when_every_write_of_a_run_failed_the_summary_says_so(tmp_path: Path) -> None:
    log = _refusing(tmp_path / "log.sqlite3", sqlite3.OperationalError("disk full"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LogWriteWarning)
        for _ in range(2):
            Recording(sink=log, run_id="r").record(ToolResult(success=True, output=1), {})
    assert log.get_summary("r") == "Run r: no results yet. 2 could not be recorded."
    assert log.get_summary("other") == "Run other: no results yet."
    log.close()


def test_the_recording_scope_records_each_result_it_is_given(log: ExecutionLog) -> None:
    run = _run()
    scope = Recording(sink=log, run_id=run)
    done = ToolResult(success=True, output="fine")
    failed = ToolResult(
        success=False,
        error=ErrorInfo(code="timeout", message="slow", hint="try later"),
        output="partial",
    )
    scope.record(done, {"text": "hi"})
    scope.narrowed(step_id="s2", parent_call_id="p1").record(failed, {"text": "again"}, "2.0")
    records = log.get_run(run)
    assert [(r.status, r.input_data, r.output) for r in records] == [
        ("succeeded", {"text": "hi"}, "fine"),
        ("failed", {"text": "again"}, None),
    ]
    second = records[1]
    assert (second.error_code, second.error_message, second.error_hint) == (
        "timeout",
        "slow",
        "try later",
    )
    assert (second.step_id, second.parent_call_id, second.tool_version) == ("s2", "p1", "2.0")
    assert second.sent_text == "Error [timeout]: slow\nHint: try later"


def test_a_result_without_metadata(log: ExecutionLog) -> None:
    run = _run()
    before = time.time()
    Recording(sink=log, run_id=run).record(ToolResult(success=True, output=[1]), None)
    (record,) = log.get_run(run)
    assert (record.executor, record.action, record.tool_call_id) == ("?", None, None)
    assert (record.attempts, record.cost, record.duration_ms, record.tool_version) == (
        1,
        None,
        0,
        None,
    )
    assert before <= record.started_at == record.finished_at <= time.time()
    assert (record.executor_type, record.output, record.error_code) == ("tool", [1], None)


def test_a_tool_result_is_recorded_as_given(log: ExecutionLog) -> None:
    run = _run()
    meta = ResultMetadata(
        tool="shelf",
        action="burn",
        tool_call_id="c7",
        started_at=1_788_240_599.353559,
        duration_ms=4_370.414999567778,  # derived from the two times, it would come out off
        attempts=3,
        cost=0.5,
    )
    failed = ToolResult(
        success=False,
        output="ignored",
        error=ErrorInfo(code="permission_denied", message="no"),
        metadata=meta,
    )
    scope = Recording(sink=log, run_id=run)
    scope.narrowed(step_id="s1").record(failed, {"t": 1})
    scope.narrowed(cost=2.0).record(failed, None, "1.2")
    first, second = log.get_run(run)
    assert (first.executor, first.action, first.tool_call_id, first.step_id) == (
        "shelf",
        "burn",
        "c7",
        "s1",
    )
    assert (first.executor_type, first.input_data, first.output) == ("tool", {"t": 1}, None)
    assert (first.status, first.error_code, first.error_message) == (
        "failed",
        "permission_denied",
        "no",
    )
    assert (first.started_at, first.duration_ms) == (meta.started_at, meta.duration_ms)
    assert first.finished_at == meta.started_at + meta.duration_ms / 1000
    assert (first.attempts, first.cost, first.tool_version) == (3, 0.5, None)
    assert (second.cost, second.tool_version, second.step_id) == (0.5, "1.2", None)  # its own


def test_each_filter_finds_its_records_and_nothing_else(log: ExecutionLog) -> None:
    run, other = _run(), _run()
    rows = [
        ("fetch", "succeeded", "s1", 100.0, run, None),
        ("fetch", "failed", "s2", 200.0, run, "head"),
        ("store", "success", "s1", 300.0, run, None),  # a legacy word, stored as succeeded
        ("fetch", "skipped", None, 50.0, other, "get"),  # written last, started first
    ]
    ids = [
        log.add_result(
            tool, "tool", action, None, None, status, run_id=r, step_id=step, started_at=t
        )
        for tool, status, step, t, r, action in rows
    ]

    def found(**filters: Any) -> list[int]:
        return [r.id for r in log.query(**filters) if r.run_id in (run, other)]  # type: ignore[misc]

    assert found() == ids
    assert found(run_id=run) == ids[:3] and log.get_run(other) == log.query(run_id=other)
    assert found(tool="store") == [ids[2]]
    assert found(status="succeeded") == [ids[0], ids[2]] == found(status="success")
    assert found(status="skipped") == [ids[3]]
    assert found(step_id="s1") == [ids[0], ids[2]]
    assert found(action="get") == [ids[3]] and found(tool="fetch", action="head") == [ids[1]]
    assert found(tool="store", action="get") == []
    assert found(after_id=ids[1]) == ids[2:] and found(after_id=ids[3]) == []
    assert found(after_id=ids[0], since=100.0) == ids[1:3]  # the late writer started before
    assert found(since=200.0, until=400.0) == ids[1:3]
    assert found(run_id=run, tool="fetch", status="failed", step_id="s2") == [ids[1]]
    assert [r.id for r in log.query(run_id=run, newest_first=True)] == ids[2::-1]
    assert [r.id for r in log.query(run_id=run, limit=2)] == ids[:2]
    assert log.query(run_id=run, limit=0) == []
    with pytest.raises(ValueError, match=r"^limit must be positive$"):
        log.query(limit=-1)
    with pytest.raises(ValueError, match="status must be one of"):
        log.query(status="done")


def test_usage_counts_what_it_says(log: ExecutionLog) -> None:
    tag = uuid.uuid4().hex[:6]
    solo, multi = f"solo{tag}", f"multi{tag}"
    rows = [
        (solo, solo, "succeeded", "tool", 100.0),
        (solo, solo, "failed", "tool", 100.0),
        (solo, solo, "skipped", "tool", 100.0),
        (solo, solo, "succeeded", "step", 100.0),  # a plan step, not a call
        (multi, "read", "succeeded", "tool", 50.0),
        (multi, "burn", "succeeded", "tool", 300.0),
    ]
    for tool, action, status, kind, started in rows:
        log.add_result(tool, kind, action, None, None, status, run_id=_run(), started_at=started)

    def counts(**options: Any) -> dict[str, int]:
        return {k: v for k, v in log.tool_usage(**options).items() if tag in k}

    assert counts() == {solo: 1, multi: 2, f"{multi}.read": 1, f"{multi}.burn": 1}
    assert counts(successful_only=False) == {
        solo: 2,
        multi: 2,
        f"{multi}.read": 1,
        f"{multi}.burn": 1,
    }
    assert counts(since=100.0) == {solo: 1, multi: 1, f"{multi}.burn": 1}


def test_close_and_with_close_every_connection_and_the_next_use_reopens(tmp_path: Path) -> None:
    with SQLiteExecutionLog(tmp_path / "log.sqlite3") as log:
        conn = log._conn()
        assert log._conn() is conn
        log.add_result("t", "tool", None, None, None, "succeeded", run_id="r")
    with pytest.raises(sqlite3.ProgrammingError):
        conn.execute("SELECT 1")
    assert len(log.get_run("r")) == 1  # reopened
    log.close()


def test_run_id_is_required(tmp_path: Path) -> None:
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    with pytest.raises(ValueError, match=r"^run_id is required: it groups the records of one run$"):
        log.add_result("t", "tool", None, None, None, "succeeded", run_id="")
    assert log.query() == [] and log.failed_writes() == 0
    log.close()


def test_lost_without_a_tool_name_names_it_unknown(tmp_path: Path) -> None:
    log = _refusing(tmp_path / "log.sqlite3", sqlite3.OperationalError("disk full"))
    told: list[WriteFailure] = []
    log.add_failure_listener(told.append)
    with pytest.warns(LogWriteWarning), pytest.raises(sqlite3.OperationalError):
        log.add_result("", "tool", None, None, None, "failed", run_id="r")
    assert told[0].executor == "?"
    log.close()


def test_a_record_made_one_attempt_unless_told(log: ExecutionLog) -> None:
    run = _run()
    log.add_result("t", "tool", None, None, None, "succeeded", run_id=run)
    log.add_result("t", "tool", None, None, None, "succeeded", run_id=run, attempts=3)
    assert [r.attempts for r in log.get_run(run)] == [1, 3]


def test_the_summary_cuts_each_output_at_400_characters_by_default(log: ExecutionLog) -> None:
    run = _run()
    log.add_result("t", "tool", None, None, "x" * 1_000, "succeeded", run_id=run)
    line = log.get_summary(run).splitlines()[-1]
    assert line == "1. [ok] t -> " + "x" * 400 + "... [600 more characters cut]"


def test_close_a_connection_the_server_closed_is_opened_again(
    request: pytest.FixtureRequest,
) -> None:
    from toolrig.storage import open_log

    log = open_log(str(request.getfixturevalue("postgres_dsn")))
    conn = log._conn()
    conn.close()  # as when the server drops it
    run = _run()
    log.add_result("t", "tool", None, None, None, "succeeded", run_id=run)
    assert log._conn() is not conn and len(log.get_run(run)) == 1
    log.close()


def test_purge_requests_by_each_filter(log: ExecutionLog) -> None:
    from toolrig.storage._requests import RequestLog

    requests = RequestLog(log, enabled=True)
    requests.purge()
    requests.record("old", "a", run_id="r1", created_at=1.0)
    requests.record("new a", "a", run_id="r2", created_at=5.0)
    requests.record("new b", "b", run_id="r2", created_at=5.0)
    requests.record("mine", "c", run_id="r3", created_at=5.0)
    assert log.purge_requests(before=2.0) == 1
    assert log.purge_requests(tool="b") == 1
    assert log.purge_requests(run_id="r3") == 1
    assert [p.request for p in requests.pairs()] == ["new a"]
    assert log.purge_requests() == 1

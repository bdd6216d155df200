"""Execution log: recording, queries, summaries, durability and concurrent writers, on SQLite
and PostgreSQL alike."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from toolrig import ToolExecutor, tool
from toolrig.storage import ExecutionLog, SQLiteExecutionLog, default_log_path, open_log


def run_id() -> str:
    return f"run-{uuid.uuid4().hex[:8]}"


def test_add_result_and_query(log: ExecutionLog) -> None:
    run = run_id()
    first = log.add_result(
        "fetch",
        "tool",
        "get",
        {"url": "u"},
        {"title": "T"},
        "success",
        run_id=run,
        step_id="s1",
        tool_call_id="c1",
        duration_ms=12.5,
        cost=0.01,
    )
    second = log.add_result(
        "analyze",
        "tool",
        "analyze",
        {"text": "x"},
        None,
        "error",
        "boom happened",
        run_id=run,
        step_id="s2",
        error_code="execution_error",
        attempts=3,
    )
    assert second > first
    records = log.get_run(run)
    assert [r.executor for r in records] == ["fetch", "analyze"]
    fetch, analyze = records
    assert fetch.input_data == {"url": "u"} and fetch.output == {"title": "T"}
    assert fetch.ok and fetch.step_id == "s1" and fetch.tool_call_id == "c1"
    assert fetch.duration_ms == 12.5 and fetch.cost == 0.01
    assert abs(fetch.finished_at - fetch.started_at - 0.0125) < 1e-6
    assert not analyze.ok and analyze.error_code == "execution_error" and analyze.attempts == 3
    assert [r.executor for r in log.query(run_id=run, status="failed")] == ["analyze"]
    assert analyze.status == "failed" and fetch.status == "succeeded"  # "error" was given
    assert [r.executor for r in log.query(run_id=run, status="error")] == ["analyze"]
    with pytest.raises(ValueError, match="status must be one of"):
        log.query(run_id=run, status="fine")
    assert [r.step_id for r in log.query(run_id=run, tool="fetch")] == ["s1"]
    assert log.query(run_id=run, since=time.time() + 60) == []
    assert len(log.query(run_id=run, since=time.time() - 60, until=time.time() + 1)) == 2
    assert [r.executor for r in log.query(run_id=run, newest_first=True, limit=1)] == ["analyze"]
    with pytest.raises(ValueError, match="status must be one of"):
        log.add_result("x", "tool", None, None, None, "weird", run_id=run)
    with pytest.raises(ValueError, match="run_id is required"):
        log.add_result("x", "tool", None, None, None, "success", run_id="")


def test_executor_calls_are_recorded(log: ExecutionLog) -> None:
    @tool
    def divide(a: float, b: float) -> float:
        return a / b

    run = run_id()
    executor = ToolExecutor([divide])
    with log.run(run):
        executor.execute_sync("divide", a=1, b=4, tool_call_id="ok-call")
        executor.execute_sync("divide", a=1, b=0)
        executor.execute_sync("divide", a="x", b=1)
    executor.execute_sync("divide", a=1, b=2)  # outside the run: not recorded
    records = log.get_run(run)
    assert [r.status for r in records] == ["succeeded", "failed", "failed"]
    assert records[0].output == 0.25 and records[0].tool_call_id == "ok-call"
    assert records[0].input_data == {"a": 1.0, "b": 4.0}
    assert [r.error_code for r in records[1:]] == ["execution_error", "invalid_arguments"]
    assert "ZeroDivisionError" in (records[1].error_message or "")
    info = log.run_info(run)
    assert info is not None and (info.kind, info.status) == ("calls", "failed")


def test_summary_is_bounded_and_keeps_errors(log: ExecutionLog) -> None:
    run = run_id()
    log.add_result("fetch", "tool", None, None, "x" * 5000, "success", run_id=run)
    for i in range(30):
        log.add_result(
            f"step{i}", "tool", None, None, {"i": i, "pad": "y" * 100}, "success", run_id=run
        )
    log.add_result(
        "analyze",
        "tool",
        None,
        None,
        None,
        "error",
        "the parser failed on line 3",
        run_id=run,
        error_code="execution_error",
    )
    summary = log.get_summary(run, max_chars=1500, max_output_chars=200)
    assert len(summary) <= 1500
    assert summary.startswith(f"Run {run}: 32 results (31 ok, 1 failed).")
    assert "[execution_error] analyze: the parser failed on line 3" in summary
    assert "earlier results omitted" in summary
    assert "step29" in summary  # newest kept
    full = log.get_summary(run, max_chars=100_000, max_output_chars=200)
    assert "[4800 more characters cut]" in full and "step0" in full
    assert log.get_summary("nothing-here") == "Run nothing-here: no results yet."


def test_large_values_are_stored_cut_with_a_marker(log: ExecutionLog) -> None:
    run = run_id()
    log.add_result("big", "tool", None, None, "z" * 1_200_000, "success", run_id=run)
    stored = log.get_run(run)[0].output
    assert stored["__truncated__"] is True and stored["chars_cut"] > 200_000


def test_many_threads_write_at_once(log: ExecutionLog) -> None:
    run = run_id()
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        try:
            for i in range(40):
                log.add_result(f"w{worker}", "tool", None, {"i": i}, i, "success", run_id=run)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    records = log.get_run(run)
    assert len(records) == 240 and len({r.id for r in records}) == 240


WRITER = """
import sys, time
from toolrig.storage import open_log
log = open_log(sys.argv[1])
run, count = sys.argv[2], int(sys.argv[3])
for i in range(count):
    output = {"payload": "p" * 2000, "i": i}
    log.add_result("writer", "tool", None, {"i": i}, output, "success", run_id=run)
    print(i, flush=True)
"""


def test_two_processes_write_at_once(log_url: str, log: ExecutionLog) -> None:
    run = run_id()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, log_url, run, "150"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    records = log.get_run(run)
    assert len(records) == 300
    assert sorted(r.input_data["i"] for r in records) == sorted(list(range(150)) * 2)


def test_kill_9_while_writing_loses_nothing_committed(log_url: str, log: ExecutionLog) -> None:
    run = run_id()
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, log_url, run, "1000000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    committed = -1
    deadline = time.monotonic() + 60
    while committed < 200 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        committed = int(line)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert committed >= 200, proc.stderr.read() if proc.stderr else ""
    reopened = open_log(log_url)
    try:
        records = reopened.get_run(run)
        indexes = [r.input_data["i"] for r in records]
        # every record reported as committed is there, whole and readable
        assert indexes[: committed + 1] == list(range(committed + 1))
        assert all(r.output["payload"] == "p" * 2000 for r in records)
        # and the log still takes writes
        reopened.add_result("after", "tool", None, None, 1, "success", run_id=run)
    finally:
        reopened.close()


def test_sqlite_file_is_wal_and_versioned(sqlite_log: SQLiteExecutionLog) -> None:
    import sqlite3

    conn = sqlite3.connect(sqlite_log.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SQLiteExecutionLog.schema_version
    conn.close()


def test_sqlite_migrates_an_old_schema_and_refuses_a_newer_one(tmp_path: Path) -> None:
    import sqlite3

    from toolrig.storage._sqlite import MIGRATIONS

    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0])
    conn.execute("PRAGMA user_version=1")
    conn.execute(
        "INSERT INTO executions (run_id, executor, status, started_at, finished_at, duration_ms)"
        " VALUES ('r', 'old', 'success', 1, 2, 1000)"
    )
    conn.commit()
    conn.close()
    upgraded = SQLiteExecutionLog(path)
    (old,) = upgraded.get_run("r")
    assert old.error_code is None  # the new column exists
    assert old.status == "succeeded" and old.ok  # the old status word, rewritten
    assert upgraded.query(run_id="r", status="success") == [old]  # old words still query
    upgraded.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version=99")
    conn.commit()
    conn.close()
    with pytest.raises(RuntimeError, match="newer than this toolrig"):
        SQLiteExecutionLog(path)


def test_default_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TOOLRIG_LOG", str(tmp_path / "custom.sqlite3"))
    assert default_log_path() == tmp_path / "custom.sqlite3"
    monkeypatch.delenv("TOOLRIG_LOG")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_log_path() == tmp_path / "data" / "toolrig" / "executions.sqlite3"
    opened = open_log(None)
    assert isinstance(opened, SQLiteExecutionLog) and opened.path.exists()
    opened.close()


def test_tool_usage_counts_calls_by_tool_and_action(log: ExecutionLog) -> None:
    def added(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
        """What this test recorded (the PostgreSQL database is shared by the tests)."""
        return {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}

    run = run_id()
    started = time.time()
    successes, calls = log.tool_usage(), log.tool_usage(successful_only=False)
    for executor, action, status in [
        ("files", "read", "success"),
        ("files", "read", "success"),
        ("files", "write", "error"),
        ("files", "write", "success"),
        ("weather", "weather", "success"),
        ("weather", "weather", "skipped"),
    ]:
        log.add_result(executor, "tool", action, None, None, status, run_id=run)
    log.add_result("gpt-x", "llm", "openai", None, None, "success", run_id=run)
    assert added(successes, log.tool_usage()) == {
        "files": 3,
        "files.read": 2,
        "files.write": 1,
        "weather": 1,
    }
    everything = added(calls, log.tool_usage(successful_only=False))
    assert everything == {"files": 4, "files.read": 2, "files.write": 2, "weather": 1}
    assert log.tool_usage(since=time.time() + 60) == {}
    assert sum(log.tool_usage(since=started).values()) >= 7

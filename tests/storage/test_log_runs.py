"""The log's runs and the statuses of its records, as the recording scope writes them: a run
row per run (how it ended, also when an exception escapes or the log cannot be read), each
decided call under its decision's status, a turn's record, and usage that counts only calls
that ran."""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

import pytest

from toolrig.core.context._recording import Recording
from toolrig.core.result._result import ErrorInfo, ResultMetadata, ToolResult
from toolrig.storage import LogWriteWarning, SQLiteExecutionLog


@pytest.fixture
def log(tmp_path: Path) -> SQLiteExecutionLog:
    opened = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    yield opened  # type: ignore[misc]
    opened.close()


def _result(tool: str, *, ok: bool = True, decision: str | None = None) -> ToolResult:
    meta = ResultMetadata(tool=tool, tool_call_id=f"{tool}-1", started_at=100.0, duration_ms=2.0)
    meta.decision = decision
    error = None if ok else ErrorInfo(code="permission_denied", message="no", hint="ask")
    return ToolResult(success=ok, output="out" if ok else None, error=error, metadata=meta)


def test_a_run_row_says_how_the_run_ended(log: SQLiteExecutionLog) -> None:
    with log.run("ok", kind="calls", name="mine", session_id="s1") as scope:
        scope.record(_result("a"), {})
    info = log.run_info("ok")
    assert info is not None
    assert (info.kind, info.name, info.session_id, info.status) == (
        "calls",
        "mine",
        "s1",
        "succeeded",
    )
    assert info.finished_at is not None and info.finished_at >= info.started_at > 0
    with log.run("bad") as scope:
        scope.record(_result("a", ok=False), {})
    assert log.run_info("bad").status == "failed"  # type: ignore[union-attr]
    with pytest.raises(KeyError), log.run("escaped"):
        raise KeyError("x")
    escaped = log.run_info("escaped")
    assert escaped is not None and (escaped.status, escaped.error) == (
        "failed",
        "an exception escaped the run",
    )
    assert log.run_info("never") is None
    with log.run() as fresh:
        pass
    assert fresh.run_id.startswith("run-") and log.run_info(fresh.run_id).status == "succeeded"  # type: ignore[union-attr]


def test_a_run_whose_records_cannot_be_read_is_not_called_a_success(tmp_path: Path) -> None:
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LogWriteWarning)
        with log.run("r"):
            conn = sqlite3.connect(tmp_path / "log.sqlite3")
            conn.execute("DROP TABLE executions")
            conn.commit()
            conn.close()
    assert log.run_info("r").status == "failed"  # type: ignore[union-attr]
    log.close()


def test_a_run_row_that_cannot_be_written_is_counted_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    conn = sqlite3.connect(tmp_path / "log.sqlite3")
    conn.execute("DROP TABLE runs")
    conn.commit()
    conn.close()
    with pytest.warns(LogWriteWarning, match="'run'"):
        scope = log.start_run("r", "agent", name="a", session_id="s")
    assert (scope.run_id, scope.agent, scope.session_id) == ("r", "a", "s")
    with pytest.warns(LogWriteWarning):
        log.finish_run("r", "succeeded")
    assert log.failed_writes("r") == 2
    log.close()


def test_each_decision_is_the_records_status(log: SQLiteExecutionLog) -> None:
    scope = Recording(sink=log, run_id="d", cost=0.25)
    scope.record(_result("held", ok=False, decision="held"), {})  # not until decided
    scope.record(_result("denied", ok=False, decision="denied"), {"x": 1})
    scope.record(_result("answered", decision="answered"), None)
    scope.record(_result("ran"), None, "1.0")
    scope.skipped(_result("never", ok=False), {"y": 2})
    records = {r.executor: r for r in log.get_run("d")}
    assert "held" not in records
    assert {k: r.status for k, r in records.items()} == {
        "denied": "denied",
        "answered": "answered",
        "ran": "succeeded",
        "never": "skipped",
    }
    denied = records["denied"]
    assert (denied.error_code, denied.error_message, denied.error_hint) == (
        "permission_denied",
        "no",
        "ask",
    )
    assert denied.output is None and records["answered"].output == "out"
    assert records["ran"].cost == 0.25 and records["ran"].tool_version == "1.0"  # the scope's
    assert (records["ran"].started_at, records["ran"].duration_ms) == (100.0, 2.0)
    assert records["ran"].finished_at == pytest.approx(100.002)
    assert records["never"].input_data == {"y": 2}
    # usage counts the calls that ran, never those a person decided or a step never run
    assert log.tool_usage(successful_only=False) == {"ran": 1}


def test_a_turn_is_recorded_with_what_it_was_given(log: SQLiteExecutionLog) -> None:
    scope = Recording(sink=log, run_id="t", step_id="turn2")
    log.record_turn(
        scope,
        model="m",
        provider="p",
        input_data={"messages": [1]},
        output={"text": "hi"},
        error=None,
        duration_ms=5.0,
    )
    log.record_turn(
        scope, model="m", provider="p", input_data=None, output=None, error="down", duration_ms=1.0
    )
    good, bad = log.get_run("t")
    assert (good.executor_type, good.executor, good.action, good.step_id) == (
        "llm",
        "m",
        "p",
        "turn2",
    )
    assert (good.input_data, good.output, good.status, good.duration_ms) == (
        {"messages": [1]},
        {"text": "hi"},
        "succeeded",
        5.0,
    )
    assert (bad.status, bad.error_message) == ("failed", "down")

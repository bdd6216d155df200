"""A log write never fails silently: values any call can carry are stored (lone surrogates,
deep data, huge integers, NaN, NUL, bytes), and a record the database still refuses is counted,
told to listeners, warned about and said in the run's summary."""

from __future__ import annotations

import math
import sqlite3
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest

from toolrig import ToolExecutor, tool
from toolrig.core.context._recording import Recording, recording
from toolrig.storage import ExecutionLog, LogWriteWarning, SQLiteExecutionLog, WriteFailure


def deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


HOSTILE: list[Any] = [
    "\ud800 lone surrogate",
    {"\udfff key": "\ud83d"},
    deep(2_000),
    10**5_000,
    -(10**20_000),
    math.nan,
    [math.inf, -math.inf],
    "nul \x00 inside",
    b"\xff\xfe not utf-8",
    {1: "int key", None: "null key"},
]


@tool
def echo(value: Any = None, label: str = "") -> Any:
    """Return the value as given."""
    return value


@tool
def pick(index: int, label: str = "") -> Any:
    """Return a hostile value: arguments that carry one are refused, a tool's output may."""
    return HOSTILE[index]


def test_a_run_records_every_call_whatever_it_carries(log: ExecutionLog) -> None:
    # the reproducer: records with lone surrogates, deep data and huge ints were dropped
    run = f"run-{uuid.uuid4().hex[:8]}"
    with ToolExecutor([pick]) as executor, warnings.catch_warnings(), log.run(run):
        warnings.simplefilter("error", LogWriteWarning)
        for index, value in enumerate(HOSTILE):
            executor.execute_sync("pick", {"index": index})
            # refused (lone surrogate, unknown argument), and recorded as sent
            executor.execute_sync("pick", {"index": index, "label": "\ud800\x00", "x": value})
    records = log.get_run(run)
    assert len(records) == 2 * len(HOSTILE)
    assert log.failed_writes(run) == 0
    assert [r.ok for r in records] == [True, False] * len(HOSTILE)
    outputs = [r.output for r in records[::2]]
    assert outputs[0] == "\ufffd lone surrogate" and outputs[1] == {"\ufffd key": "\ufffd"}
    assert isinstance(outputs[2], list)  # kept to the core's depth, then marked
    assert outputs[3] == "1" + "0" * 5_000
    assert outputs[4].startswith("<negative integer of about 20001 digits")
    assert outputs[5:8] == ["NaN", ["Infinity", "-Infinity"], "nul \x00 inside"]
    assert outputs[8:] == ["<12 bytes>", {"1": "int key", "null": "null key"}]
    assert records[1].input_data["label"] == "\ufffd\x00"  # NUL kept, escaped in JSON text
    assert log.get_summary(run).startswith(f"Run {run}: 20 results (10 ok, 10 failed).")


def test_text_columns_are_stored_whatever_they_hold(log: ExecutionLog) -> None:
    run = f"run-{uuid.uuid4().hex[:8]}"
    log.add_result(
        "tool\ud800",
        "tool",
        "act\x00ion",
        None,
        None,
        "failed",
        "message with \ud800 and \x00",
        run_id=run,
        tool_call_id="call\udfff",
        error_code="execution_error",
        cost=10**400,
        attempts=10**30,
        duration_ms=math.nan,
    )
    (record,) = log.get_run(run)
    assert record.executor == "tool\ufffd" and record.action == "act\ufffdion"
    assert record.error_message == "message with \ufffd and \ufffd"
    assert record.tool_call_id == "call\ufffd"
    assert record.cost is None and record.attempts == 1 and math.isfinite(record.duration_ms)


def _broken(path: Path) -> SQLiteExecutionLog:
    """A log whose table is gone, so every write fails at the database."""
    log = SQLiteExecutionLog(path)
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE executions")
    conn.commit()
    conn.close()
    return log


def test_a_failed_write_is_counted_told_and_warned_about(tmp_path: Path) -> None:
    log = _broken(tmp_path / "broken.sqlite3")
    told: list[WriteFailure] = []
    log.add_failure_listener(told.append)
    with (
        ToolExecutor([echo]) as executor,
        pytest.warns(LogWriteWarning, match="could not record a call of 'echo'"),
        recording(Recording(sink=log, run_id="run-1")),
    ):
        result = executor.execute_sync("echo", {"value": 1}, tool_call_id="c1")
    assert result.success  # the call itself is not affected
    assert log.failed_writes("run-1") == 1 and log.failed_writes() == 1
    assert told == [
        WriteFailure(
            run_id="run-1",
            executor="echo",
            tool_call_id="c1",
            error=told[0].error,
        )
    ]
    assert told[0].error.startswith("OperationalError: no such table")
    with pytest.warns(LogWriteWarning), pytest.raises(sqlite3.OperationalError):
        log.add_result("fetch", "tool", None, {}, None, "failed", run_id="run-1")
    assert log.failed_writes("run-1") == 2
    log.remove_failure_listener(told.append)
    log.close()


def test_the_summary_says_how_many_results_were_lost(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite3"
    log = SQLiteExecutionLog(path)
    log.add_result("fetch", "tool", None, {}, {"ok": 1}, "succeeded", run_id="run-2")
    original = log._insert

    def refuse(row: tuple[Any, ...]) -> int:
        raise sqlite3.OperationalError("disk I/O error")

    log._insert = refuse  # type: ignore[method-assign]
    with pytest.warns(LogWriteWarning):
        Recording(sink=log, run_id="run-2").record(_finished_event(), {})
    log._insert = original  # type: ignore[method-assign]
    summary = log.get_summary("run-2")
    assert summary.startswith(
        "Run run-2: 1 results (1 ok, 0 failed). 1 more could not be recorded."
    )
    log.close()


def _finished_event() -> Any:
    from toolrig import ToolResult

    return ToolResult(success=True, output=1)

"""How an `ExecutionRecord` maps to a table row: the column order every backend
creates, and the total encoding that lets any value be stored (see `._encode`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from toolrig.storage._encode import dump_json, load_json, storable_number, storable_text
from toolrig.storage._record import ExecutionRecord

__all__ = ["COLUMNS", "from_row", "to_row"]


COLUMNS = (
    "run_id",
    "step_id",
    "tool_call_id",
    "executor",
    "executor_type",
    "action",
    "input_data",
    "output",
    "status",
    "error_code",
    "error_message",
    "started_at",
    "finished_at",
    "duration_ms",
    "attempts",
    "cost",
    "tool_version",
    "error_hint",
    "parent_call_id",
)


def to_row(
    *,
    started_at: float | None,
    finished_at: float | None,
    duration_ms: float | None,
    input_data: Any,
    output: Any,
    attempts: Any,
    cost: Any,
    **text: Any,
) -> tuple[Any, ...]:
    """The values of one record in `COLUMNS` order, each in a form every backend stores."""
    now = time.time()
    finished = storable_number(finished_at)
    finished = now if finished is None else finished
    duration = storable_number(duration_ms)
    started = storable_number(started_at)
    if started is None:
        started = finished - (duration or 0.0) / 1000.0
    if duration is None:
        duration = (finished - started) * 1000.0
    try:
        tries = int(attempts)
        if not 0 <= tries < 2**31:
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        tries = 1
    values: dict[str, Any] = {key: storable_text(value) for key, value in text.items()}
    values.update(
        input_data=dump_json(input_data),
        output=dump_json(output),
        started_at=started,
        finished_at=finished,
        duration_ms=duration,
        attempts=tries,
        cost=storable_number(cost),
    )
    return tuple(values[column] for column in COLUMNS)


def from_row(row: Sequence[Any]) -> ExecutionRecord:
    """The record a row ``(id, *COLUMNS)`` holds."""
    values = dict(zip(("id", *COLUMNS), row, strict=True))
    values["input_data"] = load_json(values["input_data"])
    values["output"] = load_json(values["output"])
    return ExecutionRecord(**values)

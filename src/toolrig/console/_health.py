"""The health page's figures: log size, failed writes, calls per minute, error rates and
p50/p95 durations per tool.

Figures are taken over the newest `WINDOW` records (an id range on the primary key), so
the page costs the same on a log of a thousand records or of a million. A tool error is a
call that ran and failed: a call a person denied is counted apart (``denied``), and an
answered call or a plan step never run is not a call of the tool at all. The runs of the
newest `RUN_WINDOW` records are counted by status from their run rows (read by key), so a
held run or one whose typed output was rejected shows as such.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from typing import Any, Final

from toolrig.console._runs import newest_id
from toolrig.storage._log import ExecutionLog
from toolrig.storage._record import RecordStatus

__all__ = ["RUN_WINDOW", "WINDOW", "Health", "ToolHealth", "health"]

WINDOW: Final = 10_000
"""Newest records the figures are computed over."""
RUN_WINDOW: Final = 1_000
"""Newest records whose runs are counted by status (each run's row is read by key: about a
hundred look-ups, where the whole window's thousand would double the page's cost)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolHealth:
    """One tool's calls, failures and durations in the window."""

    tool: str
    calls: int
    """Calls that ran (a denied or answered call did not)."""
    failed: int
    """Calls that ran and failed: tool errors."""
    p50_ms: float
    p95_ms: float
    denied: int = 0
    """Calls a person denied."""

    @property
    def error_rate(self) -> float:
        return self.failed / self.calls if self.calls else 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Health:
    """What the health page shows."""

    records: int
    size_bytes: int | None
    failed_writes: int
    window: int
    per_minute: list[tuple[float, int]] = field(default_factory=list)
    """(minute start, calls) for the last hour of the window, oldest first."""
    tools: list[ToolHealth] = field(default_factory=list)
    denied: int = 0
    """Calls a person denied in the window (not tool errors)."""
    answered: int = 0
    """Calls a person answered instead of running them."""
    skipped: int = 0
    """Plan steps never run."""
    runs: dict[str, int] = field(default_factory=dict)
    """The runs of the newest `RUN_WINDOW` records by status (those with a run row)."""

    @property
    def failed(self) -> int:
        """Tool errors in the window."""
        return sum(t.failed for t in self.tools)


def _size(log: ExecutionLog) -> int | None:
    path = getattr(log, "path", None)
    if path is None or str(path) == ":memory:":
        return None
    total = 0
    for suffix in ("", "-wal"):
        with contextlib.suppress(OSError):
            total += os.path.getsize(f"{path}{suffix}")
    return total


def health(log: ExecutionLog) -> Health:
    """The figures over the newest `WINDOW` records."""
    newest = newest_id(log)
    sql = (
        f"SELECT executor, status, started_at, duration_ms FROM {log.table} "
        "WHERE id > ? AND executor_type <> 'llm'"
    )
    if log.placeholder != "?":
        sql = sql.replace("?", log.placeholder)
    rows: list[Any] = log._conn().execute(sql, [newest - WINDOW]).fetchall()
    by_tool: dict[str, list[float]] = {}
    failed: dict[str, int] = {}
    denied: dict[str, int] = {}
    apart = {RecordStatus.ANSWERED.value: 0, RecordStatus.SKIPPED.value: 0}
    denied_word, failed_word = RecordStatus.DENIED.value, RecordStatus.FAILED.value
    minutes: dict[int, int] = {}
    last = max((float(r[2]) for r in rows), default=0.0)
    for tool, status, started, duration in rows:
        if status in apart:  # never ran: not a call of the tool
            apart[status] += 1
            continue
        if status == denied_word:
            denied[tool] = denied.get(tool, 0) + 1
            by_tool.setdefault(tool, [])
            continue
        by_tool.setdefault(tool, []).append(float(duration))
        if status == failed_word:
            failed[tool] = failed.get(tool, 0) + 1
        if last - float(started) < 3600:
            minute = int(float(started) // 60)
            minutes[minute] = minutes.get(minute, 0) + 1
    tools = [
        ToolHealth(
            tool=tool,
            calls=len(durations),
            failed=failed.get(tool, 0),
            denied=denied.get(tool, 0),
            p50_ms=_pct(durations, 50) if durations else 0.0,
            p95_ms=_pct(durations, 95) if durations else 0.0,
        )
        for tool, durations in by_tool.items()
    ]
    tools.sort(key=lambda t: -(t.calls + t.denied))
    by_status = _run_statuses(log, newest - RUN_WINDOW)
    per_minute: list[tuple[float, int]] = []
    if minutes:
        end = max(minutes)
        per_minute = [(m * 60.0, minutes.get(m, 0)) for m in range(end - 59, end + 1)]
    return Health(
        records=newest,
        size_bytes=_size(log),
        failed_writes=log.failed_writes(),
        window=len(rows),
        per_minute=per_minute,
        tools=tools,
        denied=sum(denied.values()),
        answered=apart[RecordStatus.ANSWERED.value],
        skipped=apart[RecordStatus.SKIPPED.value],
        runs=dict(sorted(by_status.items())),
    )


def _run_statuses(log: ExecutionLog, after: int) -> dict[str, int]:
    """The runs of the records after id ``after`` (model turns' included), by status: one
    query, the window's run ids read along the primary key, their run rows by key."""
    runs = log.table[: -len("executions")] + "runs"
    sql = (
        f"SELECT status, COUNT(*) FROM {runs} WHERE run_id IN "
        f"(SELECT run_id FROM {log.table} WHERE id > ?) GROUP BY status"
    )
    if log.placeholder != "?":
        sql = sql.replace("?", log.placeholder)
    return {str(status): int(n) for status, n in log._conn().execute(sql, [after]).fetchall()}


def _pct(values: list[float], pct: int) -> float:
    """The nearest-rank percentile (``values`` sorted in place)."""
    values.sort()
    return values[min(len(values) - 1, max(0, round(pct / 100 * len(values)) - 1))]

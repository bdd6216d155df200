"""The health page's figures: log size, failed writes, calls per minute, error rates and
p50/p95 durations per tool.

Figures are taken over the newest :data:`WINDOW` records (an id range on the primary key), so
the page costs the same on a log of a thousand records or of a million.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from typing import Any, Final

from toolrig.console._runs import newest_id
from toolrig.storage._log import ExecutionLog

__all__ = ["WINDOW", "Health", "ToolHealth", "health"]

WINDOW: Final = 10_000
"""Newest records the figures are computed over."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolHealth:
    """One tool's calls, failures and durations in the window."""

    tool: str
    calls: int
    failed: int
    p50_ms: float
    p95_ms: float

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
    """The figures over the newest :data:`WINDOW` records."""
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
    minutes: dict[int, int] = {}
    last = max((float(r[2]) for r in rows), default=0.0)
    for tool, status, started, duration in rows:
        by_tool.setdefault(tool, []).append(float(duration))
        if status == "failed":
            failed[tool] = failed.get(tool, 0) + 1
        if last - float(started) < 3600:
            minute = int(float(started) // 60)
            minutes[minute] = minutes.get(minute, 0) + 1
    tools = [
        ToolHealth(
            tool=tool,
            calls=len(durations),
            failed=failed.get(tool, 0),
            p50_ms=_pct(durations, 50),
            p95_ms=_pct(durations, 95),
        )
        for tool, durations in by_tool.items()
    ]
    tools.sort(key=lambda t: -t.calls)
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
    )


def _pct(values: list[float], pct: int) -> float:
    """The nearest-rank percentile (``values`` sorted in place)."""
    values.sort()
    return values[min(len(values) - 1, max(0, round(pct / 100 * len(values)) - 1))]

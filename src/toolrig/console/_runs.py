"""The runs list: runs (agent runs, plans, loose calls) newest first, a page at a time.

A page is found by walking record ids downwards (the primary key, so each step reads a few
rows, never the whole table) until enough distinct runs are seen; each run's totals are then
read through the ``(run_id, id)`` index. A run is listed on the page where its newest record
falls, so keyset pages never repeat a run whose records interleave with others'.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from toolrig.storage._log import ExecutionLog

__all__ = ["PAGE_SIZE", "RunFilters", "RunRow", "newest_id", "runs_page"]

PAGE_SIZE: Final = 50
_CHUNK: Final = 1000
_MAX_SCANNED: Final = 50_000
"""Records read at most to fill one page (a rare filter then shows a shorter page and a
"more" link, instead of scanning a million rows)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunFilters:
    """What the runs list is narrowed to; ``None`` is "any"."""

    tool: str | None = None
    status: str | None = None
    since: float | None = None
    until: float | None = None

    def clauses(self) -> tuple[list[str], list[Any]]:
        """SQL conditions (``?`` placeholders) and their values."""
        clauses: list[str] = []
        params: list[Any] = []
        for clause, value in (
            ("executor = ?", self.tool),
            ("status = ?", self.status),
            ("started_at >= ?", self.since),
            ("started_at < ?", self.until),
        ):
            if value is not None:
                clauses.append(clause)
                params.append(value)
        return clauses, params


@dataclass(slots=True, kw_only=True)
class RunRow:
    """One run's totals, as the list shows them."""

    run_id: str
    kind: str = "calls"
    """``agent``, ``plan`` or ``calls``."""
    records: int = 0
    failed: int = 0
    turns: int = 0
    started_at: float = 0.0
    finished_at: float = 0.0
    newest_id: int = 0
    cost: float = 0.0
    tools: dict[str, int] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """``failed`` when any record failed, else ``succeeded``."""
        return "failed" if self.failed else "succeeded"

    @property
    def duration_ms(self) -> float:
        return max(0.0, (self.finished_at - self.started_at) * 1000.0)


def _sql(log: ExecutionLog, sql: str) -> str:
    return sql if log.placeholder == "?" else sql.replace("?", log.placeholder)


def newest_id(log: ExecutionLog) -> int:
    """The id of the newest record (0 for an empty log)."""
    row = log._conn().execute(f"SELECT MAX(id) FROM {log.table}").fetchone()
    return int(row[0] or 0)


def runs_page(
    log: ExecutionLog, filters: RunFilters, *, before: int | None = None, size: int = PAGE_SIZE
) -> tuple[list[RunRow], int | None]:
    """Up to ``size`` runs whose newest record is older than ``before`` (an id), newest first,
    and the cursor of the next page (``None`` on the last page)."""
    clauses, params = filters.clauses()
    cursor = before
    order: list[str] = []
    seen: set[str] = set()
    scanned = 0
    exhausted = False
    while len(order) <= size and scanned < _MAX_SCANNED:
        where = list(clauses)
        values = list(params)
        if cursor is not None:
            where.append("id < ?")
            values.append(cursor)
        sql = (
            f"SELECT id, run_id FROM {log.table} WHERE {' AND '.join(where) or '1 = 1'} "
            f"ORDER BY id DESC LIMIT {_CHUNK}"
        )
        rows = log._conn().execute(_sql(log, sql), values).fetchall()
        for _record_id, run_id in rows:
            if run_id not in seen:
                seen.add(run_id)
                order.append(run_id)
        scanned += len(rows)
        if len(rows) < _CHUNK:
            exhausted = True
            break
        cursor = int(rows[-1][0])
    totals = _totals(log, order)
    runs = [totals[r] for r in order if r in totals]
    if before is not None:  # listed on an earlier page, where its newest record is
        runs = [r for r in runs if r.newest_id < before]
    if len(runs) > size:
        return runs[:size], runs[size - 1].newest_id
    if not exhausted and runs:
        return runs, runs[-1].newest_id
    if not exhausted and cursor is not None:
        return runs, cursor
    return runs, None


def _totals(log: ExecutionLog, run_ids: list[str]) -> dict[str, RunRow]:
    """Each run's totals, read through the ``(run_id, id)`` index."""
    if not run_ids:
        return {}
    marks = ", ".join("?" for _ in run_ids)
    sql = (
        "SELECT run_id, executor, executor_type, COUNT(*), "
        "SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), MIN(started_at), "
        "MAX(finished_at), MAX(id), SUM(cost), MAX(step_id) "
        f"FROM {log.table} WHERE run_id IN ({marks}) GROUP BY run_id, executor, executor_type"
    )
    out: dict[str, RunRow] = {}
    for run_id, tool, kind, count, failed, first, last, newest, cost, step in (
        log._conn().execute(_sql(log, sql), run_ids).fetchall()
    ):
        row = out.get(run_id)
        if row is None:
            row = out[run_id] = RunRow(run_id=run_id, started_at=float(first))
        row.records += int(count)
        row.failed += int(failed or 0)
        row.started_at = min(row.started_at, float(first))
        row.finished_at = max(row.finished_at, float(last))
        row.newest_id = max(row.newest_id, int(newest))
        row.cost += float(cost or 0.0)
        if kind == "llm":
            row.turns += int(count)
            row.kind = "agent"
        else:
            row.tools[tool] = row.tools.get(tool, 0) + int(count)
            if step and not str(step).startswith("turn") and row.kind == "calls":
                row.kind = "plan"
    return out

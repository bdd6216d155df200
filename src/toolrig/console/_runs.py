"""The runs list: runs (agent runs, plans, loose calls) newest first, a page at a time.

A page is found by walking records downwards along an index until enough distinct runs are
seen: the primary key without a tool filter, ``(executor, started_at)`` when a tool is chosen
(ordering those by id would sort every matching record first: 100 ms on 50,000 of them).
Each run's totals are then read through the ``(run_id, id)`` index and its run row (how it
started and ended) by its key. A run is listed on the page where its newest matching record
falls, so keyset pages never repeat a run whose records interleave with others'.

A run's status is its run row's (`RunStatus`: running, succeeded, held, denied, failed,
output_rejected); a run recorded without one gets it from its records, where a person's deny,
an answered call and a plan step never run are not failures. A status filter alone walks the
SQLite runs table down its rowid (the order runs started in), keeping the rows of that
status: about five rows read per failed run listed, the whole table at most for a rare status.
With a tool, or on PostgreSQL (no rowid), it keeps the runs of each chunk of records walked
whose status is the one chosen (their run rows read by key, a bounded walk as for every
filter); there a run without a run row is judged by its records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from toolrig.storage import SQLiteExecutionLog
from toolrig.storage._log import ExecutionLog
from toolrig.storage._runs import RunInfo, RunStatus, runs_info

__all__ = [
    "PAGE_SIZE",
    "STATUSES",
    "RunFilters",
    "RunRow",
    "derived_status",
    "newest_id",
    "runs_page",
]

STATUSES: Final = tuple(s.value for s in RunStatus)
"""The words a run's status is one of, as the filter offers them."""

PAGE_SIZE: Final = 50
_FIRST_CHUNK: Final = 4
"""Records read first per run wanted; each further read doubles, up to `_MAX_CHUNK`
(a filtered page needs about one record per run, an unfiltered one about ten)."""
_MAX_CHUNK: Final = 8000
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

    @property
    def key(self) -> str:
        """The column pages are ordered by: one an index serves with these filters (``id``
        is also the runs table's rowid when only a status is chosen)."""
        return "started_at" if self.tool is not None else "id"

    def clauses(self) -> tuple[list[str], list[Any]]:
        """SQL conditions on records (``?`` placeholders) and their values (the status is a
        run's, kept after the walk)."""
        clauses: list[str] = []
        params: list[Any] = []
        for clause, value in (
            ("executor = ?", self.tool),
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
    """``agent``, ``plan``, ``console``, ``calls`` or ``serve``."""
    records: int = 0
    failed: int = 0
    """Records that failed (a call, a step or a model turn)."""
    denied: int = 0
    """Calls a person denied: not failures."""
    turns: int = 0
    started_at: float = 0.0
    finished_at: float = 0.0
    newest_id: int = 0
    cost: float = 0.0
    tools: dict[str, int] = field(default_factory=dict)

    info: RunInfo | None = None
    """The run's row (how it started and ended); ``None`` for records written without one."""

    key: float = 0.0
    """The ordering value of its newest matching record (id, or start time when filtered)."""

    @property
    def status(self) -> str:
        """The run row's status, else the one its records give (`derived_status`)."""
        if self.info is not None:
            return self.info.status
        return derived_status(self.failed, self.denied)

    @property
    def name(self) -> str | None:
        """The agent's name or the plan's id, when the run row has it."""
        return None if self.info is None else self.info.name

    @property
    def session_id(self) -> str | None:
        return None if self.info is None else self.info.session_id

    @property
    def duration_ms(self) -> float:
        return max(0.0, (self.finished_at - self.started_at) * 1000.0)


def derived_status(failed: int, denied: int) -> str:
    """A run's status from its records alone: ``failed`` when one failed, ``denied`` when a
    person denied a call and nothing failed, else ``succeeded`` (skipped steps and answered
    calls are not failures)."""
    if failed:
        return RunStatus.FAILED.value
    return RunStatus.DENIED.value if denied else RunStatus.SUCCEEDED.value


def _runs_table(log: ExecutionLog) -> str:
    prefix = log.table[: -len("executions")] if log.table.endswith("executions") else ""
    return f"{prefix}runs"


def _sql(log: ExecutionLog, sql: str) -> str:
    return sql if log.placeholder == "?" else sql.replace("?", log.placeholder)


def newest_id(log: ExecutionLog) -> int:
    """The id of the newest record (0 for an empty log)."""
    row = log._conn().execute(f"SELECT MAX(id) FROM {log.table}").fetchone()
    return int(row[0] or 0)


def runs_page(
    log: ExecutionLog, filters: RunFilters, *, before: float | None = None, size: int = PAGE_SIZE
) -> tuple[list[RunRow], float | None]:
    """Up to ``size`` runs whose newest matching record is older than ``before`` (on
    ``filters.key``), newest first, and the cursor of the next page (``None`` on the last)."""
    if filters.status is not None and filters.tool is None and isinstance(log, SQLiteExecutionLog):
        return _by_status(log, filters, before, size)
    clauses, params = filters.clauses()
    key = filters.key
    cursor = before
    order: list[str] = []
    seen: set[str] = set()
    scanned = 0
    exhausted = False
    chunk = _FIRST_CHUNK * (size + 1)
    while len(order) <= size and scanned < _MAX_SCANNED:
        where = list(clauses)
        values = list(params)
        if cursor is not None:
            where.append(f"{key} < ?")
            values.append(cursor)
        sql = (
            f"SELECT {key}, run_id FROM {log.table} WHERE {' AND '.join(where) or '1 = 1'} "
            f"ORDER BY {key} DESC LIMIT {chunk}"
        )
        rows = log._conn().execute(_sql(log, sql), values).fetchall()
        wanted = _with_status(log, rows, seen, filters.status)
        for at, run_id in rows:
            if run_id not in seen and (wanted is None or run_id in wanted):
                if len(order) > size:  # the page and one more run to say there is a next
                    break
                order.append(run_id)
            seen.add(run_id)
            cursor = at
        else:
            scanned += len(rows)
            if len(rows) < chunk:
                exhausted = True
                break
            chunk = min(chunk * 2, _MAX_CHUNK)
            continue
        break
    totals = _totals(log, order)
    for run_id, info in runs_info(log, order).items():
        row = totals.get(run_id)
        if row is not None:
            row.info = info
            row.kind = info.kind
    newest = (
        _newest(log, order, filters) if key != "id" else {r: t.newest_id for r, t in totals.items()}
    )
    runs = [totals[r] for r in order if r in totals]
    for run in runs:
        run.key = float(newest.get(run.run_id, 0))
    if before is not None:  # listed on an earlier page, where its newest record is
        runs = [r for r in runs if r.key < before]
    if len(runs) > size:
        return runs[:size], runs[size - 1].key
    if not exhausted and runs:
        return runs, runs[-1].key
    if not exhausted and cursor is not None:
        return runs, float(cursor)
    return runs, None


def _by_status(
    log: ExecutionLog, filters: RunFilters, before: float | None, size: int
) -> tuple[list[RunRow], float | None]:
    """Runs of status ``filters.status``, newest started first, along the runs table's rowid
    (pages cut on it)."""
    where = ["status = ?"]
    values: list[Any] = [filters.status]
    for clause, value in (
        ("started_at >= ?", filters.since),
        ("started_at < ?", filters.until),
        ("rowid < ?", before),  # a float compares with a rowid as is (int() of nan raised)
    ):
        if value is not None:
            where.append(clause)
            values.append(value)
    sql = (
        f"SELECT rowid, run_id FROM {_runs_table(log)} WHERE {' AND '.join(where)} "
        f"ORDER BY rowid DESC LIMIT {int(size) + 1}"
    )
    found = log._conn().execute(sql, values).fetchall()
    order = [run_id for _, run_id in found]
    totals = _totals(log, order)
    infos = runs_info(log, order)
    runs = []
    for rowid, run_id in found:
        info = infos.get(run_id)
        row = totals.get(run_id) or RunRow(
            run_id=run_id, started_at=info.started_at if info else 0.0
        )
        if info is not None:
            row.info = info
            row.kind = info.kind
        row.key = float(rowid)
        runs.append(row)
    if len(runs) > size:
        return runs[:size], runs[size - 1].key
    return runs, None


def _with_status(
    log: ExecutionLog, rows: list[Any], seen: set[str], status: str | None
) -> set[str] | None:
    """Of the runs first met in ``rows``, those whose status is ``status`` (``None``: no
    status filter). Run rows are read by key; runs without one are judged by their records."""
    if status is None:
        return None
    new = list(dict.fromkeys(run_id for _, run_id in rows if run_id not in seen))
    if not new:
        return set()
    marks = ", ".join("?" for _ in new)
    sql = f"SELECT run_id, status FROM {_runs_table(log)} WHERE run_id IN ({marks})"
    statuses = dict(log._conn().execute(_sql(log, sql), new).fetchall())
    wanted = {r for r, word in statuses.items() if word == status}
    bare = [r for r in new if r not in statuses]
    for run_id, row in _totals(log, bare).items():
        if row.status == status:
            wanted.add(run_id)
    return wanted


def _newest(log: ExecutionLog, run_ids: list[str], filters: RunFilters) -> dict[str, float]:
    """Each run's newest matching record, on ``filters.key``. The filters sit in the select
    list, not the WHERE clause, so the planner reads the runs through the run index instead
    of every record of the chosen tool or status."""
    if not run_ids:
        return {}
    clauses, params = filters.clauses()
    marks = ", ".join("?" for _ in run_ids)
    sql = (
        f"SELECT run_id, MAX(CASE WHEN {' AND '.join(clauses)} THEN {filters.key} END) "
        f"FROM {log.table} WHERE run_id IN ({marks}) GROUP BY run_id"
    )
    rows = log._conn().execute(_sql(log, sql), [*params, *run_ids]).fetchall()
    return {run_id: float(value) for run_id, value in rows if value is not None}


def _totals(log: ExecutionLog, run_ids: list[str]) -> dict[str, RunRow]:
    """Each run's totals, read through the ``(run_id, id)`` index."""
    if not run_ids:
        return {}
    marks = ", ".join("?" for _ in run_ids)
    sql = (
        "SELECT run_id, executor, executor_type, COUNT(*), "
        "SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), "
        "SUM(CASE WHEN status = 'denied' THEN 1 ELSE 0 END), MIN(started_at), "
        "MAX(finished_at), MAX(id), SUM(cost), MAX(step_id) "
        f"FROM {log.table} WHERE run_id IN ({marks}) GROUP BY run_id, executor, executor_type"
    )
    out: dict[str, RunRow] = {}
    for run_id, tool, kind, count, failed, denied, first, last, newest, cost, step in (
        log._conn().execute(_sql(log, sql), run_ids).fetchall()
    ):
        row = out.get(run_id)
        if row is None:
            row = out[run_id] = RunRow(run_id=run_id, started_at=float(first))
        row.records += int(count)
        row.failed += int(failed or 0)
        row.denied += int(denied or 0)
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

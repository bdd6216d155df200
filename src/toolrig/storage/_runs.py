"""Runs and decisions, beside the call records: what a run was and how it ended, and what
people decided about the calls it held.

A run row (table ``runs``, ``toolrig_runs`` on PostgreSQL) is written when an agent run, a
plan, a console call or a CLI call starts, and finished with its status in one vocabulary
(`RunStatus`). A decision row (``decisions``) is the one source of truth for a held call:
written once per ``(session, call)`` by whichever door decides first (the console, a resume
with ``approvals=``, ``toolrig agent --allow``); a later, different decision is refused
whatever door it comes through.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from toolrig.storage._encode import dump_json, load_json, storable_text

__all__ = [
    "POSTGRES_MIGRATION",
    "SQLITE_MIGRATION",
    "DecisionTaken",
    "RunInfo",
    "RunStatus",
    "StoredDecision",
    "finish_run",
    "insert_decision",
    "record_decision",
    "run_info",
    "runs_info",
    "start_run",
    "stored_decisions",
]


class RunStatus(StrEnum):
    """How a run stands or ended."""

    RUNNING = "running"
    SUCCEEDED = "succeeded"
    HELD = "held"
    """Stopped with calls awaiting a person's decision."""
    DENIED = "denied"
    """Ended after a person denied calls, with no other failure."""
    FAILED = "failed"
    OUTPUT_REJECTED = "output_rejected"
    """The final answer did not match the run's output type."""


def _sqlite(prefix: str) -> str:
    return f"""
ALTER TABLE {prefix}executions ADD COLUMN error_hint TEXT;
ALTER TABLE {prefix}executions ADD COLUMN parent_call_id TEXT;
CREATE TABLE IF NOT EXISTS {prefix}runs (
    run_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    name TEXT,
    session_id TEXT,
    status TEXT NOT NULL,
    stop_reason TEXT,
    error TEXT,
    started_at REAL NOT NULL,
    finished_at REAL
);
CREATE INDEX IF NOT EXISTS {prefix}runs_session ON {prefix}runs (session_id, started_at);
CREATE TABLE IF NOT EXISTS {prefix}decisions (
    session_id TEXT NOT NULL,
    tool_call_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    reason TEXT,
    output TEXT,
    decided_by TEXT,
    decided_at REAL NOT NULL,
    PRIMARY KEY (session_id, tool_call_id)
)"""


SQLITE_MIGRATION = _sqlite("")
"""Schema version 7 of the SQLite log: error hints, parent calls, runs and decisions."""

POSTGRES_MIGRATION = (
    _sqlite("toolrig_")
    .replace("ADD COLUMN", "ADD COLUMN IF NOT EXISTS")
    .replace("REAL", "DOUBLE PRECISION")
)
"""Schema version 7 of the PostgreSQL log."""


class _Database(Protocol):
    table: str
    placeholder: str

    def _conn(self) -> Any: ...


def _table(log: _Database, name: str) -> str:
    prefix = log.table[: -len("executions")] if log.table.endswith("executions") else ""
    return f"{prefix}{name}"


def _execute(log: _Database, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> Any:
    if log.placeholder != "?":
        sql = sql.replace("?", log.placeholder)
    return log._conn().execute(sql, params)


# -- runs -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class RunInfo:
    """One run: what started it, its session, and how it stands."""

    run_id: str
    kind: str
    """``agent``, ``plan``, ``console``, ``cli`` or ``serve``."""
    name: str | None = None
    """The agent's name, or the plan's id."""
    session_id: str | None = None
    status: str = RunStatus.RUNNING.value
    stop_reason: str | None = None
    error: str | None = None
    started_at: float = 0.0
    finished_at: float | None = None


_RUN_COLUMNS = "run_id, kind, name, session_id, status, stop_reason, error, started_at, finished_at"


def start_run(
    log: _Database, run_id: str, kind: str, *, name: str | None, session_id: str | None
) -> None:
    """Note that run ``run_id`` started (a run id started again keeps its first start)."""
    _execute(
        log,
        f"INSERT INTO {_table(log, 'runs')} ({_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, NULL, "
        "NULL, ?, NULL) ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, "
        "finished_at = NULL",
        [
            storable_text(run_id),
            kind,
            storable_text(name),
            storable_text(session_id),
            RunStatus.RUNNING.value,
            time.time(),
        ],
    )


def finish_run(
    log: _Database,
    run_id: str,
    status: RunStatus | str,
    *,
    stop_reason: str | None = None,
    error: str | None = None,
) -> None:
    """Note how run ``run_id`` ended (``status``: a `RunStatus` or its word)."""
    _execute(
        log,
        f"UPDATE {_table(log, 'runs')} SET status = ?, stop_reason = ?, error = ?, "
        "finished_at = ? WHERE run_id = ?",
        [
            RunStatus(status).value,
            stop_reason,
            storable_text(error),
            time.time(),
            storable_text(run_id),
        ],
    )


def run_info(log: _Database, run_id: str) -> RunInfo | None:
    """The run row of ``run_id``, if one was written (loose calls have none)."""
    found = runs_info(log, [run_id])
    return found.get(storable_text(run_id) or run_id)  # keyed as written: NUL as U+FFFD


def runs_info(log: _Database, run_ids: list[str]) -> dict[str, RunInfo]:
    """The run rows of ``run_ids`` that exist, by run id."""
    if not run_ids:
        return {}
    marks = ", ".join("?" for _ in run_ids)
    rows = _execute(
        log,
        f"SELECT {_RUN_COLUMNS} FROM {_table(log, 'runs')} WHERE run_id IN ({marks})",
        list(run_ids),
    ).fetchall()
    return {row[0]: _run(row) for row in rows}


def session_runs(log: _Database, session_id: str) -> list[RunInfo]:
    """The runs of a session, oldest first."""
    rows = _execute(
        log,
        f"SELECT {_RUN_COLUMNS} FROM {_table(log, 'runs')} WHERE session_id = ? "
        "ORDER BY started_at",
        [session_id],
    ).fetchall()
    return [_run(row) for row in rows]


def _run(row: Any) -> RunInfo:
    return RunInfo(
        run_id=row[0],
        kind=row[1],
        name=row[2],
        session_id=row[3],
        status=row[4],
        stop_reason=row[5],
        error=row[6],
        started_at=float(row[7]),
        finished_at=None if row[8] is None else float(row[8]),
    )


# -- decisions --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class StoredDecision:
    """What a person decided about one held call."""

    session_id: str
    tool_call_id: str
    kind: str
    """``allow``, ``allow_session`` (and the tool's later calls), ``deny``, ``answer`` or
    ``edit``."""
    reason: str | None = None
    output: Any = None
    """An answer's output; an edit's ``{"arguments": ran, "proposed": the model's}``."""
    decided_by: str | None = None
    decided_at: float = 0.0

    def same_as(self, other: StoredDecision) -> bool:
        """Whether ``other`` decides the same way (a deny's or an edit's reason aside)."""
        if self.kind != other.kind:
            return False
        if self.kind == "edit":
            return dump_json(_arguments(self.output)) == dump_json(_arguments(other.output))
        return self.kind != "answer" or dump_json(self.output) == dump_json(other.output)


def _arguments(output: Any) -> Any:
    return output.get("arguments") if isinstance(output, dict) else output


class DecisionTaken(RuntimeError):
    """A different decision was recorded first for this call."""

    def __init__(self, existing: StoredDecision) -> None:
        self.existing = existing
        by = f" by {existing.decided_by}" if existing.decided_by else ""
        super().__init__(
            f"call {existing.tool_call_id} of session {existing.session_id!r} was already "
            f"decided ({existing.kind}{by})"
        )


def record_decision(log: _Database, decision: StoredDecision) -> StoredDecision:
    """Write ``decision`` unless one is recorded for its call; the decision that stands.
    `DecisionTaken` when the one recorded first decides differently."""
    insert_decision(log, decision)
    stored = stored_decisions(log, decision.session_id, [decision.tool_call_id])
    existing = stored[decision.tool_call_id]
    if not existing.same_as(decision):
        raise DecisionTaken(existing)
    return existing


def insert_decision(log: _Database, decision: StoredDecision) -> bool:
    """Write ``decision`` unless one is recorded for its call; whether this one was."""
    cursor = _execute(
        log,
        f"INSERT INTO {_table(log, 'decisions')} (session_id, tool_call_id, kind, reason, "
        "output, decided_by, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (session_id, tool_call_id) DO NOTHING",
        [
            decision.session_id,
            decision.tool_call_id,
            decision.kind,
            storable_text(decision.reason),
            dump_json(decision.output),
            storable_text(decision.decided_by),
            decision.decided_at or time.time(),
        ],
    )
    return bool(cursor.rowcount == 1)


def stored_decisions(
    log: _Database, session_id: str, call_ids: list[str] | None = None
) -> dict[str, StoredDecision]:
    """The decisions recorded in ``session_id`` (for ``call_ids``, or all), by call id."""
    sql = (
        "SELECT session_id, tool_call_id, kind, reason, output, decided_by, decided_at "
        f"FROM {_table(log, 'decisions')} WHERE session_id = ?"
    )
    params: list[Any] = [session_id]
    if call_ids is not None:
        if not call_ids:
            return {}
        sql += f" AND tool_call_id IN ({', '.join('?' for _ in call_ids)})"
        params.extend(call_ids)
    rows = _execute(log, sql, params).fetchall()
    return {
        row[1]: StoredDecision(
            session_id=row[0],
            tool_call_id=row[1],
            kind=row[2],
            reason=row[3],
            output=load_json(row[4]),
            decided_by=row[5],
            decided_at=float(row[6]),
        )
        for row in rows
    }

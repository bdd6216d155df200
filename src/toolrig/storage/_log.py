"""The execution log interface and what every backend shares.

Backends implement five small methods (connect, migrate, insert, select, close); recording,
querying and the LLM-facing summary are written once here.

Writing never fails silently. Every value is encoded totally (see `._encode`); a record
that still cannot be written (the database refuses it or is unreachable) is counted for its
run (`ExecutionLog.failed_writes`, and a line of `ExecutionLog.get_summary`), told
to the failure listeners and warned about (see `._failures`).
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from toolrig.core.context._events import Listeners
from toolrig.core.context._recording import Recording, recording
from toolrig.core.model._names import ActionRef
from toolrig.core.result._result import ToolResult
from toolrig.storage._encode import storable_text
from toolrig.storage._failures import LogWriteWarning, WriteFailure
from toolrig.storage._record import ExecutionRecord, RecordStatus, status_of
from toolrig.storage._results import insert_result, select_result, select_result_of_call
from toolrig.storage._rows import COLUMNS, from_row, to_row
from toolrig.storage._runs import RunInfo, RunStatus, finish_run, run_info, start_run
from toolrig.storage._summary import summarise

__all__ = ["ExecutionLog"]


class ExecutionLog(ABC):
    """Where executions are recorded and read back. Safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._all: list[Any] = []
        self._local = threading.local()
        self._failures: Listeners[WriteFailure] = Listeners()
        self._failed: dict[str, int] = {}

    # -- what a backend provides ---------------------------------------------------------
    table: str = "executions"
    """The table holding the records."""
    placeholder: str = "?"
    """The driver's parameter marker."""
    keep_requests: bool = False
    """Whether the request texts that led to tool calls are stored (see
    `RequestLog`); off unless set, as they are what users typed."""

    @abstractmethod
    def _connect(self) -> Any:
        """A new connection (autocommit: each statement is its own transaction)."""

    @abstractmethod
    def _insert(self, row: tuple[Any, ...]) -> int:
        """Insert one row (values in `COLUMNS` order) in its own transaction; its id."""

    # -- connections: one per thread, all closed together ---------------------------------
    def _conn(self) -> Any:
        local = self._local
        conn = getattr(local, "conn", None)
        if conn is None or getattr(conn, "closed", False):
            conn = self._connect()
            local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def _select(
        self, where: str, params: list[Any], order: str, limit: int | None
    ) -> list[tuple[Any, ...]]:
        """Rows ``(id, *COLUMNS)`` matching ``where`` (written with ``?`` placeholders)."""
        if self.placeholder != "?":
            where = where.replace("?", self.placeholder)
        sql = f"SELECT id, {', '.join(COLUMNS)} FROM {self.table} WHERE {where} ORDER BY {order}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return list(self._conn().execute(sql, params).fetchall())

    def _insert_sql(self) -> str:
        marks = ", ".join(self.placeholder for _ in COLUMNS)
        return f"INSERT INTO {self.table} ({', '.join(COLUMNS)}) VALUES ({marks})"

    def close(self) -> None:
        """Close every connection this log opened (they reopen on the next use)."""
        with self._lock:
            conns, self._all = self._all, []
            self._local = threading.local()
        for conn in conns:
            conn.close()

    # -- writing -------------------------------------------------------------------------
    def add_result(
        self,
        executor: str,
        executor_type: str,
        action: str | None,
        input_data: Any,
        output: Any,
        status: str,
        error_message: str | None = None,
        *,
        run_id: str,
        step_id: str | None = None,
        tool_call_id: str | None = None,
        error_code: str | None = None,
        started_at: float | None = None,
        finished_at: float | None = None,
        duration_ms: float | None = None,
        attempts: int = 1,
        cost: float | None = None,
        tool_version: str | None = None,
        error_hint: str | None = None,
        parent_call_id: str | None = None,
    ) -> int:
        """Record one execution; returns its id. Committed when this returns.

        Any value is stored (see `._encode`); when the backend still refuses the record,
        the failure is counted, told and warned about, then raised.
        """
        status = status_of(status).value
        if not run_id:
            raise ValueError("run_id is required: it groups the records of one run")
        try:
            row = to_row(
                run_id=run_id,
                step_id=step_id,
                tool_call_id=tool_call_id,
                executor=executor,
                executor_type=executor_type,
                action=action,
                input_data=input_data,
                output=output,
                status=status,
                error_code=error_code,
                error_message=error_message,
                started_at=started_at,
                finished_at=finished_at,
                duration_ms=duration_ms,
                attempts=attempts,
                cost=cost,
                tool_version=tool_version,
                error_hint=error_hint,
                parent_call_id=parent_call_id,
            )
            return self._insert(row)
        except Exception as exc:
            self._lost(run_id, executor, tool_call_id, step_id, exc)
            raise

    # -- the recording scope's sink ----------------------------------------------------------
    def record_call(
        self,
        scope: Recording,
        result: ToolResult,
        arguments: Mapping[str, Any] | None,
        tool_version: str | None,
        status: str | None = None,
    ) -> None:
        """Write the one record of a finished call (`CallSink`): its status from the result
        (a held call is not recorded until decided, see ``core.context._recording``).
        A record that cannot be written is counted, told and warned about, never raised."""
        meta = result.metadata
        decision = meta.decision if meta is not None else None
        if decision == "held":
            return
        if status is None:
            if decision == "denied":
                status = RecordStatus.DENIED
            elif decision == "answered":
                status = RecordStatus.ANSWERED
            else:
                status = RecordStatus.SUCCEEDED if result.success else RecordStatus.FAILED
        error = result.error
        started = meta.started_at if meta else time.time()
        duration = meta.duration_ms if meta else 0.0
        cost = meta.cost if meta is not None and meta.cost is not None else scope.cost
        with contextlib.suppress(Exception):  # counted, told and warned about by add_result
            self.add_result(
                meta.tool if meta else "?",
                "tool",
                meta.action if meta else None,
                arguments,
                result.output if result.success else _guardrail_outcome(result),
                status,
                None if error is None else error.message,
                run_id=scope.run_id,
                step_id=scope.step_id,
                tool_call_id=meta.tool_call_id if meta else None,
                error_code=None if error is None else error.code,
                error_hint=None if error is None else error.hint,
                started_at=started,
                finished_at=started + duration / 1000.0,
                duration_ms=duration,
                attempts=meta.attempts if meta else 1,
                cost=cost,
                tool_version=tool_version,
                parent_call_id=scope.parent_call_id,
            )

    def keep_result(
        self, handle: str, text: str, *, run_id: str, tool: str, tool_call_id: str | None
    ) -> None:
        """Keep the whole output of a result cut to its budget (``results`` table); raises
        when the log cannot write it (the budget then keeps it in memory)."""
        try:
            insert_result(self, handle, text, run_id=run_id, tool=tool, tool_call_id=tool_call_id)
        except Exception as exc:
            self._lost(run_id, tool, tool_call_id, None, exc)
            raise

    def read_result(self, handle: str) -> str | None:
        """The whole output kept under ``handle`` (``None``: no such handle in this log)."""
        return select_result(self, handle)

    def result_handle(self, run_id: str, tool_call_id: str) -> str | None:
        """The handle of a call's whole output, when its result was cut."""
        return select_result_of_call(self, run_id, tool_call_id)

    def record_turn(
        self,
        scope: Recording,
        *,
        model: str,
        provider: str,
        input_data: Mapping[str, Any] | None,
        output: Any,
        error: str | None,
        duration_ms: float,
    ) -> None:
        """Write a model turn's record: what it was given (see `._turn_input`) and what it
        answered. Never raises into the run."""
        with contextlib.suppress(Exception):
            self.add_result(
                model,
                "llm",
                provider,
                input_data,
                output,
                RecordStatus.FAILED if error else RecordStatus.SUCCEEDED,
                error,
                run_id=scope.run_id,
                step_id=scope.step_id,
                duration_ms=duration_ms,
            )

    def start_run(
        self,
        run_id: str,
        kind: str,
        *,
        name: str | None = None,
        session_id: str | None = None,
    ) -> Recording:
        """Note that a run starts; the recording scope its calls are recorded in (a run row
        that cannot be written is counted, told and warned about; the run goes on)."""
        try:
            start_run(self, run_id, kind, name=name, session_id=session_id)
        except Exception as exc:
            self._lost(run_id, "run", None, None, exc)
        return Recording(sink=self, run_id=run_id, session_id=session_id, agent=name)

    def finish_run(
        self,
        run_id: str,
        status: RunStatus | str,
        *,
        stop_reason: str | None = None,
        error: str | None = None,
    ) -> None:
        """Note how a run ended (never raises into the run: a failure is warned about)."""
        try:
            finish_run(self, run_id, status, stop_reason=stop_reason, error=error)
        except Exception as exc:
            self._lost(run_id, "run", None, None, exc)

    @contextmanager
    def run(
        self,
        run_id: str | None = None,
        *,
        kind: str = "calls",
        name: str | None = None,
        session_id: str | None = None,
    ) -> Iterator[Recording]:
        """Record every call made inside (any executor, sync or async, nested calls
        included) as run ``run_id`` (a new id when left out); the run ends ``failed`` when a
        call failed or an exception escapes, else ``succeeded``."""
        run_id = run_id or f"run-{uuid.uuid4().hex[:12]}"
        scope = self.start_run(run_id, kind, name=name, session_id=session_id)
        try:
            with recording(scope):
                yield scope
        except BaseException:
            self.finish_run(run_id, RunStatus.FAILED, error="an exception escaped the run")
            raise
        try:
            failed = bool(self.query(run_id=run_id, status=RecordStatus.FAILED.value, limit=1))
        except Exception:  # the log cannot be read: the run is not known to have succeeded
            failed = True
        self.finish_run(run_id, RunStatus.FAILED if failed else RunStatus.SUCCEEDED)

    def run_info(self, run_id: str) -> RunInfo | None:
        """How run ``run_id`` stands (``None`` for loose calls recorded without a run)."""
        return run_info(self, run_id)

    # -- failed writes ---------------------------------------------------------------------
    def add_failure_listener(self, listener: Callable[[WriteFailure], None]) -> None:
        """``listener(failure)`` is told of every record this log could not write."""
        self._failures.add(listener)

    def remove_failure_listener(self, listener: Callable[[WriteFailure], None]) -> None:
        """Stop telling ``listener``."""
        self._failures.remove(listener)

    def failed_writes(self, run_id: str | None = None) -> int:
        """How many records (of ``run_id``, or of any run) this log object could not write."""
        with self._lock:
            return self._failed.get(run_id, 0) if run_id is not None else sum(self._failed.values())

    def _lost(
        self,
        run_id: str,
        executor: Any,
        tool_call_id: Any,
        step_id: Any,
        exc: BaseException,
    ) -> None:
        """Count, tell and warn about a record that could not be written."""
        try:
            message = str(exc)
        except Exception:
            message = "(its message could not be rendered)"
        failure = WriteFailure(
            run_id=storable_text(run_id) or "",
            executor=storable_text(executor) or "?",
            tool_call_id=storable_text(tool_call_id),
            step_id=storable_text(step_id),
            error=f"{type(exc).__name__}: {storable_text(message)}",
        )
        with self._lock:
            self._failed[failure.run_id] = self._failed.get(failure.run_id, 0) + 1
        self._failures.emit(failure)
        warnings.warn(
            LogWriteWarning(
                f"{self!r} could not record a call of {failure.executor!r} in run "
                f"{failure.run_id!r}: {failure.error}"
            ),
            stacklevel=3,
        )

    # -- reading -------------------------------------------------------------------------
    def query(
        self,
        *,
        run_id: str | None = None,
        tool: str | None = None,
        action: str | None = None,
        status: str | None = None,
        step_id: str | None = None,
        since: float | None = None,
        until: float | None = None,
        after_id: int | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[ExecutionRecord]:
        """Records matching every filter given (times are epoch seconds of ``started_at``).

        ``after_id`` keeps the records written after the one with that id: a reader following
        the log asks for them, since a record is written when its call ends and a call that
        started earlier can end later."""
        clauses: list[str] = []
        params: list[Any] = []
        for column, value in (
            ("run_id", run_id),
            ("executor", tool),
            ("action", action),
            ("status", None if status is None else status_of(status).value),
            ("step_id", step_id),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        if after_id is not None:
            clauses.append("id > ?")
            params.append(after_id)
        if since is not None:
            clauses.append("started_at >= ?")
            params.append(since)
        if until is not None:
            clauses.append("started_at < ?")
            params.append(until)
        if limit is not None and limit < 0:
            raise ValueError("limit must be positive")
        order = "id DESC" if newest_first else "id ASC"
        rows = self._select(" AND ".join(clauses) or "1 = 1", params, order, limit)
        return [from_row(row) for row in rows]

    def tool_usage(
        self, *, since: float | None = None, successful_only: bool = True
    ) -> dict[str, int]:
        """Tool calls counted by name, for tool search's usage prior
        (``ToolIndex.set_usage``): ``tool`` counts every call of a tool, ``tool.action`` the
        calls of one action. Plan steps that were skipped and agent turns are not calls."""
        clauses = ["executor_type = ?"]
        params: list[Any] = ["tool"]
        if successful_only:
            clauses.append("status = ?")
            params.append(RecordStatus.SUCCEEDED.value)
        else:  # calls that ran: not the steps never run nor the calls a person decided
            clauses.append("status NOT IN (?, ?, ?)")
            params.extend(
                s.value for s in (RecordStatus.SKIPPED, RecordStatus.DENIED, RecordStatus.ANSWERED)
            )
        if since is not None:
            clauses.append("started_at >= ?")
            params.append(since)
        sql = (
            f"SELECT executor, action, COUNT(*) FROM {self.table} "
            f"WHERE {' AND '.join(clauses)} GROUP BY executor, action"
        )
        if self.placeholder != "?":
            sql = sql.replace("?", self.placeholder)
        counts: dict[str, int] = {}
        for tool, action, calls in self._conn().execute(sql, params).fetchall():
            counts[tool] = counts.get(tool, 0) + int(calls)
            ref = ActionRef.of_record(tool, action)
            if ref.multi:
                counts[ref.call_name] = counts.get(ref.call_name, 0) + int(calls)
        return counts

    def purge_requests(
        self, *, before: float | None = None, tool: str | None = None, run_id: str | None = None
    ) -> int:
        """Delete stored request texts (see `RequestLog.purge`); how many."""
        from toolrig.storage._requests import RequestLog

        return RequestLog(self).purge(before=before, tool=tool, run_id=run_id)

    def get_run(self, run_id: str) -> list[ExecutionRecord]:
        """Every record of a run, oldest first."""
        return self.query(run_id=run_id)

    def get_summary(
        self, run_id: str, *, max_chars: int = 4000, max_output_chars: int = 400
    ) -> str:
        """A compact text of a run's results for an LLM's context, at most ``max_chars`` long.

        Long outputs are shortened with a marker; errors are always kept; when everything does
        not fit, the oldest successful results are dropped first and their number is said.
        """
        return summarise(
            self.get_run(run_id),
            run_id,
            max_chars=max_chars,
            max_output_chars=max_output_chars,
            lost=self.failed_writes(run_id),
        )

    def __enter__(self) -> ExecutionLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._lock:
            yield


def _guardrail_outcome(result: ToolResult) -> dict[str, Any] | None:
    """What a guardrail decided on a call it stopped (kept as the record's output: the tool's
    own output, when it ran, is never stored), else ``None``."""
    extra = result.metadata.extra if result.metadata is not None else None
    outcome = extra.get("guardrail") if extra else None
    return {"guardrail": outcome} if isinstance(outcome, dict) else None

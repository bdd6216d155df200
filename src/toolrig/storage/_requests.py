"""``RequestLog``: the request texts that led to tool calls, kept beside the execution log.

Each row pairs a request (the user's turn, or the query a model searched with) with the tool
it led to and whether the call succeeded. Tool search learns from these pairs which tools
answer which requests (``ToolIndex.learn``). Request texts are what users typed, so nothing
is stored unless enabled (``RequestLog(log, enabled=True)``, or ``log.keep_requests = True``
for every writer of that log object), and `RequestLog.purge` (also
``ExecutionLog.purge_requests``) deletes them, all or by age, tool or run.

The table lives in the execution log's database (``tool_requests`` in SQLite,
``toolrig_tool_requests`` in PostgreSQL) with migrations of its own, versioned in
``toolrig_component_versions``, so it can be added to logs that already exist.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final, Protocol

__all__ = ["MAX_REQUEST_CHARS", "RequestLog", "RequestPair"]

MAX_REQUEST_CHARS: Final = 10_000
"""Longer requests are stored cut to this length."""
_COMPONENT: Final = "tool_requests"
_LOCK_KEY: Final = 0x746F6F6C72657173  # PostgreSQL advisory lock while migrating ("toolreqs")

_SQLITE: Final = (
    """
    CREATE TABLE IF NOT EXISTS tool_requests (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        request TEXT NOT NULL,
        tool TEXT NOT NULL,
        succeeded INTEGER NOT NULL,
        source TEXT NOT NULL,
        run_id TEXT,
        created_at REAL NOT NULL
    );
    CREATE INDEX IF NOT EXISTS tool_requests_tool ON tool_requests (tool);
    CREATE INDEX IF NOT EXISTS tool_requests_created ON tool_requests (created_at)
    """,
)
_POSTGRES: Final = (
    """
    CREATE TABLE IF NOT EXISTS toolrig_tool_requests (
        id BIGSERIAL PRIMARY KEY,
        request TEXT NOT NULL,
        tool TEXT NOT NULL,
        succeeded BOOLEAN NOT NULL,
        source TEXT NOT NULL,
        run_id TEXT,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX IF NOT EXISTS toolrig_tool_requests_tool ON toolrig_tool_requests (tool);
    CREATE INDEX IF NOT EXISTS toolrig_tool_requests_created
        ON toolrig_tool_requests (created_at)
    """,
)


class _Database(Protocol):
    """What the request log needs of an execution log (``ExecutionLog`` is one): its
    per-thread connection, the driver's parameter marker and the keep-requests setting."""

    placeholder: str
    keep_requests: bool

    def _conn(self) -> Any: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestPair:
    """One request and the tool call it led to."""

    request: str
    tool: str
    """The name called: ``tool`` or ``tool.action``."""
    succeeded: bool
    source: str
    """``"user"`` (a user's turn) or ``"search"`` (a model's tool-search query)."""
    run_id: str | None
    created_at: float
    """Seconds since the epoch."""


class RequestLog:
    """The (request, tool) pairs of an execution log's database.

    Nothing is stored unless enabled: by ``enabled=True``, or, when ``enabled`` is left
    out, by the log's ``keep_requests`` setting (off by default); otherwise `record`
    returns ``False``. Reading and purging work either way.
    """

    def __init__(self, log: _Database, *, enabled: bool | None = None) -> None:
        self.log = log
        self.enabled = bool(log.keep_requests) if enabled is None else enabled
        self._postgres = log.placeholder != "?"
        self.table = "toolrig_tool_requests" if self._postgres else "tool_requests"
        self._migrate()

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self._postgres else sql

    def _execute(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> Any:
        return self.log._conn().execute(self._sql(sql), params)

    def _migrate(self) -> None:
        scripts = _POSTGRES if self._postgres else _SQLITE
        conn = self.log._conn()
        if self._postgres:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                self._apply(scripts)
            return
        conn.execute("BEGIN IMMEDIATE")  # one process migrates at a time
        try:
            self._apply(scripts)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _apply(self, scripts: tuple[str, ...]) -> None:
        self._execute(
            "CREATE TABLE IF NOT EXISTS toolrig_component_versions "
            "(component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
        )
        row = self._execute(
            "SELECT version FROM toolrig_component_versions WHERE component = ?", (_COMPONENT,)
        ).fetchone()
        version = 0 if row is None else int(row[0])
        if version > len(scripts):
            raise RuntimeError(
                f"the request log's schema version {version} is newer than this toolrig "
                f"({len(scripts)}); upgrade toolrig to read it"
            )
        for number, script in enumerate(scripts[version:], start=version + 1):
            for statement in filter(str.strip, script.split(";")):
                self._execute(statement)
            if row is None:
                self._execute(
                    "INSERT INTO toolrig_component_versions (component, version) VALUES (?, ?)",
                    (_COMPONENT, number),
                )
                row = (number,)
            else:
                self._execute(
                    "UPDATE toolrig_component_versions SET version = ? WHERE component = ?",
                    (number, _COMPONENT),
                )

    def record(
        self,
        request: str,
        tool: str,
        *,
        succeeded: bool = True,
        source: str = "user",
        run_id: str | None = None,
        created_at: float | None = None,
    ) -> bool:
        """Store that ``request`` led to a call of ``tool``; ``False`` (nothing stored) when
        the log is not enabled or the request is blank."""
        if not self.enabled:
            return False
        if not isinstance(request, str) or not isinstance(tool, str) or not tool:
            raise TypeError("request and tool must be strings (a tool name is required)")
        text = request.strip()[:MAX_REQUEST_CHARS]
        if not text:
            return False
        self._execute(
            f"INSERT INTO {self.table} (request, tool, succeeded, source, run_id, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                text,
                tool,
                bool(succeeded) if self._postgres else int(bool(succeeded)),
                source,
                run_id,
                time.time() if created_at is None else float(created_at),
            ),
        )
        return True

    def pairs(
        self,
        *,
        successful_only: bool = True,
        since: float | None = None,
        limit: int | None = 100_000,
    ) -> list[RequestPair]:
        """Stored pairs, newest first (``limit`` of them; ``None`` for all)."""
        clauses, params = self._where(since=since)
        if successful_only:
            clauses.append("succeeded = ?")
            params.append(True if self._postgres else 1)
        sql = (
            f"SELECT request, tool, succeeded, source, run_id, created_at FROM {self.table} "
            f"WHERE {' AND '.join(clauses) or '1 = 1'} ORDER BY id DESC"
        )
        if limit is not None:
            if limit < 0:
                raise ValueError("limit must be positive")
            sql += f" LIMIT {int(limit)}"
        return [
            RequestPair(
                request=request,
                tool=tool,
                succeeded=bool(ok),
                source=source,
                run_id=run_id,
                created_at=float(at),
            )
            for request, tool, ok, source, run_id, at in self._execute(sql, params).fetchall()
        ]

    def purge(
        self, *, before: float | None = None, tool: str | None = None, run_id: str | None = None
    ) -> int:
        """Delete stored requests (every one without filters; else those older than
        ``before``, of ``tool`` and of ``run_id``, all that are given); how many."""
        clauses, params = self._where(before=before, tool=tool, run_id=run_id)
        cursor = self._execute(
            f"DELETE FROM {self.table} WHERE {' AND '.join(clauses) or '1 = 1'}", params
        )
        return int(cursor.rowcount or 0)

    def _where(
        self,
        *,
        since: float | None = None,
        before: float | None = None,
        tool: str | None = None,
        run_id: str | None = None,
    ) -> tuple[list[str], list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        for clause, value in (
            ("created_at >= ?", since),
            ("created_at < ?", before),
            ("tool = ?", tool),
            ("run_id = ?", run_id),
        ):
            if value is not None:
                clauses.append(clause)
                params.append(value)
        return clauses, params

    def __repr__(self) -> str:
        return f"RequestLog({self.log!r}, enabled={self.enabled})"

"""The default execution log: one SQLite file in WAL mode, versioned with migrations.

Each thread gets its own connection; several processes may write to the same file (WAL plus a
busy timeout serialise their short write transactions). Every insert is its own committed
transaction, so a process killed mid-write loses at most the record it was writing.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from toolrig.storage._encode import as_written
from toolrig.storage._log import ExecutionLog
from toolrig.storage._results import SQLITE_MIGRATION as RESULTS_SQLITE
from toolrig.storage._runs import SQLITE_MIGRATION as RUNS_SQLITE
from toolrig.storage._sessions import SQLITE_APPROVAL_MIGRATION as APPROVAL_SQLITE
from toolrig.storage._sessions import SQLITE_MIGRATION as SESSIONS_SQLITE
from toolrig.storage._spent import SQLITE_SPENT_MIGRATION as SPENT_SQLITE
from toolrig.storage._tasks import SQLITE_TASKS_MIGRATION as TASKS_SQLITE

__all__ = ["SQLiteExecutionLog", "default_log_path"]

MIGRATIONS: tuple[str, ...] = (
    # 1: the executions table
    """
    CREATE TABLE IF NOT EXISTS executions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL,
        step_id TEXT,
        tool_call_id TEXT,
        executor TEXT NOT NULL,
        executor_type TEXT NOT NULL DEFAULT 'tool',
        action TEXT,
        input_data TEXT,
        output TEXT,
        status TEXT NOT NULL,
        error_message TEXT,
        started_at REAL NOT NULL,
        finished_at REAL NOT NULL,
        duration_ms REAL NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 1,
        cost REAL
    );
    CREATE INDEX IF NOT EXISTS executions_run ON executions (run_id, id);
    CREATE INDEX IF NOT EXISTS executions_executor ON executions (executor, started_at);
    CREATE INDEX IF NOT EXISTS executions_status ON executions (status, started_at);
    """,
    # 2: stable error codes next to the messages
    "ALTER TABLE executions ADD COLUMN error_code TEXT;",
    # 3: the one outcome vocabulary (succeeded / failed / skipped)
    "UPDATE executions SET status = 'succeeded' WHERE status = 'success';"
    "UPDATE executions SET status = 'failed' WHERE status = 'error';",
    # 4: the version of the tool that ran (a plan re-uses a step only for the same version)
    "ALTER TABLE executions ADD COLUMN tool_version TEXT;",
    # 5: agent sessions (a conversation's messages and its calls held for approval)
    SESSIONS_SQLITE,
    # 6: each session's approval policy and the call ids it used (approvals cannot be replayed)
    APPROVAL_SQLITE,
    # 7: the hint sent with each error, parent calls, runs and decisions
    RUNS_SQLITE,
    # 8: MCP tasks (their handles, statuses, results and open questions), spent round states
    TASKS_SQLITE + ";\n" + SPENT_SQLITE,
    # 9: the whole outputs of results cut to a budget (read back by handle)
    RESULTS_SQLITE,
)


def default_log_path() -> Path:
    """``$TOOLRIG_LOG`` if set, else ``executions.sqlite3`` in the user data folder
    (``~/.local/share/toolrig`` on Linux, the platform's equivalent elsewhere)."""
    env = os.environ.get("TOOLRIG_LOG")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_path

    return user_data_path("toolrig", appauthor=False) / "executions.sqlite3"


class _Connection(sqlite3.Connection):
    """A connection that sends text parameters as `as_written` stores them (NUL and lone
    surrogates as U+FFFD, as the PostgreSQL log sends them too), so a key read back with one
    finds what was written under it, the same on both backends."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        if isinstance(parameters, (list, tuple)) and any(
            type(p) is str and (not p.isascii() or "\x00" in p) for p in parameters
        ):
            parameters = [as_written(p) if type(p) is str else p for p in parameters]
        return super().execute(sql, parameters)


class SQLiteExecutionLog(ExecutionLog):
    """Execution log in a SQLite file (created with its folders when missing)."""

    schema_version = len(MIGRATIONS)

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        busy_timeout: float = 30.0,
        synchronous: str = "NORMAL",
    ) -> None:
        super().__init__()
        if synchronous.upper() not in ("NORMAL", "FULL", "EXTRA"):
            raise ValueError(
                "synchronous must be NORMAL (safe against process crashes), FULL or "
                "EXTRA (also against power loss)"
            )
        self.path = Path(path) if path is not None else default_log_path()
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._busy_timeout = busy_timeout
        self._synchronous = synchronous.upper()
        self._memory = str(self.path) == ":memory:"
        self._shared: sqlite3.Connection | None = None
        self._migrate(self._conn())

    def _conn(self) -> Any:
        """One connection per thread, except for ``:memory:``: each connection to it would be
        a database of its own, so every thread shares the one that holds it (SQLite
        serializes its use)."""
        if not self._memory:
            return super()._conn()
        with self._lock:
            shared = self._shared
            if shared is None or shared not in self._all:
                shared = self._shared = self._connect()
                self._all.append(shared)
                fresh = True
            else:
                fresh = False
        if fresh and getattr(self, "_migrated", False):
            self._migrate(shared)  # reopened after close(): an empty database again
        self._migrated = True
        return shared

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path,
            timeout=self._busy_timeout,
            isolation_level=None,
            check_same_thread=False,
            factory=_Connection,
        )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self._synchronous}")
        conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout * 1000)}")
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")  # one process migrates at a time
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise RuntimeError(
                    f"{self.path} has schema version {version}, newer than this toolrig "
                    f"({len(MIGRATIONS)}); upgrade toolrig to read it"
                )
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in filter(str.strip, script.split(";")):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version={number}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _insert(self, row: tuple[Any, ...]) -> int:
        cursor = self._conn().execute(self._insert_sql(), row)
        return int(cursor.lastrowid or 0)

    def __repr__(self) -> str:
        return f"SQLiteExecutionLog({str(self.path)!r})"

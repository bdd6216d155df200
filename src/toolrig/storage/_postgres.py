"""Execution log on PostgreSQL, for teams and servers (same interface as the SQLite log).

Needs the ``postgres`` extra (``pip install 'toolrig[postgres]'``, which brings psycopg 3).
"""

from __future__ import annotations

from typing import Any

from toolrig.storage._encode import as_written
from toolrig.storage._log import ExecutionLog
from toolrig.storage._results import POSTGRES_MIGRATION as RESULTS_POSTGRES
from toolrig.storage._runs import POSTGRES_MIGRATION as RUNS_POSTGRES
from toolrig.storage._sessions import POSTGRES_APPROVAL_MIGRATION as APPROVAL_POSTGRES
from toolrig.storage._sessions import POSTGRES_MIGRATION as SESSIONS_POSTGRES
from toolrig.storage._spent import POSTGRES_SPENT_MIGRATION as SPENT_POSTGRES
from toolrig.storage._tasks import POSTGRES_TASKS_MIGRATION as TASKS_POSTGRES

__all__ = ["PostgresExecutionLog"]

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS toolrig_executions (
        id BIGSERIAL PRIMARY KEY,
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
        started_at DOUBLE PRECISION NOT NULL,
        finished_at DOUBLE PRECISION NOT NULL,
        duration_ms DOUBLE PRECISION NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 1,
        cost DOUBLE PRECISION
    );
    CREATE INDEX IF NOT EXISTS toolrig_executions_run ON toolrig_executions (run_id, id);
    CREATE INDEX IF NOT EXISTS toolrig_executions_executor
        ON toolrig_executions (executor, started_at);
    CREATE INDEX IF NOT EXISTS toolrig_executions_status ON toolrig_executions (status, started_at)
    """,
    "ALTER TABLE toolrig_executions ADD COLUMN IF NOT EXISTS error_code TEXT",
    # the one outcome vocabulary (succeeded / failed / skipped)
    "UPDATE toolrig_executions SET status = 'succeeded' WHERE status = 'success';"
    "UPDATE toolrig_executions SET status = 'failed' WHERE status = 'error'",
    # the version of the tool that ran (a plan re-uses a step only for the same version)
    "ALTER TABLE toolrig_executions ADD COLUMN IF NOT EXISTS tool_version TEXT",
    # agent sessions (a conversation's messages and its calls held for approval)
    SESSIONS_POSTGRES,
    # 6: each session's approval policy and the call ids it used (approvals cannot be replayed)
    APPROVAL_POSTGRES,
    # 7: the hint sent with each error, parent calls, runs and decisions
    RUNS_POSTGRES,
    # 8: MCP tasks (their handles, statuses, results and open questions), spent round states
    TASKS_POSTGRES + ";\n" + SPENT_POSTGRES,
    # 9: the whole outputs of results cut to a budget (read back by handle)
    RESULTS_POSTGRES,
)

_LOCK_KEY = 0x746F6F6C726967  # advisory lock id used while migrating ("toolrig")


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise ImportError(
            "The PostgreSQL execution log needs psycopg: pip install 'toolrig[postgres]'"
        ) from exc
    return psycopg


def _store_nul_as_written(conn: Any) -> None:
    """Send every text parameter of ``conn`` as `as_written` stores it (NUL and lone surrogates
    as U+FFFD): PostgreSQL text cannot hold NUL, so a key read back with one (a run id in a
    URL, a task id from a client) finds what was written under it, instead of failing the
    statement."""
    from psycopg.types.string import StrBinaryDumper, StrDumperUnknown

    class Text(StrDumperUnknown):
        def dump(self, obj: str) -> Any:
            return super().dump(as_written(obj))

    class Binary(StrBinaryDumper):
        def dump(self, obj: str) -> Any:
            return super().dump(as_written(obj))

    conn.adapters.register_dumper(str, Text)
    conn.adapters.register_dumper(str, Binary)


class PostgresExecutionLog(ExecutionLog):
    """Execution log in a PostgreSQL database (table ``toolrig_executions``)."""

    table = "toolrig_executions"
    placeholder = "%s"

    schema_version = len(MIGRATIONS)

    def __init__(self, dsn: str, *, connect_timeout: float = 10.0) -> None:
        super().__init__()
        self._psycopg = _psycopg()
        self.dsn = dsn
        self._connect_timeout = connect_timeout
        self._migrate()

    def _connect(self) -> Any:
        conn = self._psycopg.connect(
            self.dsn, autocommit=True, connect_timeout=int(self._connect_timeout)
        )
        _store_nul_as_written(conn)
        return conn

    def _migrate(self) -> None:
        conn = self._conn()
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            conn.execute("CREATE TABLE IF NOT EXISTS toolrig_schema (version INTEGER NOT NULL)")
            row = conn.execute("SELECT version FROM toolrig_schema").fetchone()
            version = 0 if row is None else int(row[0])
            if row is None:
                conn.execute("INSERT INTO toolrig_schema (version) VALUES (0)")
            if version > len(MIGRATIONS):
                raise RuntimeError(
                    f"database schema version {version} is newer than this toolrig "
                    f"({len(MIGRATIONS)}); upgrade toolrig"
                )
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in filter(str.strip, script.split(";")):
                    conn.execute(statement)
                conn.execute("UPDATE toolrig_schema SET version = %s", (number,))

    def _insert(self, row: tuple[Any, ...]) -> int:
        cursor = self._conn().execute(self._insert_sql() + " RETURNING id", row)
        return int(cursor.fetchone()[0])

    def __repr__(self) -> str:
        return "PostgresExecutionLog(<dsn>)"

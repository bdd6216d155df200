"""The sealed input-round states an MCP server already took (table ``mcp_spent_states``,
``toolrig_mcp_spent_states`` on PostgreSQL; schema version 8, beside the tasks).

A 2026-07-28 ``requestState`` carries a nonce spent on first use. Kept here, the spent nonces
are shared by every process serving from one log (``toolrig serve --workers N --log``), so a
state replayed to another worker is refused as it is by the one that took it.
"""

from __future__ import annotations

import time
from typing import Any

from toolrig.storage._log import ExecutionLog

__all__ = ["POSTGRES_SPENT_MIGRATION", "SQLITE_SPENT_MIGRATION", "LogSpentStates"]

SQLITE_SPENT_MIGRATION = (
    "CREATE TABLE IF NOT EXISTS mcp_spent_states (nonce TEXT PRIMARY KEY, until REAL NOT NULL)"
)
"""The SQLite log's migration adding the spent states' table."""
POSTGRES_SPENT_MIGRATION = (
    "CREATE TABLE IF NOT EXISTS toolrig_mcp_spent_states "
    "(nonce TEXT PRIMARY KEY, until DOUBLE PRECISION NOT NULL)"
)
"""The PostgreSQL log's migration adding the spent states' table."""


class LogSpentStates:
    """The spent nonces of an execution log's database (SQLite or PostgreSQL)."""

    def __init__(self, log: ExecutionLog) -> None:
        self.log = log
        prefix = log.table[: -len("executions")] if log.table.endswith("executions") else ""
        self.table = f"{prefix}mcp_spent_states"

    def _run(self, sql: str, params: list[Any]) -> Any:
        return self.log._conn().execute(sql.replace("?", self.log.placeholder), params)

    def spend(self, nonce: str, ttl: float) -> bool:
        """Spend ``nonce`` for ``ttl`` seconds (its state's lifetime): ``False`` when some
        process already spent it. The primary key decides, so two racing spenders cannot
        both win."""
        now = time.time()
        self._run(f"DELETE FROM {self.table} WHERE until <= ?", [now])
        cursor = self._run(
            f"INSERT INTO {self.table} (nonce, until) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING",
            [nonce, now + ttl],
        )
        return bool(cursor.rowcount == 1)

"""What an open page follows live: a signature per page that changes when the page would.

The event stream (``/events``) checks the log once per tick (`LogWatch`: on SQLite one
``PRAGMA data_version``, which reads no table) and only when something was written reads the
page's signature, in one query:

- the runs list: the newest record id;
- a run: its newest record id (the ``(run_id, id)`` index) and its run row (by key);
- the approvals inbox: how many sessions hold calls and when the newest was saved, and how
  many decisions were recorded (the sessions the inbox itself reads; no index serves
  "holds calls", so this one is read only on a tick after a write).
"""

from __future__ import annotations

from typing import Any

from toolrig.storage._log import ExecutionLog
from toolrig.storage._sessions import LogSessionStore

__all__ = ["signature"]


def _table(log: ExecutionLog, name: str) -> str:
    prefix = log.table[: -len("executions")] if log.table.endswith("executions") else ""
    return f"{prefix}{name}"


def signature(log: ExecutionLog, topic: str, run_id: str | None = None) -> str:
    """The signature of page ``topic`` (``runs``, ``run`` with ``run_id``, ``approvals``)."""
    params: list[Any] = []
    if topic == "run" and run_id is not None:
        sql = (
            f"SELECT (SELECT MAX(id) FROM {log.table} WHERE run_id = ?), "
            f"(SELECT status FROM {_table(log, 'runs')} WHERE run_id = ?)"
        )
        params = [run_id, run_id]
    elif topic == "approvals":
        sessions = LogSessionStore(log).table
        sql = (
            f"SELECT (SELECT COUNT(*) FROM {sessions} WHERE pending IS NOT NULL), "
            f"(SELECT MAX(updated_at) FROM {sessions} WHERE pending IS NOT NULL), "
            f"(SELECT COUNT(*) FROM {_table(log, 'decisions')})"
        )
    else:
        sql = f"SELECT MAX(id) FROM {log.table}"
    if log.placeholder != "?":
        sql = sql.replace("?", log.placeholder)
    row = log._conn().execute(sql, params).fetchone()
    return "|".join("" if v is None else str(v) for v in row)

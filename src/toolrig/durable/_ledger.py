"""Start markers of a durable run's tool calls, in PostgreSQL, so a call is never silently run
twice.

The idea of the Celery workers' ledger (``toolrig.distributed``), for the steps of a workflow:
an engine runs a step again when its process died inside it, so the step first *claims* its
key. A claim that finds the key finished gives back the stored result; one that finds it
started and never finished knows the call was lost mid-way, and the caller decides by the
tool's annotations whether it may run again.
"""

from __future__ import annotations

import pickle
from typing import Any, Literal

from toolrig.core.result._result import ToolResult

__all__ = ["StepLedger"]

_TABLE = "toolrig_durable_calls"


class StepLedger:
    """The markers of durable tool calls in the PostgreSQL database at ``url``."""

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - the extra is installed with the tests
            raise ImportError(
                "the durable runs' ledger needs psycopg: pip install 'toolrig[dbos]'"
            ) from exc
        self._conn: Any = psycopg.connect(url, autocommit=True)
        self._conn.execute(
            f"CREATE TABLE IF NOT EXISTS {_TABLE} (key TEXT PRIMARY KEY, state TEXT NOT NULL, "
            "result BYTEA, at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )

    def claim(self, key: str) -> Literal["new", "lost"] | ToolResult:
        """Mark ``key`` started: ``"new"`` when nobody had, the stored result when it finished
        already, ``"lost"`` when it was started and never finished."""
        row = self._conn.execute(
            f"INSERT INTO {_TABLE} (key, state) VALUES (%s, 'started') "
            "ON CONFLICT (key) DO NOTHING RETURNING key",
            (key,),
        ).fetchone()
        if row is not None:
            return "new"
        found = self._conn.execute(
            f"SELECT state, result FROM {_TABLE} WHERE key = %s", (key,)
        ).fetchone()
        if found is not None and found[0] == "done" and found[1] is not None:
            result = pickle.loads(found[1])  # written by `finish` of this class only
            if isinstance(result, ToolResult):
                return result
        return "lost"

    def restart(self, key: str) -> None:
        """Mark ``key`` started again (a call that may repeat, run anew)."""
        self._conn.execute(
            f"UPDATE {_TABLE} SET state = 'started', result = NULL, at = now() WHERE key = %s",
            (key,),
        )

    def finish(self, key: str, result: ToolResult) -> None:
        """Store the result of ``key``."""
        self._conn.execute(
            f"UPDATE {_TABLE} SET state = 'done', result = %s, at = now() WHERE key = %s",
            (pickle.dumps(result), key),
        )

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

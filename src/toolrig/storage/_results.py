"""Whole outputs of cut results, by handle (table ``results``, ``toolrig_results`` on
PostgreSQL; schema version 9).

The result budget (``runtime._budget``) hands a model the head and the tail of a long
output; the whole text is written here first, with the run and call it belongs to, so
``read_result``, the console and an MCP client (``resources/read``) read it back exactly. The
text is stored as a JSON string, so every character (NUL included) survives both backends.
"""

from __future__ import annotations

import json
import time
from typing import Any

from toolrig.storage._encode import storable_text
from toolrig.storage._runs import _Database, _execute, _table

__all__ = [
    "POSTGRES_MIGRATION",
    "SQLITE_MIGRATION",
    "insert_result",
    "select_result",
    "select_result_of_call",
]


def _migration(prefix: str, real: str) -> str:
    return f"""
CREATE TABLE IF NOT EXISTS {prefix}results (
    handle TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    tool_call_id TEXT,
    chars INTEGER NOT NULL,
    text TEXT NOT NULL,
    created_at {real} NOT NULL
);
CREATE INDEX IF NOT EXISTS {prefix}results_call ON {prefix}results (run_id, tool_call_id)"""


SQLITE_MIGRATION = _migration("", "REAL")
"""Schema version 9 of the SQLite log: the whole outputs of cut results."""

POSTGRES_MIGRATION = _migration("toolrig_", "DOUBLE PRECISION")
"""Schema version 9 of the PostgreSQL log."""


def insert_result(
    log: _Database, handle: str, text: str, *, run_id: str, tool: str, tool_call_id: str | None
) -> None:
    """Keep ``text`` under ``handle`` (committed when this returns)."""
    _execute(
        log,
        f"INSERT INTO {_table(log, 'results')} "
        "(handle, run_id, tool, tool_call_id, chars, text, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            handle,
            storable_text(run_id),
            storable_text(tool),
            storable_text(tool_call_id),
            len(text),
            json.dumps(text, ensure_ascii=False),
            time.time(),
        ],
    )


def select_result(log: _Database, handle: str) -> str | None:
    """The text kept under ``handle`` (``None``: this log holds no such handle)."""
    rows = _execute(
        log, f"SELECT text FROM {_table(log, 'results')} WHERE handle = ?", [str(handle)]
    ).fetchall()
    return _text(rows[0][0]) if rows else None


def select_result_of_call(log: _Database, run_id: str, tool_call_id: str) -> str | None:
    """The handle of the call's kept output, if it was cut."""
    rows = _execute(
        log,
        f"SELECT handle FROM {_table(log, 'results')} WHERE run_id = ? AND tool_call_id = ?",
        [run_id, tool_call_id],
    ).fetchall()
    return str(rows[0][0]) if rows else None


def _text(stored: Any) -> str | None:
    try:
        value = json.loads(stored)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, str) else None

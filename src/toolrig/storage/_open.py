"""``open_log``: an execution log from a URL."""

from __future__ import annotations

from toolrig.storage._log import ExecutionLog
from toolrig.storage._sqlite import SQLiteExecutionLog

__all__ = ["open_log"]


def open_log(url: str | None = None) -> ExecutionLog:
    """An execution log from a URL: ``postgresql://...`` or a SQLite path / ``sqlite:///path``;
    ``None`` opens the default SQLite file (see `default_log_path`)."""
    if url is None:
        return SQLiteExecutionLog()
    if url.startswith(("postgresql://", "postgres://")):
        from toolrig.storage._postgres import PostgresExecutionLog

        return PostgresExecutionLog(url)
    if url.startswith("sqlite:///"):
        url = url[len("sqlite:///") :]
    return SQLiteExecutionLog(url)

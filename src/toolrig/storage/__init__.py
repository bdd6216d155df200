"""Storage: the execution log every tool call, plan step and agent turn is recorded in."""

from toolrig.storage.log import ExecutionLog
from toolrig.storage.record import ExecutionRecord, RecordStatus
from toolrig.storage.sqlite import SQLiteExecutionLog, default_log_path

__all__ = [
    "ExecutionLog",
    "ExecutionRecord",
    "PostgresExecutionLog",
    "RecordStatus",
    "SQLiteExecutionLog",
    "default_log_path",
    "open_log",
]


def __getattr__(name: str) -> object:
    if name == "PostgresExecutionLog":  # psycopg is an optional extra: import on demand
        from toolrig.storage.postgres import PostgresExecutionLog

        return PostgresExecutionLog
    raise AttributeError(name)


def open_log(url: str | None = None) -> ExecutionLog:
    """An execution log from a URL: ``postgresql://...`` or a SQLite path / ``sqlite:///path``;
    ``None`` opens the default SQLite file (see :func:`default_log_path`)."""
    if url is None:
        return SQLiteExecutionLog()
    if url.startswith(("postgresql://", "postgres://")):
        from toolrig.storage.postgres import PostgresExecutionLog

        return PostgresExecutionLog(url)
    if url.startswith("sqlite:///"):
        url = url[len("sqlite:///") :]
    return SQLiteExecutionLog(url)

"""Storage: the execution log every tool call, plan step and agent turn is recorded in.

The PostgreSQL log (psycopg is an optional extra) loads on first use of its name.
"""

import typing as _typing

from toolrig.core.model._lazy import lazy_names as _lazy_names
from toolrig.storage._failures import LogWriteWarning, WriteFailure
from toolrig.storage._log import ExecutionLog
from toolrig.storage._open import open_log
from toolrig.storage._record import ExecutionRecord, RecordStatus
from toolrig.storage._requests import RequestLog, RequestPair
from toolrig.storage._runs import RunInfo, RunStatus, StoredDecision
from toolrig.storage._sessions import (
    LogSessionStore,
    MemorySessionStore,
    SessionConflict,
    SessionState,
    SessionStore,
)
from toolrig.storage._sqlite import SQLiteExecutionLog, default_log_path

if _typing.TYPE_CHECKING:
    from toolrig.storage._postgres import PostgresExecutionLog

_LAZY = {"PostgresExecutionLog": "toolrig.storage._postgres"}

__all__ = [
    "ExecutionLog",
    "ExecutionRecord",
    "LogSessionStore",
    "LogWriteWarning",
    "MemorySessionStore",
    "PostgresExecutionLog",
    "RecordStatus",
    "RequestLog",
    "RequestPair",
    "RunInfo",
    "RunStatus",
    "SQLiteExecutionLog",
    "SessionConflict",
    "SessionState",
    "SessionStore",
    "StoredDecision",
    "WriteFailure",
    "default_log_path",
    "open_log",
]


__getattr__ = _lazy_names(__name__, _LAZY)

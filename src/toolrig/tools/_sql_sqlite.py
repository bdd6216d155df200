"""What ``db_tool`` lets run on SQLite, decided by SQLite itself.

The read connection is opened with ``mode=ro`` and ``PRAGMA query_only``; on top of that an
authorizer (``sqlite3.Connection.set_authorizer``) is asked by SQLite's own compiler about every
action a statement would take, while the statement is prepared: reading tables and columns,
``SELECT``, recursive CTEs and plain functions pass; writing, creating, dropping, ``ATTACH``,
``VACUUM``, setting a pragma and functions that load code are refused before anything runs. That
one statement is sent per call is checked by the ``sqlite3`` module (with SQLite's tokenizer).
Every value and every statement is bounded by ``Connection.setlimit`` (`LIMITS`): a string
or blob a query builds is at most `MAX_VALUE_BYTES`, so one function call over it takes
at most a fraction of a second; the SQL text, its expression depth, its compiled program and
its compound selects are bounded too, so a statement holds only so many such calls. SQLite
checks its progress handler and ``interrupt()`` only between steps of its program, so the hard
deadline and the memory ceiling of a query are those of the worker process it runs in
(``_fork_call``).
"""

from __future__ import annotations

import sqlite3
from typing import Any, Final

__all__ = [
    "DENIED_MESSAGES",
    "LIMITS",
    "MAX_VALUE_BYTES",
    "read_only_authorizer",
    "setup_read_only",
]

DENIED_MESSAGES: Final = ("not authorized", "authorization denied")
"""How SQLite's messages start when the authorizer refused a statement."""
MAX_VALUE_BYTES: Final = 4_000_000
"""The longest string or blob a query may build or read (``zeroblob(1e9)`` would take a
gigabyte). The slowest single call measured at this size, ``replace()`` of one character by two
over 2 MB, takes about 0.3 s; at 16 MB it took 1.5 s."""
LIMITS: Final = {
    sqlite3.SQLITE_LIMIT_LENGTH: MAX_VALUE_BYTES,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 100_000,  # as PostgreSQL's check
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 100,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 50,
    sqlite3.SQLITE_LIMIT_VDBE_OP: 100_000,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 1_000,
    sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER: 1_000,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
    sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH: 1,
}
"""``Connection.setlimit`` values of every read connection (SQLite's defaults: 1 GB values,
1 GB of SQL, depth 1000, 250 million program steps, 10 attached databases)."""

_ALLOWED: Final = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE})
_DENIED_FUNCTIONS: Final = frozenset(
    {"load_extension", "fts3_tokenizer", "readfile", "writefile", "edit", "zipfile"}
)
# Pragmas that only report (the argument names a table or an index, never a new value).
_REPORT_PRAGMAS: Final = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "database_list",
        "collation_list",
        "function_list",
        "module_list",
        "pragma_list",
        "compile_options",
    }
)
# Pragmas that set a value when given one: only reading them (no argument) is allowed.
_SETTING_PRAGMAS: Final = frozenset(
    {
        "user_version",
        "schema_version",
        "application_id",
        "data_version",
        "encoding",
        "page_size",
        "page_count",
        "freelist_count",
        "foreign_keys",
        "journal_mode",
        "query_only",
        "read_uncommitted",
    }
)


def read_only_authorizer(
    action: int, arg1: str | None, arg2: str | None, _db: str | None, _source: str | None
) -> int:
    """``SQLITE_OK`` for reading actions, ``SQLITE_DENY`` for everything else."""
    if action in _ALLOWED:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION:
        denied = (arg2 or "").lower() in _DENIED_FUNCTIONS
        return sqlite3.SQLITE_DENY if denied else sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA:
        name = (arg1 or "").lower()
        if name in _REPORT_PRAGMAS or (name in _SETTING_PRAGMAS and arg2 is None):
            return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def setup_read_only(dbapi_connection: Any, _record: Any = None) -> None:
    """Make a fresh ``sqlite3`` connection refuse to write (a SQLAlchemy ``connect`` listener)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA query_only = ON")
    cursor.close()
    dbapi_connection.set_authorizer(read_only_authorizer)
    for limit, value in LIMITS.items():
        dbapi_connection.setlimit(limit, value)

"""Database errors said for the model: each failure of a query becomes a :class:`ToolError`
with the code that tells who must act (refused, too slow, wrong parameters, wrong SQL)."""

from __future__ import annotations

from typing import Final

from sqlalchemy import exc

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._sql_sqlite import DENIED_MESSAGES

__all__ = ["orig_message", "sql_error"]

_READ_ONLY_STATES: Final = frozenset({"25006"})  # PostgreSQL read_only_sql_transaction
_ONE_STATEMENT: Final = "one statement at a time"  # what the sqlite3 module says


def orig_message(error: exc.StatementError) -> str:
    text = str(getattr(error, "orig", None) or error).strip()
    return text.split("\n[SQL:", 1)[0]


def sql_error(error: exc.StatementError) -> ToolError:
    message = orig_message(error)
    state = getattr(getattr(error, "orig", None), "sqlstate", None)
    lowered = message.lower()
    if _ONE_STATEMENT in lowered:
        return ToolError(
            "Only one SQL statement can be run per call.",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Send each statement in its own call.",
        )
    if lowered.startswith(DENIED_MESSAGES):
        return ToolError(
            "query_db is read-only: the statement would do more than read, and is refused.",
            code=ErrorCode.PERMISSION_DENIED,
            hint="query_db only reads: use one SELECT (or WITH ... SELECT).",
        )
    if state in _READ_ONLY_STATES or "readonly" in lowered or "read-only" in lowered:
        return ToolError(
            f"The statement tried to change data, which is refused here: {message}",
            code=ErrorCode.PERMISSION_DENIED,
            hint="query_db only reads; use SELECT.",
        )
    if "interrupted" in lowered or "statement timeout" in lowered:
        return ToolError(
            f"The query ran too long and was stopped: {message}",
            code=ErrorCode.TIMEOUT,
            hint="Narrow the query (WHERE, LIMIT) so it finishes sooner.",
        )
    if isinstance(error, exc.ArgumentError | exc.InvalidRequestError) or "bind" in lowered:
        return ToolError(
            f"The parameters do not match the query: {message}",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Every :name in the SQL needs a value in params.",
        )
    return ToolError(
        f"The database rejected the statement: {message}",
        code=ErrorCode.INVALID_ARGUMENTS,
        hint="Fix the SQL; describe_db lists tables and columns.",
    )

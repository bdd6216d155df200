"""SQL text checks and value conversion for ``db_tool``.

The checks here give the model a clear message early; they are not what keeps a query from
writing: the database itself does that (a read-only connection or transaction).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import re
import uuid
from typing import Any, Final

from toolrig.core._errors import ErrorCode, ToolError

__all__ = ["check_query", "jsonable", "split_table_name"]

READ_KEYWORDS: Final = frozenset({"select", "with", "values", "explain", "table", "show"})
_IDENT: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]{0,62}$")
_DOLLAR: Final = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")
_MAX_BYTES_SHOWN: Final = 256


def _skip_quoted(sql: str, i: int) -> int:
    """Index just after the literal, identifier or comment starting at ``i``; ``i`` if none."""
    ch = sql[i]
    if ch in "'\"`":
        j = i + 1
        while j < len(sql):
            if sql[j] == ch:
                if j + 1 < len(sql) and sql[j + 1] == ch:  # doubled quote
                    j += 2
                    continue
                return j + 1
            j += 1
        return len(sql)
    if sql.startswith("--", i):
        end = sql.find("\n", i)
        return len(sql) if end == -1 else end + 1
    if sql.startswith("/*", i):
        end = sql.find("*/", i + 2)
        return len(sql) if end == -1 else end + 2
    if ch == "$":
        match = _DOLLAR.match(sql, i)
        if match:
            end = sql.find(match.group(0), match.end())
            return len(sql) if end == -1 else end + len(match.group(0))
    return i


def _code_only(sql: str) -> str:
    """``sql`` with literals, quoted identifiers and comments blanked out (same length, so
    positions match the original)."""
    out: list[str] = []
    i = 0
    while i < len(sql):
        j = _skip_quoted(sql, i)
        if j != i:
            out.append(" " * (j - i))
            i = j
        else:
            out.append(sql[i])
            i += 1
    return "".join(out)


def check_query(sql: str) -> str:
    """``sql`` without a trailing ``;``, after checking it is one statement that reads.

    Raises ``invalid_arguments`` for several statements, ``permission_denied`` for a statement
    that does not start like a query.
    """
    code = _code_only(sql)
    stripped = code.rstrip().rstrip(";").rstrip()
    if ";" in stripped:
        raise ToolError(
            "Only one SQL statement can be run per call.",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Send each statement in its own call.",
        )
    words = stripped.lstrip(" \t\r\n(").split(None, 1)
    keyword = words[0].lower() if words else ""
    if keyword not in READ_KEYWORDS:
        raise ToolError(
            f"query_db only reads data; a {keyword.upper() or 'empty'} statement is refused.",
            code=ErrorCode.PERMISSION_DENIED,
            hint="Use a SELECT (or WITH ... SELECT) statement; add rows with insert_db.",
        )
    cut = len(sql.rstrip())
    while cut and sql[cut - 1] in "; \t\r\n" and code[cut - 1] in "; \t\r\n":
        cut -= 1
    return sql[:cut]


def split_table_name(name: str) -> tuple[str | None, str]:
    """``(schema, table)`` from ``table`` or ``schema.table``; identifiers only."""
    parts = name.split(".")
    if len(parts) > 2 or not all(_IDENT.match(p) for p in parts):
        raise ToolError(
            f"{name!r} is not a table name.",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Give a plain table name such as `orders` or `sales.orders`.",
        )
    return (parts[0], parts[1]) if len(parts) == 2 else (None, parts[0])


def jsonable(value: Any) -> Any:
    """A JSON-friendly form of a value read from a database."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        if len(data) > _MAX_BYTES_SHOWN:
            return f"<{len(data)} bytes>"
        return "base64:" + base64.b64encode(data).decode()
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return str(value)

"""Table names and value conversion for ``db_tool``.

Which statements may run is decided by each database's own grammar, in ``_sql_postgres`` and
``_sql_sqlite``; nothing here reads SQL text.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import re
import uuid
from typing import Any, Final

from toolrig.core.model._errors import ErrorCode, ToolError

__all__ = ["jsonable", "split_table_name"]

_IDENT: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]{0,62}$")
_MAX_BYTES_SHOWN: Final = 256


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

"""Rows added by ``db_tool``'s ``insert_db``: the table reflected from the database, the
columns checked against it, and the rows inserted with their new keys when the database
reports them."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Connection

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._db_errors import sql_error
from toolrig.tools._sql import jsonable, split_table_name

__all__ = ["check_columns", "insert_rows", "reflect"]


def reflect(conn: Connection, name: str) -> sa.Table:
    """The table ``name`` as the database describes it; ``not_found`` listing the tables."""
    schema, table = split_table_name(name)
    try:
        return sa.Table(table, sa.MetaData(), schema=schema, autoload_with=conn)
    except exc.NoSuchTableError:
        names = sorted(sa.inspect(conn).get_table_names(schema=schema))
        raise ToolError(
            f"There is no table {name!r}.",
            code=ErrorCode.NOT_FOUND,
            hint=f"Tables: {', '.join(names[:50]) or 'none'}.",
        ) from None


def check_columns(table: sa.Table, rows: list[dict[str, Any]]) -> None:
    """Refuse rows naming columns the table does not have, or no column at all."""
    known = set(table.columns.keys())
    unknown = sorted({key for row in rows for key in row} - known)
    if unknown:
        raise ToolError(
            f"Table {table.name!r} has no column {', '.join(map(repr, unknown))}.",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint=f"Columns: {', '.join(table.columns.keys())}.",
        )
    if any(not row for row in rows):
        raise ToolError("Every row needs at least one column.", code=ErrorCode.INVALID_ARGUMENTS)


def insert_rows(conn: Connection, table: sa.Table, rows: list[dict[str, Any]]) -> list[Any] | None:
    """Insert ``rows`` in order; the new primary keys when the database can return them."""
    keys = list(table.primary_key.columns)
    try:
        if keys and conn.dialect.insert_returning:
            statement = sa.insert(table).returning(*keys)
            ids: list[Any] = []
            for row in rows:
                pk = conn.execute(statement, row).one()
                ids.append(jsonable(pk[0]) if len(keys) == 1 else jsonable(dict(pk._mapping)))
            return ids
        groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for row in rows:
            groups.setdefault(tuple(sorted(row)), []).append(row)
        for batch in groups.values():
            conn.execute(sa.insert(table), batch)
    except exc.StatementError as error:
        raise sql_error(error) from None
    return None

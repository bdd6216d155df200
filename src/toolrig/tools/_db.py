"""``db_tool``: query a SQL database read-only, add rows, describe tables.

Any database SQLAlchemy reaches by URL; SQLite (a plain file path works too) needs nothing
else, PostgreSQL needs ``toolrig[postgres]``. Queries always run read-only, enforced by the
database: SQLite files are opened read-only (``mode=ro``, ``PRAGMA query_only``), PostgreSQL
queries run in a ``READ ONLY`` transaction that is rolled back. Values reach the SQL only as
bound parameters. ``insert_db`` needs ``read_only=False``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Final
from urllib.parse import quote

from pydantic import Field
from typing_extensions import TypedDict

from toolrig.core._base import BaseTool, action
from toolrig.core._errors import ErrorCode, ToolError
from toolrig.core._spec import ToolAnnotations
from toolrig.tools._sql import check_query, jsonable, split_table_name

try:
    import sqlalchemy as sa
    from sqlalchemy import event, exc
    from sqlalchemy.engine import Connection, Engine, make_url
except ImportError as _missing:  # pragma: no cover - depends on the environment
    raise ImportError("db_tool needs SQLAlchemy: pip install 'toolrig[db]'") from _missing

__all__ = ["DbTool", "DescribeOutput", "InsertOutput", "QueryOutput"]

Scalar = str | int | float | bool | None
_READ_ONLY: Final = ToolAnnotations(read_only=True, destructive=False, idempotent=True)
_READ_ONLY_STATES: Final = frozenset({"25006"})  # PostgreSQL read_only_sql_transaction


class QueryOutput(TypedDict):
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    """Rows returned (after the cap)."""
    truncated: bool
    """True when the query had more rows than the cap; refine it (WHERE, LIMIT) to see them."""


class InsertOutput(TypedDict):
    table: str
    inserted: int
    ids: list[Any] | None
    """Primary keys of the new rows, in order, when the database reports them."""


class Column(TypedDict):
    name: str
    type: str
    nullable: bool
    primary_key: bool


class DescribeOutput(TypedDict):
    tables: list[str]
    """Every table (when no table was named) or just the one described."""
    columns: list[Column] | None


class DbTool(BaseTool):
    """Query a SQL database (read-only), describe its tables, and add rows when allowed."""

    name = "db_tool"
    tags = ("database", "sql")
    layer = "tools"
    annotations = ToolAnnotations(open_world=False)

    def __init__(
        self,
        url: str | os.PathLike[str],
        *,
        read_only: bool = True,
        max_rows: int = 500,
        max_insert_rows: int = 1000,
        statement_timeout: float = 30.0,
        engine_options: Mapping[str, Any] | None = None,
    ) -> None:
        """``url``: a SQLAlchemy URL (``postgresql+psycopg://...``, ``sqlite:///file.db``) or
        the path of a SQLite file. ``read_only``: refuse ``insert_db`` (queries are read-only
        either way). ``max_rows``: rows returned by a query at most. ``statement_timeout``:
        seconds a query may run."""
        super().__init__()
        text = os.fspath(url)
        self.url = make_url(text if "://" in text else f"sqlite:///{Path(text)}")
        self.read_only = read_only
        self.max_rows = max_rows
        self.max_insert_rows = max_insert_rows
        self.statement_timeout = statement_timeout
        self.dialect = self.url.get_backend_name()
        options = dict(engine_options or {})
        self._reader = self._make_engine(read_only=True, options=options)
        self._writer = None if read_only else self._make_engine(read_only=False, options=options)

    def close(self) -> None:
        """Close the database connections."""
        self._reader.dispose()
        if self._writer is not None:
            self._writer.dispose()

    # -- actions -----------------------------------------------------------------------------
    @action(annotations=_READ_ONLY, output_description="Column names and rows (lists of values).")
    def query_db(
        self,
        sql: str,
        params: dict[str, Scalar] | None = None,
        max_rows: Annotated[int, Field(ge=1, le=10_000)] = 100,
    ) -> QueryOutput:
        """Run one read-only SQL query (SELECT / WITH) and return its columns and rows.

        Put every value in `params` and refer to it as `:name` in the SQL; never paste values
        into the SQL text. Rows beyond `max_rows` are not returned and `truncated` is true.

        Args:
            sql: One SELECT statement, e.g. `SELECT id, name FROM users WHERE city = :city`.
            params: Values for the `:name` placeholders, e.g. `{"city": "Paris"}`.
            max_rows: Most rows to return.
        """
        statement = sa.text(check_query(sql))
        cap = min(max_rows, self.max_rows)
        with self._read_connection() as conn:
            try:
                result = conn.execute(statement, dict(params or {}))
                columns = list(result.keys()) if result.returns_rows else []
                fetched = result.fetchmany(cap + 1) if result.returns_rows else []
            except exc.StatementError as error:
                raise _sql_error(error) from None
            finally:
                conn.rollback()
        rows = [[jsonable(v) for v in row] for row in fetched[:cap]]
        return QueryOutput(
            columns=columns, rows=rows, row_count=len(rows), truncated=len(fetched) > cap
        )

    @action(
        annotations=ToolAnnotations(read_only=False, destructive=False, idempotent=False),
        output_description="How many rows were inserted, and their ids when known.",
    )
    def insert_db(self, table: str, rows: list[dict[str, Any]]) -> InsertOutput:
        """Insert rows into a table in one transaction (all rows or none).

        Args:
            table: Table name, e.g. `orders` or `sales.orders`.
            rows: One object per row mapping column names to values.
        """
        if self._writer is None:
            raise ToolError(
                "This database is read-only: rows cannot be inserted.",
                code=ErrorCode.PERMISSION_DENIED,
                hint="Only query_db can be used here.",
            )
        if not rows:
            raise ToolError("Give at least one row.", code=ErrorCode.INVALID_ARGUMENTS)
        if len(rows) > self.max_insert_rows:
            raise ToolError(
                f"At most {self.max_insert_rows} rows can be inserted per call, not {len(rows)}.",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="Split the rows into several calls.",
            )
        with self._writer.begin() as conn:
            target = _reflect(conn, table)
            _check_columns(target, rows)
            ids = _insert(conn, target, rows)
        return InsertOutput(table=table, inserted=len(rows), ids=ids)

    @action(annotations=_READ_ONLY, output_description="Table names, or one table's columns.")
    def describe_db(self, table: str | None = None) -> DescribeOutput:
        """List the database's tables, or describe one table's columns (name, type, nullable,
        primary key). Use it before writing a query.

        Args:
            table: A table to describe; leave empty to list all tables.
        """
        with self._read_connection() as conn:
            try:
                if table is None:
                    inspector = sa.inspect(conn)
                    names = sorted(inspector.get_table_names() + inspector.get_view_names())
                    return DescribeOutput(tables=names, columns=None)
                target = _reflect(conn, table)
            finally:
                conn.rollback()
        columns = [
            Column(
                name=c.name,
                type=str(c.type),
                nullable=bool(c.nullable),
                primary_key=bool(c.primary_key),
            )
            for c in target.columns
        ]
        return DescribeOutput(tables=[table], columns=columns)

    # -- connections -------------------------------------------------------------------------
    def _make_engine(self, *, read_only: bool, options: dict[str, Any]) -> Engine:
        url = self.url
        connect_args: dict[str, Any] = dict(options.pop("connect_args", {}))
        if self.dialect == "sqlite" and read_only and url.database not in (None, "", ":memory:"):
            path = Path(url.database or "").resolve()
            url = url.set(database=f"file:{quote(str(path))}?mode=ro", query={"uri": "true"})
        if self.dialect == "postgresql" and url.get_driver_name() in ("psycopg", "psycopg2"):
            ms = int(self.statement_timeout * 1000)
            flags = f"-c statement_timeout={ms}"
            if read_only:
                flags += " -c default_transaction_read_only=on"
            connect_args["options"] = (connect_args.get("options", "") + " " + flags).strip()
        engine = sa.create_engine(url, connect_args=connect_args, **options)
        if self.dialect == "sqlite" and read_only:
            event.listen(engine, "connect", _sqlite_query_only)
        return engine

    @contextmanager
    def _read_connection(self) -> Iterator[Connection]:
        try:
            conn = self._reader.connect()
        except exc.OperationalError as error:
            raise ToolError(
                f"The database could not be opened: {_orig(error)}",
                hint="The database is unavailable; try again later.",
                retryable=True,
            ) from None
        with conn:
            if self.dialect == "sqlite":
                raw: Any = conn.connection.driver_connection
                deadline = time.monotonic() + self.statement_timeout
                raw.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
            else:
                conn.exec_driver_sql("SET TRANSACTION READ ONLY")
            try:
                yield conn
            finally:
                if self.dialect == "sqlite":
                    raw.set_progress_handler(None, 0)


def _sqlite_query_only(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA query_only = ON")
    cursor.close()


def _orig(error: exc.StatementError) -> str:
    text = str(getattr(error, "orig", None) or error).strip()
    return text.split("\n[SQL:", 1)[0]


def _sql_error(error: exc.StatementError) -> ToolError:
    message = _orig(error)
    state = getattr(getattr(error, "orig", None), "sqlstate", None)
    lowered = message.lower()
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


def _reflect(conn: Connection, name: str) -> sa.Table:
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


def _check_columns(table: sa.Table, rows: list[dict[str, Any]]) -> None:
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


def _insert(conn: Connection, table: sa.Table, rows: list[dict[str, Any]]) -> list[Any] | None:
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
        raise _sql_error(error) from None
    return None

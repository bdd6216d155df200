"""``db_tool``: query a SQL database read-only, add rows, describe tables.

Any database SQLAlchemy reaches by URL; SQLite (a plain file path works too) needs nothing
else, PostgreSQL needs ``toolrig[postgres]`` (the driver and ``pglast``, PostgreSQL's parser).
What a query may do is decided by the database itself, never by reading the SQL text here: on
PostgreSQL, ``pglast`` parses it and only plain queries pass (``_sql_postgres``), and every
function, operator and type it names is judged from the server's catalogue (``_pg_catalog``:
volatile functions are refused); on SQLite, SQLite's authorizer refuses every action but
reading (``_sql_sqlite``). Under that, the database enforces it again: SQLite files are opened
read-only (``mode=ro``, ``PRAGMA query_only``), PostgreSQL queries run in a ``READ ONLY``
transaction that is rolled back, with ``statement_timeout``, ``lock_timeout`` and
``idle_in_transaction_session_timeout``, as a role that is refused when it is a superuser or may
reach the server's files or programs (unless ``allow_privileged_role=True``). Other databases
get only the read-only transaction: their role is what keeps them read-only. Values reach the
SQL only as bound parameters. ``insert_db`` needs ``read_only=False``.

Results are bounded while they are read: PostgreSQL rows come through a server-side cursor,
``max_rows + 1`` at most, and every backend stops at ``max_result_bytes`` of JSON
(``_db_rows``). SQLite queries run in a forked worker process (``_fork_call``), killed at
``statement_timeout`` and capped at `QUERY_MEMORY` bytes, because SQLite cannot be
interrupted inside one function call.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Final
from urllib.parse import quote

from pydantic import Field
from typing_extensions import TypedDict

from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.tools import _db_worker as worker_side
from toolrig.tools._db_errors import orig_message, sql_error
from toolrig.tools._db_insert import check_columns, insert_rows, reflect
from toolrig.tools._db_rows import bounded_rows
from toolrig.tools._fork_call import ForkedWorkers, fork_available
from toolrig.tools._pg_catalog import CATALOGUE_QUERY, Catalogue, QueryNames
from toolrig.tools._sql_postgres import (
    ROLE_QUERY,
    check_postgres_query,
    narrow_role_sql,
    refused,
    require_pglast,
    role_problem,
)
from toolrig.tools._sql_sqlite import setup_read_only

try:
    import sqlalchemy as sa
    from sqlalchemy import event, exc
    from sqlalchemy.engine import Connection, Engine, make_url
except ImportError as _missing:  # pragma: no cover - depends on the environment
    raise ImportError("db_tool needs SQLAlchemy: pip install 'toolrig[db]'") from _missing

__all__ = ["DbTool", "DescribeOutput", "InsertOutput", "QueryOutput"]

Scalar = str | int | float | bool | None
_READ_ONLY: Final = ToolAnnotations(read_only=True, destructive=False, idempotent=True)
_ROLE_CHECKED: Final = "toolrig_role_checked"
_CATALOGUE: Final = "toolrig_catalogue"
QUERY_MEMORY: Final = 256_000_000
"""Bytes a SQLite query's worker process may allocate beyond what it holds."""


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
        allow_privileged_role: bool = False,
        trusted_functions: Iterable[str] = (),
        max_result_bytes: int = 10_000_000,
        engine_options: Mapping[str, Any] | None = None,
    ) -> None:
        """``url``: a SQLAlchemy URL (``postgresql+psycopg://...``, ``sqlite:///file.db``) or
        the path of a SQLite file. ``read_only``: refuse ``insert_db`` (queries are read-only
        either way). ``max_rows``: rows returned by a query at most. ``statement_timeout``:
        seconds a query may run. ``allow_privileged_role``: on PostgreSQL, run queries even as
        a superuser or a role that may read or write the server's files or run programs there
        (refused by default: a narrow role is the first line of defence).
        ``trusted_functions``: on PostgreSQL, functions (``name`` or ``schema.name``) allowed
        although the catalogue check refuses them (volatile, or written in SQL or a procedural
        language outside ``pg_catalog``). ``max_result_bytes``: the most JSON a query may
        return; a larger result is refused while it is read."""
        super().__init__()
        text = os.fspath(url)
        self.url = make_url(text if "://" in text else f"sqlite:///{Path(text)}")
        self.read_only = read_only
        self.max_rows = max_rows
        self.max_insert_rows = max_insert_rows
        self.statement_timeout = statement_timeout
        self.allow_privileged_role = allow_privileged_role
        self.trusted_functions = tuple(trusted_functions)
        self.max_result_bytes = max_result_bytes
        self.dialect = self.url.get_backend_name()
        self._dollar_dialect: Any = None
        if self.dialect == "postgresql":
            require_pglast()
            from sqlalchemy.dialects import postgresql

            # Compiled with $n placeholders, the text checked is the text the server parses.
            self._dollar_dialect = postgresql.dialect(paramstyle="numeric_dollar")  # type: ignore[no-untyped-call]
        options = dict(engine_options or {})
        self._reader = self._make_engine(read_only=True, options=dict(options))
        self._writer = (
            None if read_only else self._make_engine(read_only=False, options=dict(options))
        )
        self._workers: ForkedWorkers | None = None
        if self.dialect == "sqlite" and fork_available() and not worker_side.queries_run_here:
            settings = {
                "url": self.url.render_as_string(hide_password=False),
                "statement_timeout": statement_timeout,
                "max_result_bytes": max_result_bytes,
                "engine_options": options,
            }
            try:
                queries = worker_side.QueriesInWorker(type(self), settings)
                self._workers = ForkedWorkers(queries, what="The query")
            except TypeError as exc:
                raise ValueError(
                    "engine_options (and a subclass of DbTool) must be picklable on SQLite, "
                    f"where queries run in a worker process: {exc}"
                ) from None
            self._workers.start()

    def close(self) -> None:
        """Close the database connections (and stop the query processes, SQLite)."""
        if self._workers is not None:
            self._workers.close()
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
        statement, names, explain = self._checked(sql)
        cap = min(max_rows, self.max_rows)
        values = dict(params or {})
        if self._workers is not None:
            answer: QueryOutput = self._workers.run(
                (sql, values, cap), timeout=self.statement_timeout, memory=QUERY_MEMORY
            )
            return answer
        return self._query(statement, values, cap, names=names, stream=not explain)

    def _query(
        self,
        statement: sa.TextClause,
        values: dict[str, Any],
        cap: int,
        *,
        names: QueryNames | None,
        stream: bool,
    ) -> QueryOutput:
        """Run a checked statement on a read connection; ``names`` are judged by the catalogue
        first (PostgreSQL), ``stream`` reads the rows through a server-side cursor."""
        # A server-side cursor (PostgreSQL) sends at most cap + 1 rows, whatever the result's size.
        options = {"stream_results": True, "max_row_buffer": cap + 1} if stream else {}
        with self._read_connection() as conn:
            try:
                if names is not None and self.dialect == "postgresql":
                    self._check_names(conn, names)
                result = conn.execute(statement, values, execution_options=options)
                columns = list(result.keys()) if result.returns_rows else []
                rows, truncated = (
                    bounded_rows(result, cap=cap, max_bytes=self.max_result_bytes)
                    if result.returns_rows
                    else ([], False)
                )
                result.close()
            except exc.StatementError as error:
                raise sql_error(error) from None
            finally:
                conn.rollback()
        return QueryOutput(columns=columns, rows=rows, row_count=len(rows), truncated=truncated)

    def _check_names(self, conn: Connection, names: QueryNames) -> None:
        """Refuse a query naming a function, operator or type the server's catalogue marks as
        able to reach outside the query (the catalogue is read once per connection)."""
        info = conn.connection.info
        catalogue = info.get(_CATALOGUE)
        if catalogue is None:
            rows = [tuple(row) for row in conn.exec_driver_sql(CATALOGUE_QUERY)]
            catalogue = info[_CATALOGUE] = Catalogue.from_rows(rows, self.trusted_functions)
        reason = catalogue.refusal(names)
        if reason is not None:
            raise refused(reason)

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
            target = reflect(conn, table)
            check_columns(target, rows)
            ids = insert_rows(conn, target, rows)
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
                target = reflect(conn, table)
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

    def _checked(self, sql: str) -> tuple[sa.TextClause, QueryNames | None, bool]:
        """``sql`` as a statement, after the database's own grammar said it only reads; on
        PostgreSQL, the names the catalogue must judge and whether it is an ``EXPLAIN``."""
        statement = sa.text(sql)
        if self._dollar_dialect is None:
            return statement, None, False
        names, explain = check_postgres_query(str(statement.compile(dialect=self._dollar_dialect)))
        return statement, names, explain

    # -- connections -------------------------------------------------------------------------
    def _make_engine(self, *, read_only: bool, options: dict[str, Any]) -> Engine:
        url = self.url
        connect_args: dict[str, Any] = dict(options.pop("connect_args", {}))
        if self.dialect == "sqlite" and read_only and url.database not in (None, "", ":memory:"):
            path = Path(url.database or "").resolve()
            url = url.set(database=f"file:{quote(str(path))}?mode=ro", query={"uri": "true"})
        if self.dialect == "postgresql" and url.get_driver_name() in ("psycopg", "psycopg2"):
            ms = int(self.statement_timeout * 1000)
            # No lock is waited for longer than a statement may run, and a transaction left
            # open (a crashed caller) is ended by the server.
            flags = (
                f"-c statement_timeout={ms} -c lock_timeout={ms} "
                f"-c idle_in_transaction_session_timeout={max(ms, 1000)}"
            )
            if read_only:
                flags += " -c default_transaction_read_only=on"
            connect_args["options"] = (connect_args.get("options", "") + " " + flags).strip()
        engine = sa.create_engine(url, connect_args=connect_args, **options)
        if self.dialect == "sqlite" and read_only:
            event.listen(engine, "connect", setup_read_only)
        return engine

    @contextmanager
    def _read_connection(self) -> Iterator[Connection]:
        try:
            conn = self._reader.connect()
        except exc.OperationalError as error:
            raise ToolError(
                f"The database could not be opened: {orig_message(error)}",
                hint="The database is unavailable; try again later.",
                retryable=True,
            ) from None
        with conn:
            if self.dialect == "sqlite":
                raw: Any = conn.connection.driver_connection
                deadline = time.monotonic() + self.statement_timeout
                raw.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
            else:
                if self.dialect == "postgresql" and not self.allow_privileged_role:
                    self._check_role(conn)
                conn.exec_driver_sql("SET TRANSACTION READ ONLY")
            try:
                yield conn
            finally:
                if self.dialect == "sqlite":
                    raw.set_progress_handler(None, 0)

    def _check_role(self, conn: Connection) -> None:
        """Refuse a session whose role could reach the server's files or programs (checked once
        per database connection)."""
        info = conn.connection.info
        if info.get(_ROLE_CHECKED):
            return
        rows = [tuple(row) for row in conn.exec_driver_sql(ROLE_QUERY)]
        conn.rollback()
        problem = role_problem(rows)
        if problem is not None:
            create = narrow_role_sql(self.url.database or "mydb")
            raise ToolError(
                f"query_db is disabled: {problem}, so a query could reach the database "
                "server's files or programs. The operator must connect with a narrow role, "
                f"for example:\n{create}\n(or pass allow_privileged_role=True to DbTool to "
                "accept the risk).",
                code=ErrorCode.PERMISSION_DENIED,
                hint="Tell the user the database tool is misconfigured; no query can fix this.",
                details={"create_role": create},
            )
        info[_ROLE_CHECKED] = True

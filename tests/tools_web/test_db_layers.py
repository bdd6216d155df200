"""Each layer that keeps ``query_db`` read-only, shown on its own: the layer in front refuses
with its own words (so a test of the whole stack cannot pass on a layer behind it), and each
layer behind still refuses when the ones in front of it are taken away.

PostgreSQL: the statement check by PostgreSQL's parser, then a ``READ ONLY`` transaction, then
the session's default (``default_transaction_read_only``). SQLite: the authorizer, then
``PRAGMA query_only``, then the file opened read-only (``mode=ro``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event

import toolrig.tools._db as db_module
from toolrig import ErrorInfo, ToolResult
from toolrig.tools import DbTool
from toolrig.tools._pg_catalog import QueryNames

PARSER_REFUSAL = "query_db is read-only: a DELETE statement is refused."
AUTHORIZER_REFUSAL = "query_db is read-only: the statement would do more than read, and is refused."


def _err(result: ToolResult) -> ErrorInfo:
    """The error of a result that must have failed."""
    assert result.error is not None, result
    return result.error


def _count(url: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.exec_driver_sql("SELECT count(*) FROM items").scalar_one())
    finally:
        engine.dispose()


def _fill(url: str) -> None:
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("DROP TABLE IF EXISTS items")
            conn.exec_driver_sql("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)")
            conn.exec_driver_sql("INSERT INTO items (id, name) VALUES (1, 'a'), (2, 'b')")
    finally:
        engine.dispose()


def _drop(url: str) -> None:
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("DROP TABLE IF EXISTS items")
    finally:
        engine.dispose()


# -- PostgreSQL -----------------------------------------------------------------------------
@pytest.fixture
def pg(postgres_url: str) -> Iterator[tuple[DbTool, str]]:
    """The tool as a superuser (opted in), so no missing privilege hides a layer."""
    _fill(postgres_url)
    tool = DbTool(postgres_url, allow_privileged_role=True)
    yield tool, postgres_url
    tool.close()
    _drop(postgres_url)  # the database is shared by the session's tests


@pytest.fixture
def without_parser_check(monkeypatch: pytest.MonkeyPatch) -> None:
    # no names to judge; "an EXPLAIN", so the statement is sent as it is (no cursor around it)
    monkeypatch.setattr(db_module, "check_postgres_query", lambda sql: (QueryNames(), True))


def test_pg_the_parser_refuses_first(pg: tuple[DbTool, str]) -> None:
    tool, url = pg
    result = tool.execute("query_db", sql="DELETE FROM items")
    assert result.code == "permission_denied"
    assert _err(result).message == PARSER_REFUSAL  # not the server's read-only error
    nested = tool.execute(
        "query_db", sql="WITH gone AS (DELETE FROM items RETURNING id) SELECT count(*) FROM gone"
    )
    assert nested.code == "permission_denied"
    assert _err(nested).message == "query_db is read-only: a nested DELETE statement is refused."
    assert _count(url) == 2


def test_pg_the_read_only_transaction_refuses_alone(
    pg: tuple[DbTool, str], without_parser_check: None
) -> None:
    tool, url = pg

    @event.listens_for(tool._reader, "connect")
    def drop_session_default(dbapi_connection: Any, _record: Any) -> None:
        # as a connection pooler that ignores startup options would leave the session
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SET SESSION default_transaction_read_only = off")
        dbapi_connection.commit()

    tool._reader.dispose()
    shown = tool.execute(
        "query_db", sql="SELECT current_setting('default_transaction_read_only') AS d"
    )
    assert shown.unwrap()["rows"] == [["off"]]  # only the transaction is left
    result = tool.execute("query_db", sql="DELETE FROM items")
    assert result.code == "permission_denied", result.error
    assert "read-only transaction" in _err(result).message
    assert _err(result).message != PARSER_REFUSAL
    assert _count(url) == 2


def test_pg_the_session_default_refuses_alone(pg: tuple[DbTool, str]) -> None:
    tool, url = pg
    shown = tool.execute(
        "query_db",
        sql="SELECT current_setting('default_transaction_read_only') AS d, "
        "current_setting('transaction_read_only') AS t",
    )
    assert shown.unwrap()["rows"] == [["on", "on"]]
    # a connection of the tool's reader, used without the tool (no parser, no SET TRANSACTION)
    with tool._reader.connect() as conn, pytest.raises(sa.exc.InternalError) as info:
        conn.exec_driver_sql("DELETE FROM items")
    assert "read-only transaction" in str(info.value)
    assert _count(url) == 2


# -- SQLite ---------------------------------------------------------------------------------
@pytest.fixture
def lite(tmp_path: Path) -> Iterator[tuple[DbTool, str]]:
    url = f"sqlite:///{tmp_path / 'app.db'}"
    _fill(url)
    tool = DbTool(url)
    yield tool, url
    tool.close()


def test_sqlite_the_authorizer_refuses_first(lite: tuple[DbTool, str]) -> None:
    tool, url = lite
    for sql in ("DELETE FROM items", "UPDATE items SET name = 'x'", "DROP TABLE items"):
        result = tool.execute("query_db", sql=sql)
        assert result.code == "permission_denied", (sql, result.error)
        assert _err(result).message == AUTHORIZER_REFUSAL, sql  # not "readonly database"
    assert _count(url) == 2


def test_sqlite_query_only_is_set_on_every_read_connection(lite: tuple[DbTool, str]) -> None:
    tool, url = lite
    with tool._reader.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA query_only").scalar_one() == 1
        raw: Any = conn.connection.driver_connection
        raw.set_authorizer(None)  # the authorizer gone, query_only still refuses
        with pytest.raises(sqlite3.OperationalError, match="readonly database"):
            raw.execute("DELETE FROM items")
        raw.set_authorizer(None)
    tool._reader.dispose()  # that connection lost its authorizer: never reuse it
    assert _count(url) == 2


def test_sqlite_the_read_only_file_refuses_alone(lite: tuple[DbTool, str]) -> None:
    tool, url = lite
    with tool._reader.connect() as conn:
        raw: Any = conn.connection.driver_connection
        raw.set_authorizer(None)
        raw.execute("PRAGMA query_only = OFF")
        assert raw.execute("PRAGMA query_only").fetchone() == (0,)
        with pytest.raises(sqlite3.OperationalError, match="readonly database"):
            raw.execute("DELETE FROM items")
    tool._reader.dispose()
    assert _count(url) == 2

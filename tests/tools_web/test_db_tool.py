"""db_tool on a SQLite file and on a fresh PostgreSQL database: read-only queries, bound
parameters, row caps, inserts in one transaction."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from toolrig.tools import DbTool

SCHEMA = """CREATE TABLE users (
    id {serial} PRIMARY KEY,
    name VARCHAR(100) NOT NULL,
    city VARCHAR(100)
)"""


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        url, serial = f"sqlite:///{tmp_path / 'app.db'}", "INTEGER"
        tool_url = url
    else:
        url, serial = str(request.getfixturevalue("postgres_url")), "SERIAL"
        tool_url = str(request.getfixturevalue("postgres_reader_url"))  # a narrow role
    engine = sa.create_engine(url)  # the tables are made as the administrator
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE IF EXISTS users")
        conn.exec_driver_sql(SCHEMA.format(serial=serial))
        conn.execute(
            sa.text("INSERT INTO users (name, city) VALUES (:name, :city)"),
            [{"name": f"user{i}", "city": "Paris" if i % 2 else "Lyon"} for i in range(40)],
        )
    engine.dispose()
    return tool_url


@pytest.fixture
def reader(db_url: str) -> Iterator[DbTool]:
    tool = DbTool(db_url)
    yield tool
    tool.close()


@pytest.fixture
def writer(db_url: str) -> Iterator[DbTool]:
    tool = DbTool(db_url, read_only=False)
    yield tool
    tool.close()


def count(tool: DbTool) -> int:
    return int(
        tool.execute("query_db", sql="SELECT COUNT(*) AS n FROM users").unwrap()["rows"][0][0]
    )


def test_query_with_bound_parameters(reader: DbTool) -> None:
    out = reader.execute(
        "query_db",
        sql="SELECT id, name, city FROM users WHERE city = :city AND id <= :top ORDER BY id",
        params={"city": "Paris", "top": 6},
    ).unwrap()
    assert out == {
        "columns": ["id", "name", "city"],
        "rows": [[2, "user1", "Paris"], [4, "user3", "Paris"], [6, "user5", "Paris"]],
        "row_count": 3,
        "truncated": False,
    }


def test_row_cap_is_visible(reader: DbTool) -> None:
    out = reader.execute("query_db", sql="SELECT id FROM users ORDER BY id;", max_rows=10).unwrap()
    assert out["row_count"] == 10 and out["truncated"] is True
    capped = DbTool(reader.url.render_as_string(hide_password=False), max_rows=5)
    assert capped.execute("query_db", sql="SELECT id FROM users").unwrap()["row_count"] == 5
    capped.close()


def test_writes_through_query_db_are_refused(reader: DbTool, writer: DbTool) -> None:
    for tool in (reader, writer):
        check_refusals(tool)


def check_refusals(tool: DbTool) -> None:
    for sql in (
        "DELETE FROM users",
        "  /* hi */ UPDATE users SET name = 'x'",
        "DROP TABLE users",
        "INSERT INTO users (name) VALUES ('x')",
    ):
        refused = tool.execute("query_db", sql=sql)
        assert refused.code == "permission_denied", sql
    several = tool.execute("query_db", sql="SELECT 1; DROP TABLE users")
    assert several.code == "invalid_arguments" and "one SQL statement" in several.error.message
    semicolon_in_text = tool.execute("query_db", sql="SELECT ';' AS s -- ; trailing\n;")
    assert semicolon_in_text.unwrap()["rows"] == [[";"]]
    assert count(tool) == 40


def test_database_itself_refuses_writes_hidden_in_a_query(reader: DbTool) -> None:
    if reader.dialect == "postgresql":
        sql = "WITH gone AS (DELETE FROM users RETURNING id) SELECT count(*) FROM gone"
        result = reader.execute("query_db", sql=sql)
        assert result.code == "permission_denied" and "read-only" in result.error.message
        with reader._reader.connect() as conn:
            conn.exec_driver_sql("SET TRANSACTION READ ONLY")
            with pytest.raises(sa.exc.InternalError):
                conn.exec_driver_sql("DELETE FROM users")
    else:  # the read connection is opened read-only: even raw SQL cannot write
        with reader._reader.connect() as conn, pytest.raises(sa.exc.DatabaseError):
            conn.exec_driver_sql("DELETE FROM users")
    assert count(reader) == 40


def test_sql_injection_through_parameters_is_inert(reader: DbTool) -> None:
    for evil in ("x' OR '1'='1", "'; DROP TABLE users; --", "user1' --"):
        out = reader.execute(
            "query_db", sql="SELECT id FROM users WHERE name = :name", params={"name": evil}
        ).unwrap()
        assert out["rows"] == [], evil
    assert count(reader) == 40


def test_sql_errors_are_readable(reader: DbTool) -> None:
    bad = reader.execute("query_db", sql="SELECT nope FROM users")
    assert bad.code == "invalid_arguments" and "nope" in bad.error.message
    assert "describe_db" in bad.error.hint
    missing = reader.execute("query_db", sql="SELECT * FROM users WHERE id = :id")
    assert missing.code == "invalid_arguments" and "id" in missing.error.message


def test_insert_refused_when_read_only(reader: DbTool) -> None:
    result = reader.execute("insert_db", table="users", rows=[{"name": "eve"}])
    assert result.code == "permission_denied" and "read-only" in result.error.message
    assert count(reader) == 40


def test_insert_returns_count_and_ids(writer: DbTool) -> None:
    out = writer.execute(
        "insert_db",
        table="users",
        rows=[{"name": "eve", "city": "Nice"}, {"name": "bob"}, {"name": "amy", "city": "Pau"}],
    ).unwrap()
    assert out == {"table": "users", "inserted": 3, "ids": [41, 42, 43]}
    rows = writer.execute("query_db", sql="SELECT name, city FROM users WHERE id > 40 ORDER BY id")
    assert rows.unwrap()["rows"] == [["eve", "Nice"], ["bob", None], ["amy", "Pau"]]


def test_insert_is_one_transaction(writer: DbTool) -> None:
    failed = writer.execute(
        "insert_db", table="users", rows=[{"name": "ok"}, {"name": None, "city": "x"}]
    )
    assert failed.code == "invalid_arguments" and "rejected" in failed.error.message
    assert count(writer) == 40


def test_insert_argument_errors(writer: DbTool) -> None:
    unknown = writer.execute("insert_db", table="users", rows=[{"name": "a", "age": 3}])
    assert unknown.code == "invalid_arguments" and "'age'" in unknown.error.message
    assert "name" in unknown.error.hint
    table = writer.execute("insert_db", table="people", rows=[{"name": "a"}])
    assert table.code == "not_found" and "users" in table.error.hint
    weird = writer.execute("insert_db", table="users; DROP TABLE users", rows=[{"name": "a"}])
    assert weird.code == "invalid_arguments"
    assert writer.execute("insert_db", table="users", rows=[]).code == "invalid_arguments"


def test_describe(reader: DbTool) -> None:
    assert reader.execute("describe_db").unwrap() == {"tables": ["users"], "columns": None}
    columns = reader.execute("describe_db", table="users").unwrap()["columns"]
    assert [c["name"] for c in columns] == ["id", "name", "city"]
    assert columns[0]["primary_key"] and not columns[1]["nullable"]


def test_long_queries_are_stopped(db_url: str) -> None:
    tool = DbTool(db_url, statement_timeout=0.3)
    if tool.dialect == "postgresql":
        sql = "SELECT count(*) FROM generate_series(1, 10000000000)"  # pg_sleep is volatile
    else:
        sql = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n"
    result = tool.execute("query_db", sql=sql)
    assert result.code == "timeout", result.error
    assert tool.execute("query_db", sql="SELECT 1 AS one").unwrap()["rows"] == [[1]]
    tool.close()


def test_sqlite_path_and_missing_file(tmp_path: Path) -> None:
    missing = DbTool(tmp_path / "nope.db")
    result = missing.execute("query_db", sql="SELECT 1")
    assert result.code == "execution_error" and "could not be opened" in result.error.message
    assert not (tmp_path / "nope.db").exists()  # read-only never creates the file
    missing.close()


def test_schema(reader: DbTool) -> None:
    schema = reader.get_schema()["actions"]
    assert list(schema) == ["query_db", "insert_db", "describe_db"]
    assert ":name" in schema["query_db"]["description"]
    assert reader.spec.action_annotations("query_db").read_only is True
    assert reader.spec.action_annotations("insert_db").read_only is False

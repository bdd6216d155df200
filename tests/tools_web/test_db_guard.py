"""db_tool's read-only guard against the real PostgreSQL server and SQLite: the statements that
ran programs and wrote files through ``query_db`` (a nested comment hiding ``COPY ... TO
PROGRAM``, ``COPY TO`` a file, ``DO``, ``lo_export``, ``pg_read_file``) are refused by the
parser, and a role that could reach the server's files or programs is refused at connect."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolrig.tools import DbTool

psycopg = pytest.importorskip("psycopg")


@pytest.fixture
def marker() -> Iterator[Path]:
    """A path the server would write to if a refused statement ran."""
    path = Path(f"/tmp/toolrig-breach-{uuid.uuid4().hex[:10]}")
    yield path
    path.unlink(missing_ok=True)


@pytest.fixture
def as_superuser(postgres_url: str) -> Iterator[DbTool]:
    """The tool connected as a superuser, opted in: only the parser stands in the way."""
    tool = DbTool(postgres_url, allow_privileged_role=True)
    yield tool
    tool.close()


@pytest.fixture
def as_reader(postgres_reader_url: str) -> Iterator[DbTool]:
    tool = DbTool(postgres_reader_url)
    yield tool
    tool.close()


def breaches(marker: Path) -> list[str]:
    return [
        f"/* /* */ SELECT */ COPY (SELECT 1) TO PROGRAM 'id > {marker}'",
        f"COPY (SELECT 1) TO '{marker}'",
        f"DO $$ BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''id > {marker}'''; END $$",
        f"SELECT lo_export(lo_from_bytea(0, 'x'), '{marker}')",
        "SELECT pg_read_file('/etc/passwd')",
        f"/* /* */ SELECT */ SELECT lo_export(lo_from_bytea(0, 'x'), '{marker}')",
        f"SELECT 1 /* /* */ ; */ ; COPY (SELECT 1) TO PROGRAM 'id > {marker}'",
    ]


def test_nested_comment_copy_to_program_is_refused(as_superuser: DbTool, marker: Path) -> None:
    sql = f"/* /* */ SELECT */ COPY (SELECT 1) TO PROGRAM 'id > {marker}'"
    result = as_superuser.execute("query_db", sql=sql)
    assert result.code == "permission_denied"
    assert "COPY" in result.error.message and "read-only" in result.error.message
    assert not marker.exists()


@pytest.mark.parametrize("index", range(7))
def test_each_breach_is_refused_even_as_a_superuser(
    as_superuser: DbTool, marker: Path, index: int
) -> None:
    sql = breaches(marker)[index]
    result = as_superuser.execute("query_db", sql=sql)
    assert not result.success, sql
    assert result.code in ("permission_denied", "invalid_arguments"), result.error
    assert not marker.exists()


@pytest.mark.parametrize("index", range(7))
def test_each_breach_is_refused_for_a_narrow_role(
    as_reader: DbTool, marker: Path, index: int
) -> None:
    sql = breaches(marker)[index]
    result = as_reader.execute("query_db", sql=sql)
    assert result.code in ("permission_denied", "invalid_arguments"), result.error
    assert not marker.exists()


def test_plain_queries_still_run(as_reader: DbTool) -> None:
    def rows(sql: str, **params: object) -> list[list[object]]:
        out = as_reader.execute("query_db", sql=sql, params=params or None).unwrap()
        return list(out["rows"])

    assert rows("SELECT '/* /* */ COPY */' AS s") == [["/* /* */ COPY */"]]
    assert rows("/* a /* nested */ comment */ SELECT 1 AS one;") == [[1]]
    assert rows("WITH x AS (SELECT CAST(:n AS int) AS n) SELECT n + 1 FROM x", n=41) == [[42]]
    assert rows("VALUES (1, 'a'), (2, 'b')") == [[1, "a"], [2, "b"]]
    assert rows("SELECT 'it''s 100%' AS s, $$dollar$$ AS d") == [["it's 100%", "dollar"]]
    assert rows("SELECT lower('ABC'), length('lo_export')") == [["abc", 9]]
    plan = rows("EXPLAIN SELECT 1")
    assert plan and "Result" in str(plan[0][0])


def test_superuser_is_refused_at_connect_with_how_to_make_a_narrow_role(
    postgres_url: str,
) -> None:
    tool = DbTool(postgres_url)
    try:
        result = tool.execute("query_db", sql="SELECT 1")
        assert result.code == "permission_denied"
        assert "superuser" in result.error.message
        assert "CREATE ROLE" in result.error.message
        assert "allow_privileged_role" in result.error.message
        assert "GRANT SELECT" in result.error.details["create_role"]
        assert tool.execute("describe_db").code == "permission_denied"
    finally:
        tool.close()


@pytest.mark.parametrize(
    "server_role", ["pg_execute_server_program", "pg_write_server_files", "pg_read_server_files"]
)
def test_roles_that_reach_the_server_are_refused(
    postgres_url: str, postgres_reader_url: str, server_role: str
) -> None:
    admin_dsn = "postgresql://" + postgres_url.split("://", 1)[1]
    role = f"toolrig_strong_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE ROLE "{role}" LOGIN NOSUPERUSER')
        admin.execute(f'GRANT {server_role} TO "{role}"')
    url = postgres_reader_url.split("://", 1)[0] + f"://{role}@" + postgres_url.split("@", 1)[1]
    tool = DbTool(url)
    try:
        result = tool.execute("query_db", sql="SELECT 1")
        assert result.code == "permission_denied"
        assert server_role in result.error.message
        opted_in = DbTool(url, allow_privileged_role=True)
        assert opted_in.execute("query_db", sql="SELECT 1 AS one").unwrap()["rows"] == [[1]]
        opted_in.close()
    finally:
        tool.close()
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f'DROP ROLE "{role}"')


def test_sqlite_authorizer_refuses_what_mode_ro_would_not_see(tmp_path: Path) -> None:
    db = tmp_path / "app.db"
    import sqlite3

    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (a)")
    outside = tmp_path / "copy.db"
    tool = DbTool(db)
    try:
        for sql in (
            f"VACUUM INTO '{outside}'",
            f"ATTACH DATABASE '{outside}' AS other",
            "PRAGMA user_version = 7",
            "SELECT load_extension('x')",
            "CREATE TEMP TABLE x (a)",
        ):
            result = tool.execute("query_db", sql=sql)
            assert result.code == "permission_denied", (sql, result.error)
        big = tool.execute("query_db", sql="SELECT length(zeroblob(1000000000))")
        assert big.code == "invalid_arguments" and "too big" in big.error.message
        assert tool.execute("query_db", sql="PRAGMA user_version").unwrap()["rows"] == [[0]]
        assert tool.execute("describe_db", table="t").unwrap()["columns"][0]["name"] == "a"
    finally:
        tool.close()
    assert not outside.exists()
    assert os.listdir(tmp_path) == ["app.db"]


def test_without_pglast_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pglast", None)  # an import of it now fails
    with pytest.raises(ImportError, match=r"toolrig\[postgres\]"):
        DbTool("postgresql+psycopg://nobody@127.0.0.1:1/none")

"""The SQLite read-only guard's promises, boundary by boundary (`toolrig.tools._sql_sqlite`).

The promise: on a read connection SQLite's own compiler asks before every action, and only
reading passes (tables, columns, ``SELECT``, recursive CTEs, plain functions, pragmas that
report); everything else is refused before it runs, and every value and statement is bounded.
Each test uses a real ``sqlite3`` connection set up as ``db_tool`` sets up its own.

| boundary                                 | test                                                 |
|------------------------------------------|------------------------------------------------------|
| reading passes: ``SELECT``, a read of a  | `test_reading_passes`                                |
| table and column, a recursive CTE, a     |                                                      |
| plain function                           |                                                      |
| everything else is refused: each         | `test_each_kind_of_change_is_refused_before_it_runs` |
| writing, creating, dropping, attaching,  |                                                      |
| transaction, maintenance statement       |                                                      |
| the refusal's words are the ones         | `test_each_kind_of_change_is_refused_before_it_runs` |
| ``db_tool`` recognises (both of SQLite's |                                                      |
| wordings)                                |                                                      |
| functions that load or touch files:      | `test_each_denied_function_is_refused_in_any_case`   |
| every entry of the list, in any case; a  |                                                      |
| plain function of the same shape passes  |                                                      |
| a function event without a name          | `test_the_authorizer_on_absent_names`                |
| pragmas: every reporting pragma with its | `test_each_reporting_pragma_passes`                  |
| argument                                 |                                                      |
| every setting pragma: read passes, set   | `test_each_setting_pragma_reads_but_never_sets`      |
| is refused                               |                                                      |
| a pragma on neither list, with and       | `test_each_setting_pragma_reads_but_never_sets`      |
| without a value; a pragma event without  | `test_the_authorizer_on_absent_names`                |
| a name                                   |                                                      |
| the connection: ``query_only`` is on,    | `test_query_only_holds_without_the_authorizer`       |
| without the authorizer too               |                                                      |
| limits: every limit's value; a value at  | `test_every_limit_is_set`                            |
| and one past `MAX_VALUE_BYTES`           | `test_a_value_at_and_past_the_limit`                 |
| no database can be attached              | `test_each_kind_of_change_is_refused_before_it_runs` |
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolrig.tools._sql_sqlite import (
    DENIED_MESSAGES,
    MAX_VALUE_BYTES,
    read_only_authorizer,
    setup_read_only,
)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    path = tmp_path / "data.db"
    with sqlite3.connect(path) as setup:
        setup.executescript(
            "CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y');"
            "CREATE INDEX t_a ON t (a);"
        )
    connection = sqlite3.connect(path, isolation_level=None)
    setup_read_only(connection)
    yield connection
    connection.close()


def _refused(conn: sqlite3.Connection, sql: str) -> str:
    with pytest.raises(sqlite3.DatabaseError) as caught:
        conn.execute(sql)
    message = str(caught.value).lower()
    assert message.startswith(DENIED_MESSAGES), (sql, message)
    return message


def test_reading_passes(conn: sqlite3.Connection) -> None:
    assert conn.execute("SELECT a, b FROM t ORDER BY a").fetchall() == [(1, "x"), (2, "y")]
    assert conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) "
        "SELECT group_concat(i) FROM n"
    ).fetchone() == ("1,2,3",)
    assert conn.execute("SELECT abs(-3), length(b), upper(b) FROM t WHERE a = 1").fetchone() == (
        3,
        1,
        "X",
    )


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("INSERT INTO t VALUES (3, 'z')", "not authorized"),
        ("UPDATE t SET a = 5", "not authorized"),
        ("DELETE FROM t", "not authorized"),
        ("CREATE TABLE u (x)", "not authorized"),
        ("CREATE TEMP TABLE u (x)", "not authorized"),
        ("CREATE VIEW v AS SELECT 1", "not authorized"),
        ("CREATE INDEX i ON t (b)", "not authorized"),
        ("DROP TABLE t", "not authorized"),
        ("DROP INDEX t_a", "not authorized"),
        ("ALTER TABLE t ADD COLUMN c", "not authorized"),
        ("ATTACH DATABASE ':memory:' AS other", "not authorized"),
        ("BEGIN", "not authorized"),
        ("SAVEPOINT s", "not authorized"),
        ("ANALYZE", "not authorized"),
        ("REINDEX", "not authorized"),
        ("VACUUM", "authorization denied"),
        ("CREATE VIRTUAL TABLE f USING fts5(x)", "not authorized"),
    ],
)
def test_each_kind_of_change_is_refused_before_it_runs(
    conn: sqlite3.Connection, sql: str, words: str
) -> None:
    assert _refused(conn, sql).startswith(words)
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (2,)
    assert conn.execute("SELECT count(*) FROM sqlite_schema").fetchone() == (2,)


@pytest.mark.parametrize(
    "name", ["load_extension", "fts3_tokenizer", "readfile", "writefile", "edit", "zipfile"]
)
def test_each_denied_function_is_refused_in_any_case(conn: sqlite3.Connection, name: str) -> None:
    # A connection where an extension (or the sqlite3 shell) defined the function.
    conn.create_function(name, 1, lambda value: value)
    conn.create_function(name.upper(), 2, lambda a, b: a)
    conn.create_function("my_" + name, 1, lambda value: value)
    assert "to use function" in _refused(conn, f"SELECT {name}('x')")
    assert "to use function" in _refused(conn, f"SELECT {name.upper()}('x', 1)")
    assert conn.execute(f"SELECT my_{name}('x')").fetchone() == ("x",)


@pytest.mark.parametrize(
    "name",
    [
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
    ],
)
def test_each_reporting_pragma_passes(conn: sqlite3.Connection, name: str) -> None:
    argument = "t_a" if name.startswith("index_info") or name == "index_xinfo" else "t"
    conn.execute(f"PRAGMA {name}({argument})").fetchall()
    conn.execute(f"PRAGMA {name.upper()}").fetchall()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("user_version", "7"),
        ("schema_version", "99"),
        ("application_id", "5"),
        ("data_version", "2"),
        ("encoding", "'UTF-16'"),
        ("page_size", "8192"),
        ("page_count", "5"),
        ("freelist_count", "1"),
        ("foreign_keys", "ON"),
        ("journal_mode", "WAL"),
        ("query_only", "OFF"),
        ("read_uncommitted", "ON"),
    ],
)
def test_each_setting_pragma_reads_but_never_sets(
    conn: sqlite3.Connection, name: str, value: str
) -> None:
    before = conn.execute(f"PRAGMA {name}").fetchall()
    _refused(conn, f"PRAGMA {name} = {value}")
    _refused(conn, f"PRAGMA {name.upper()}({value})")
    assert conn.execute(f"PRAGMA {name}").fetchall() == before


def test_a_pragma_on_neither_list_is_refused(conn: sqlite3.Connection) -> None:
    for sql in ("PRAGMA cache_size", "PRAGMA cache_size = 10", "PRAGMA writable_schema = ON"):
        _refused(conn, sql)


def test_the_authorizer_on_absent_names() -> None:
    assert read_only_authorizer(sqlite3.SQLITE_FUNCTION, None, None, None, None) == (
        sqlite3.SQLITE_OK
    )
    assert read_only_authorizer(sqlite3.SQLITE_PRAGMA, None, None, None, None) == (
        sqlite3.SQLITE_DENY
    )
    assert read_only_authorizer(sqlite3.SQLITE_PRAGMA, "table_info", None, None, None) == (
        sqlite3.SQLITE_OK
    )
    assert read_only_authorizer(sqlite3.SQLITE_PRAGMA, "user_version", "1", None, None) == (
        sqlite3.SQLITE_DENY
    )


def test_query_only_holds_without_the_authorizer(conn: sqlite3.Connection) -> None:
    assert conn.execute("PRAGMA query_only").fetchone() == (1,)
    conn.set_authorizer(None)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("INSERT INTO t VALUES (9, 'z')")


def test_every_limit_is_set(conn: sqlite3.Connection) -> None:
    expected = {
        sqlite3.SQLITE_LIMIT_LENGTH: 4_000_000,
        sqlite3.SQLITE_LIMIT_SQL_LENGTH: 100_000,
        sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 100,
        sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 50,
        sqlite3.SQLITE_LIMIT_VDBE_OP: 100_000,
        sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 1_000,
        sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER: 1_000,
        sqlite3.SQLITE_LIMIT_ATTACHED: 0,
        sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH: 1,
    }
    assert {limit: conn.getlimit(limit) for limit in expected} == expected


def test_a_value_at_and_past_the_limit(conn: sqlite3.Connection) -> None:
    assert MAX_VALUE_BYTES == 4_000_000
    assert conn.execute(f"SELECT length(zeroblob({MAX_VALUE_BYTES}))").fetchone() == (
        MAX_VALUE_BYTES,
    )
    with pytest.raises(sqlite3.DataError, match="too big"):
        conn.execute(f"SELECT zeroblob({MAX_VALUE_BYTES + 1})")
    text = "SELECT 1" + " " * (100_000 - len("SELECT 1"))
    assert conn.execute(text).fetchone() == (1,)
    with pytest.raises(sqlite3.DataError, match="too large"):
        conn.execute(text + " ")

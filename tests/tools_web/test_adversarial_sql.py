"""Adversarial suite, SQL: statements that write, lock, reach the server's files or programs, or
hide a second statement, sent to ``query_db`` on the real PostgreSQL server (as a narrow role,
and as a superuser that opted in, so that the parser alone stands in the way) and on SQLite.
Each must be refused with no effect; plain queries that merely look dangerous must run."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from toolrig.tools import DbTool

MARK = f"/tmp/toolrig-adv-{uuid.uuid4().hex[:10]}"
"""A file the server would create if a refused statement ran."""

PG_REFUSED = [
    # server files and programs
    f"COPY adv_items TO '{MARK}'",
    f"COPY (SELECT 1) TO PROGRAM 'id > {MARK}'",
    "COPY adv_items FROM '/etc/passwd'",
    "COPY adv_items FROM PROGRAM 'id'",
    "COPY adv_items TO STDOUT",
    f"/* /* */ SELECT */ COPY (SELECT 1) TO PROGRAM 'id > {MARK}'",
    f"/* a /* b /* c */ SELECT */ SELECT */ COPY (SELECT 1) TO '{MARK}'",
    f"/* -- */ COPY (SELECT 1) TO '{MARK}'",
    f"-- SELECT\nCOPY (SELECT 1) TO '{MARK}'",
    f"DO $$ BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''id > {MARK}'''; END $$",
    "DO $x$ BEGIN PERFORM 1; END $x$",
    "DO LANGUAGE plpgsql $$ BEGIN NULL; END $$",
    f"SELECT lo_export(lo_from_bytea(0, 'x'), '{MARK}')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT lo_create(0)",
    "SELECT lo_unlink(1)",
    "SELECT lo_get(1)",
    "SELECT lo_put(1, 0, 'x')",
    "SELECT lo_from_bytea(0, 'x')",
    "SELECT loread(0, 10)",
    f"SELECT pg_catalog.lo_export(1, '{MARK}')",
    f"SELECT PG_CATALOG.LO_EXPORT(1, '{MARK}')",
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT pg_read_binary_file('/etc/passwd')",
    "SELECT pg_read_file('postgresql.conf', 0, 100)",
    "SELECT * FROM pg_ls_dir('/')",
    "SELECT pg_ls_logdir()",
    "SELECT pg_ls_waldir()",
    "SELECT pg_ls_tmpdir()",
    "SELECT pg_stat_file('/etc/passwd')",
    "SELECT pg_current_logfile()",
    # functions in odd places
    "SELECT 1 WHERE pg_read_file('/etc/passwd') IS NOT NULL",
    "SELECT 1 ORDER BY pg_read_file('/etc/passwd')",
    "SELECT (SELECT pg_read_file('/etc/passwd'))",
    "WITH x AS (SELECT pg_read_file('/etc/passwd') AS f) SELECT f FROM x",
    "VALUES (pg_read_file('/etc/passwd'))",
    "SELECT * FROM adv_items, LATERAL pg_ls_dir('/') AS d",
    "SELECT CASE WHEN true THEN pg_read_file('/etc/passwd') END",
    "SELECT * FROM ROWS FROM (pg_ls_dir('/'))",
    "SELECT count(*) FILTER (WHERE pg_read_file('/etc/passwd') = '') FROM adv_items",
    f"EXPLAIN SELECT lo_export(1, '{MARK}')",
    "SELECT * FROM adv_items UNION SELECT pg_read_file('/etc/passwd')",
    # backends, settings, locks, sequences, other servers
    "SELECT pg_terminate_backend(pg_backend_pid())",
    "SELECT pg_cancel_backend(pg_backend_pid())",
    "SELECT set_config('default_transaction_read_only', 'off', false)",
    "SELECT pg_reload_conf()",
    "SELECT pg_rotate_logfile()",
    "SELECT pg_advisory_lock(42)",
    "SELECT pg_try_advisory_lock(42)",
    "SELECT pg_advisory_xact_lock(42)",
    "SELECT pg_notify('channel', 'hello')",
    "SELECT nextval('adv_items_id_seq')",
    "SELECT setval('adv_items_id_seq', 1000)",
    "SELECT txid_current()",
    "SELECT pg_current_xact_id()",
    "SELECT pg_export_snapshot()",
    "SELECT pg_switch_wal()",
    "SELECT pg_create_restore_point('x')",
    "SELECT pg_logical_emit_message(true, 'x', 'y')",
    "SELECT * FROM dblink('dbname=postgres', 'SELECT 1') AS t(a int)",
    "SELECT dblink_exec('dbname=postgres', 'DROP TABLE adv_items')",
    "SELECT query_to_xml('SELECT 1', true, true, '')",
    "SELECT cursor_to_xml('c', 1, true, true, '')",
    # statements that are not queries
    "INSERT INTO adv_items (name) VALUES ('x')",
    "UPDATE adv_items SET name = 'x'",
    "DELETE FROM adv_items",
    "MERGE INTO adv_items t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE",
    "TRUNCATE adv_items",
    "DROP TABLE adv_items",
    "ALTER TABLE adv_items ADD COLUMN x int",
    "CREATE TABLE adv_new (a int)",
    "CREATE TEMP TABLE adv_tmp (a int)",
    "CREATE FUNCTION f() RETURNS int AS 'SELECT 1' LANGUAGE sql",
    "CREATE EXTENSION dblink",
    "GRANT ALL ON adv_items TO PUBLIC",
    "SET default_transaction_read_only = off",
    "SET ROLE postgres",
    "SET SESSION AUTHORIZATION postgres",
    "RESET ALL",
    "BEGIN",
    "COMMIT",
    "PREPARE p AS DELETE FROM adv_items",
    "EXECUTE p",
    "CALL some_procedure()",
    "LOCK TABLE adv_items",
    "VACUUM adv_items",
    "ANALYZE adv_items",
    "LISTEN channel",
    "NOTIFY channel",
    "LOAD 'plpgsql'",
    "CHECKPOINT",
    "DISCARD ALL",
    "DECLARE c CURSOR FOR SELECT 1",
    "ALTER SYSTEM SET work_mem = '1GB'",
    "COMMENT ON TABLE adv_items IS 'x'",
    "SHOW ALL",
    # writes and locks hidden in a query
    "WITH gone AS (DELETE FROM adv_items RETURNING id) SELECT count(*) FROM gone",
    "WITH a AS (SELECT 1), b AS (UPDATE adv_items SET name = 'x' RETURNING 1) SELECT * FROM b",
    "WITH n AS (INSERT INTO adv_items (name) VALUES ('x') RETURNING id) SELECT id FROM n",
    "SELECT * INTO adv_copy FROM adv_items",
    "SELECT * FROM adv_items FOR UPDATE",
    "SELECT * FROM adv_items FOR SHARE",
    "SELECT * FROM adv_items FOR NO KEY UPDATE SKIP LOCKED",
    "SELECT * FROM adv_items FOR KEY SHARE NOWAIT",
    "EXPLAIN ANALYZE SELECT 1",
    "EXPLAIN ANALYSE SELECT 1",
    "EXPLAIN (ANALYZE) SELECT 1",
    "EXPLAIN (ANALYSE true, COSTS off) SELECT 1",
    "EXPLAIN (analyze false) SELECT 1",
    "EXPLAIN ANALYZE DELETE FROM adv_items",
    "EXPLAIN DELETE FROM adv_items",
    "EXPLAIN CREATE TABLE adv_x AS SELECT 1",
    # a second statement
    "SELECT 1; DELETE FROM adv_items",
    "SELECT 1;; DELETE FROM adv_items",
    "SELECT 1 /* ; */ ; DELETE FROM adv_items",
    "SELECT ';' ; DELETE FROM adv_items",
    "SELECT $a$ $$ ; $a$ ; DELETE FROM adv_items",
    "SELECT E'\\';' ; DELETE FROM adv_items",
    "SELECT 1 -- x\n; DELETE FROM adv_items",
    "",
    "   ",
    "/* only a comment */",
    "SELECT (",
]

PG_ALLOWED = [
    ("SELECT 'COPY (SELECT 1) TO PROGRAM ''id''' AS s", [["COPY (SELECT 1) TO PROGRAM 'id'"]]),
    ('SELECT 1 AS "lo_export"', [[1]]),
    ("SELECT 'pg_read_file(''/etc/passwd'')'", [["pg_read_file('/etc/passwd')"]]),
    ("/* DELETE FROM adv_items; */ SELECT count(*) FROM adv_items", [[3]]),
    ("-- DROP TABLE adv_items\nSELECT count(*) FROM adv_items", [[3]]),
    ("SELECT $$; DELETE FROM adv_items$$", [["; DELETE FROM adv_items"]]),
    ("SELECT lower('X'), log(100.0)::int", [["x", 2]]),
    ("TABLE adv_items ORDER BY id LIMIT 1", [[1, "a"]]),
    (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) "
        "SELECT sum(i) FROM n",
        [[6]],
    ),
]

SQLITE_REFUSED = [
    "INSERT INTO adv_items (name) VALUES ('x')",
    "INSERT INTO adv_items (name) VALUES ('x') RETURNING id",
    "REPLACE INTO adv_items (id, name) VALUES (1, 'x')",
    "UPDATE adv_items SET name = 'x'",
    "DELETE FROM adv_items",
    "WITH x AS (SELECT 1) DELETE FROM adv_items",
    "CREATE TABLE adv_new (a)",
    "CREATE TEMP TABLE adv_tmp (a)",
    "CREATE INDEX i ON adv_items (name)",
    "CREATE VIEW v AS SELECT 1",
    "CREATE TEMP VIEW v AS SELECT 1",
    "CREATE TRIGGER t AFTER INSERT ON adv_items BEGIN SELECT 1; END",
    "CREATE VIRTUAL TABLE f USING fts5(a)",
    "DROP TABLE adv_items",
    "ALTER TABLE adv_items ADD COLUMN x",
    "ATTACH DATABASE '{other}' AS other",
    "DETACH DATABASE main",
    "VACUUM",
    "VACUUM INTO '{other}'",
    "REINDEX adv_items",
    "ANALYZE",
    "PRAGMA query_only = OFF",
    "PRAGMA journal_mode = DELETE",
    "PRAGMA user_version = 7",
    "PRAGMA writable_schema = ON",
    "PRAGMA foreign_keys = OFF",
    "PRAGMA temp_store_directory = '/tmp'",
    "PRAGMA optimize",
    "PRAGMA wal_checkpoint",
    "SELECT load_extension('/tmp/evil.so')",
    "SELECT fts3_tokenizer('simple')",
    "BEGIN",
    "SAVEPOINT s",
    "SELECT 1; DELETE FROM adv_items",
    "SELECT 1 /* ; */ ; DELETE FROM adv_items",
    "SELECT length(zeroblob(1000000000))",
    "SELECT length(randomblob(1000000000))",
    "SELECT * FROM pragma_table_info('adv_items')",
]


@pytest.fixture(scope="module")
def pg_tools(postgres_url: str, postgres_reader_url: str) -> Iterator[dict[str, DbTool]]:
    admin = sa.create_engine(postgres_url)
    with admin.begin() as conn:
        conn.exec_driver_sql("DROP TABLE IF EXISTS adv_items")
        conn.exec_driver_sql("CREATE TABLE adv_items (id SERIAL PRIMARY KEY, name TEXT)")
        conn.exec_driver_sql("INSERT INTO adv_items (name) VALUES ('a'), ('b'), ('c')")
    tools = {
        "narrow role": DbTool(postgres_reader_url),
        "superuser opted in": DbTool(postgres_url, allow_privileged_role=True),
    }
    yield tools
    for tool in tools.values():
        tool.close()
    with admin.begin() as conn:
        rows = conn.exec_driver_sql("SELECT count(*) FROM adv_items").scalar()
        conn.exec_driver_sql("DROP TABLE adv_items")
    admin.dispose()
    assert rows == 3
    assert not Path(MARK).exists()


@pytest.mark.parametrize("who", ["narrow role", "superuser opted in"])
@pytest.mark.parametrize("sql", PG_REFUSED)
def test_postgres_refuses(pg_tools: dict[str, DbTool], who: str, sql: str) -> None:
    result = pg_tools[who].execute("query_db", sql=sql)
    assert not result.success, sql
    assert result.code in ("permission_denied", "invalid_arguments"), (sql, result.error)
    assert not Path(MARK).exists()


@pytest.mark.parametrize(("sql", "rows"), PG_ALLOWED)
def test_postgres_runs_plain_queries(
    pg_tools: dict[str, DbTool], sql: str, rows: list[list[object]]
) -> None:
    out = pg_tools["narrow role"].execute("query_db", sql=sql).unwrap()
    assert out["rows"] == rows


@pytest.fixture(scope="module")
def sqlite_tool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DbTool, Path]]:
    folder = tmp_path_factory.mktemp("adv_sqlite")
    db = folder / "app.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE adv_items (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("CREATE INDEX adv_name ON adv_items (name)")  # so REINDEX has work
        conn.executemany("INSERT INTO adv_items (name) VALUES (?)", [("a",), ("b",), ("c",)])
    tool = DbTool(db)
    yield tool, folder
    tool.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM adv_items").fetchone() == (3,)
        assert conn.execute("PRAGMA user_version").fetchone() == (0,)
    assert sorted(p.name for p in folder.iterdir()) == ["app.db"]


@pytest.mark.parametrize("sql", SQLITE_REFUSED)
def test_sqlite_refuses(sqlite_tool: tuple[DbTool, Path], sql: str) -> None:
    tool, folder = sqlite_tool
    result = tool.execute("query_db", sql=sql.format(other=folder / "other.db"))
    assert not result.success, sql
    assert result.code in ("permission_denied", "invalid_arguments"), (sql, result.error)

"""Functions judged from PostgreSQL's own catalogue, on the real server: every volatile
function of ``pg_proc`` (built in and from extensions) is refused by ``query_db``, and so are
the stable ones that run SQL given as text. The breaches that a list of bad names let through
(``ts_stat``, ``ts_rewrite``, ``crosstab`` running a query that takes advisory locks, ends
sessions or reads files) are refused, as a narrow role and as a superuser that opted in, and
leave nothing behind: no advisory lock, no file, no row changed."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from pg_hostile import HostileDb, hostile_database

from toolrig.tools import DbTool
from toolrig.tools._pg_catalog import HARMLESS_VOLATILE, REACHING_STABLE

psycopg = pytest.importorskip("psycopg")

MARK = f"/tmp/toolrig-hostile-{uuid.uuid4().hex[:10]}"
"""A file the server would create if a refused statement ran."""

LOCKS = (
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)
WHO = ["narrow role", "superuser opted in"]


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileDb]:
    with hostile_database() as db:
        yield db


@pytest.fixture(scope="module")
def tools(hostile: HostileDb) -> Iterator[dict[str, DbTool]]:
    made = {
        "narrow role": DbTool(hostile.reader_url),
        "superuser opted in": DbTool(hostile.admin_url, allow_privileged_role=True),
    }
    yield made
    for tool in made.values():
        tool.close()


def _scalar(url: str, sql: str) -> object:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.exec_driver_sql(sql).scalar()
    finally:
        engine.dispose()


def _functions(url: str) -> list[tuple[str, str, str, str, bool]]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.exec_driver_sql(
                "SELECT n.nspname, p.proname, p.provolatile, l.lanname, p.oid < 16384 "
                "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "JOIN pg_language l ON l.oid = p.prolang ORDER BY 1, 2"
            )
            return [tuple(row) for row in rows]  # type: ignore[misc]
    finally:
        engine.dispose()


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def test_every_volatile_function_of_the_catalogue_is_refused(
    hostile: HostileDb, tools: dict[str, DbTool]
) -> None:
    """Walks all of ``pg_proc``: each volatile function not on the short allow-list, and each
    stable one that runs SQL of its own, is refused by its bare and its qualified name."""
    tool = tools["narrow role"]
    functions = _functions(hostile.admin_url)
    assert len(functions) > 3000  # the whole catalogue, extensions included
    refused_rows = [
        (schema, name)
        for schema, name, volatility, language, builtin in functions
        if name in REACHING_STABLE
        or (
            volatility == "v"
            and not (name in HARMLESS_VOLATILE and (builtin or language in ("c", "internal")))
        )
    ]
    must_refuse = set(refused_rows)
    not_refused = []
    for schema, name in sorted(must_refuse):
        for spelling in (f"{_quoted(schema)}.{_quoted(name)}()", f"{_quoted(name)}()"):
            result = tool.execute("query_db", sql=f"SELECT {spelling}")
            if result.code != "permission_denied":
                not_refused.append((spelling, result.code))
    assert not_refused == []
    volatile = sum(1 for row in functions if row[2] == "v")
    print(
        f"\n{len(functions)} functions, {volatile} volatile: {len(refused_rows)} refused "
        f"({len(must_refuse)} names); extensions: {', '.join(hostile.extensions)}"
    )
    assert _scalar(hostile.admin_url, LOCKS) == 0


def test_allowed_functions_still_run(tools: dict[str, DbTool]) -> None:
    tool = tools["narrow role"]
    sql = (
        "SELECT lower('A'), length(gen_random_uuid()::text), random() < 2, "
        "clock_timestamp() >= now(), to_tsvector('simple', 'a b') @@ 'a'::tsquery, "
        "(SELECT count(*) FROM hostile_items WHERE id BETWEEN 1 AND 2), "
        "extract(year FROM now()) > 2000, pg_relation_size('hostile_items') >= 0, "
        "(SELECT h.name FROM hostile_items h WHERE h.id = 1), "
        "(SELECT (h).name FROM hostile_items h WHERE h.id = 2), "
        "(SELECT s.system FROM (SELECT 'a column' AS system) s)"
    )
    out = tool.execute("query_db", sql=sql).unwrap()
    assert out["rows"] == [["a", 36, True, True, True, 2, True, True, "a", "b", "a column"]]


def test_trusted_functions_lift_the_rule_for_those_named(hostile: HostileDb) -> None:
    refused = DbTool(hostile.reader_url)
    trusted = DbTool(hostile.reader_url, trusted_functions=("public.plain_double",))
    try:
        result = refused.execute("query_db", sql="SELECT plain_double(21)")
        assert result.code == "permission_denied"
        assert "written in sql" in result.error.message
        assert trusted.execute("query_db", sql="SELECT plain_double(21)").unwrap()["rows"] == [[42]]
    finally:
        refused.close()
        trusted.close()


# -- hostile attempts, by class -------------------------------------------------------------
LOCK_SQL = "SELECT pg_advisory_lock(77)::text"
KILL_SQL = "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE pid <> 0"
FILE_SQL = "SELECT pg_read_file(''/etc/passwd'')"

TEXT_SQL = [
    # text-search statistics and rewrite run the query given as text
    "SELECT * FROM ts_stat('SELECT to_tsvector(pg_advisory_lock(78)::text)')",
    "SELECT * FROM ts_stat('SELECT to_tsvector(pg_terminate_backend(pg_backend_pid())::text)')",
    "SELECT * FROM ts_stat('SELECT to_tsvector(pg_cancel_backend(pg_backend_pid())::text)')",
    "SELECT * FROM ts_stat('SELECT body FROM hostile_items', 'ab')",
    "SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery "
    "WHERE pg_advisory_lock(79) IS NOT NULL')",
    "SELECT ts_rewrite('a'::tsquery, 'SELECT pg_read_file(''/etc/passwd'')::tsquery, "
    "''b''::tsquery')",
    "SELECT pg_catalog.ts_stat('SELECT body FROM hostile_items')",
    "SELECT * FROM PG_CATALOG.TS_STAT('SELECT body FROM hostile_items')",
    "SELECT * FROM pg_catalog.\"ts_stat\"('SELECT body FROM hostile_items')",
    "SELECT * FROM ts_stat/**/('SELECT body FROM hostile_items')",
    "SELECT * FROM hostile_items, LATERAL ts_stat('SELECT body FROM hostile_items') s",
    "WITH s AS (SELECT * FROM ts_stat('SELECT body FROM hostile_items')) SELECT * FROM s",
    "SELECT (SELECT count(*) FROM ts_stat('SELECT body FROM hostile_items'))",
    "SELECT 1 ORDER BY (SELECT count(*) FROM ts_stat('SELECT body FROM hostile_items'))",
    "SELECT CASE WHEN true THEN (SELECT 1 FROM ts_stat('SELECT body FROM hostile_items') "
    "LIMIT 1) END",
    "EXPLAIN SELECT * FROM ts_stat('SELECT body FROM hostile_items')",
    # xml built from a query given as text, or from whole tables
    f"SELECT query_to_xml('{LOCK_SQL}', true, true, '')",
    f"SELECT query_to_xml('{KILL_SQL}', true, true, '')",
    f"SELECT query_to_xml('{FILE_SQL}', true, true, '')",
    "SELECT query_to_xmlschema('SELECT 1', true, true, '')",
    "SELECT query_to_xml_and_xmlschema('SELECT 1', true, true, '')",
    "SELECT table_to_xml('hostile_items', true, true, '')",
    "SELECT table_to_xmlschema('hostile_items', true, true, '')",
    "SELECT schema_to_xml('public', true, true, '')",
    "SELECT database_to_xml(true, true, '')",
    "SELECT database_to_xmlschema(true, true, '')",
    "SELECT cursor_to_xml('c', 1, true, true, '')",
    # extensions that run SQL given as text, or reach other servers
    f"SELECT * FROM crosstab('{LOCK_SQL}, ''a'', ''b''') AS t(a text, b text)",
    "SELECT * FROM crosstab('SELECT name, name, name FROM hostile_items') AS t(a text, b text)",
    "SELECT * FROM crosstab2('SELECT name, name, name FROM hostile_items')",
    "SELECT * FROM public.crosstab('SELECT 1') AS t(a int)",
    "SELECT * FROM connectby('hostile_items', 'id', 'id', '1', 0) AS t(a int, b int, c int)",
    "SELECT * FROM xpath_table('id', 'name', 'hostile_items', '/a', 'true') AS t(id int, a text)",
    "SELECT * FROM dblink('dbname=postgres', 'SELECT 1') AS t(a int)",
    "SELECT dblink_exec('dbname=postgres', 'DELETE FROM hostile_items')",
    "SELECT dblink_connect('x', 'dbname=postgres')",
    "SELECT dblink_send_query('x', 'SELECT pg_advisory_lock(80)')",
    "SELECT public.dblink_exec('dbname=postgres', 'SELECT 1')",
]

OUTSIDE = [
    # locks and other sessions
    "SELECT pg_advisory_lock(81)",
    "SELECT pg_advisory_lock_shared(82)",
    "SELECT pg_try_advisory_lock(83)",
    "SELECT pg_try_advisory_lock_shared(1, 2)",
    "SELECT pg_advisory_xact_lock(84)",
    "SELECT pg_advisory_unlock_all()",
    "SELECT Pg_Advisory_Lock(85)",
    'SELECT "pg_advisory_lock"(86)',
    "SELECT pg_catalog.pg_advisory_lock(87)",
    "SELECT 1 WHERE pg_try_advisory_lock(88)",
    "SELECT * FROM hostile_items WHERE pg_try_advisory_lock(id)",
    "SELECT count(*) FILTER (WHERE pg_try_advisory_lock(89)) FROM hostile_items",
    "SELECT pg_terminate_backend(pg_backend_pid())",
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
    "SELECT pg_cancel_backend(pid) FROM pg_stat_activity",
    "SELECT pg_catalog.pg_cancel_backend(1)",
    "SELECT pg_log_backend_memory_contexts(pg_backend_pid())",
    "SELECT pg_sleep(0.1)",
    "SELECT pg_sleep_for('1 second')",
    "SELECT setseed(0.5)",
    "SELECT pg_notify('c', 'x')",
    "SELECT nextval('hostile_items_id_seq')",
    "SELECT currval('hostile_items_id_seq')",
    "SELECT setval('hostile_items_id_seq', 99)",
    "SELECT txid_current()",
    "SELECT pg_current_xact_id()",
    "SELECT set_config('lock_timeout', '0', false)",
    "SELECT pg_stat_reset()",
    "SELECT pg_stat_clear_snapshot()",
    # files, programs, large objects
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT pg_read_binary_file('/etc/passwd')",
    "SELECT pg_stat_file('/etc/passwd')",
    "SELECT * FROM pg_ls_dir('/')",
    "SELECT pg_ls_waldir()",
    "SELECT pg_current_logfile()",
    "SELECT * FROM pg_show_all_file_settings()",
    f"SELECT pg_file_write('{MARK}', 'x', false)",
    f"SELECT pg_catalog.pg_file_write('{MARK}', 'x', false)",
    f"SELECT lo_export(lo_from_bytea(0, 'x'), '{MARK}')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT lo_get(1)",
    "SELECT lo_creat(-1)",
    "SELECT lo_manage()",
    "SELECT gen_salt('bf')",
    # user functions, operators and casts that hide a volatile call
    "SELECT sneaky_lock()",
    "SELECT public.sneaky_lock()",
    "SELECT sneaky_plpgsql()",
    "SELECT * FROM hostile_items WHERE sneaky_lock()",
    "SELECT 1 =#= 2",
    "SELECT 1 OPERATOR(public.=#=) 2",
    "SELECT id =#= id FROM hostile_items",
    "SELECT 'x'::boxed",
    "SELECT CAST('x' AS public.boxed)",
    "SELECT ('x'::text)::boxed",
    "SELECT * FROM ROWS FROM (sneaky_lock()) AS t(a)",
    # an aggregate is marked IMMUTABLE whatever its transition function does
    "SELECT sneaky_agg(id) FROM hostile_items",
    "SELECT public.sneaky_agg(id) OVER () FROM hostile_items",
    "SELECT count(*) FROM hostile_items HAVING sneaky_agg(id) > 0",
    # a function of the row called as if it were a column: h.f means f(h)
    "SELECT h.sneaky_row FROM hostile_items h",
    "SELECT hostile_items.sneaky_row FROM hostile_items",
    "SELECT (h).sneaky_row FROM hostile_items h",
    "SELECT (ROW(1, 'a', NULL)::hostile_items).sneaky_row",
    "SELECT 1 FROM hostile_items h WHERE h.sneaky_row",
    "SELECT h.name FROM hostile_items h ORDER BY h.sneaky_row",
    "SELECT no_such_function()",
    "SELECT \"PG_READ_FILE\"('/etc/passwd')",
    "SELECT uuid_generate_v1()",
]


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("sql", TEXT_SQL + OUTSIDE)
def test_hostile_functions_are_refused(
    hostile: HostileDb, tools: dict[str, DbTool], who: str, sql: str
) -> None:
    result = tools[who].execute("query_db", sql=sql)
    assert result.code == "permission_denied", (sql, result.error)
    assert not Path(MARK).exists()
    assert _scalar(hostile.admin_url, LOCKS) == 0  # no lock outlives the call
    assert _scalar(hostile.admin_url, "SELECT count(*) FROM hostile_items") == 3


def test_the_session_timeouts_are_set(tools: dict[str, DbTool]) -> None:
    out = tools["narrow role"].execute(
        "query_db",
        sql="SELECT current_setting('lock_timeout'), "
        "current_setting('idle_in_transaction_session_timeout'), "
        "current_setting('transaction_read_only')",
    )
    assert out.unwrap()["rows"] == [["30s", "30s", "on"]]

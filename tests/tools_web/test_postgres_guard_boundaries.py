"""The PostgreSQL read-only guard's promises, boundary by boundary (`toolrig.tools._sql_postgres`).

The promise: a query runs only when PostgreSQL's own parser reads it as one plain read (one
``SELECT``, or an ``EXPLAIN`` of one without ``ANALYZE``), with nothing nested that changes
data, creates a table or locks rows; every function, operator, type and field it names is
handed to the catalogue check, and nothing it does not name. The role check names each power
that is too strong, and the role it proposes is created as written.

| boundary                                      | test                                            |
|-----------------------------------------------|-------------------------------------------------|
| one statement: none, one, two; text that does | `test_one_statement_that_parses`                |
| not parse                                     |                                                 |
| size: exactly `MAX_SQL_CHARS` and one more;   | `test_the_size_limits_at_their_boundary`        |
| the node budget at and past its limit         |                                                 |
| plain read: each statement kind that is not a | `test_each_statement_that_is_not_a_read`        |
| ``SELECT``, at the top and under ``EXPLAIN``  |                                                 |
| ``EXPLAIN``: with ``ANALYZE`` in each         | `test_explain_with_and_without_analyze`         |
| spelling refused, with other options allowed  |                                                 |
| nothing nested: a data-changing ``WITH``,     | `test_what_a_select_may_not_hold`               |
| ``SELECT INTO``, each row lock                |                                                 |
| names for the catalogue: functions (schema-   | `test_every_kind_of_name_is_collected`          |
| qualified: the last two parts), fields (only  |                                                 |
| qualified), indirection fields, operators     |                                                 |
| (``BETWEEN`` in its four forms as             |                                                 |
| ``>=``/``<=``), types                         |                                                 |
| and nothing else: no empty name, no           | `test_every_kind_of_name_is_collected`          |
| unqualified column                            |                                                 |
| the refusal: ``permission_denied`` naming     | `test_each_statement_that_is_not_a_read`        |
| what is refused, with a hint to use           |                                                 |
| ``SELECT``                                    |                                                 |
| pglast missing: the error names the extra to  | `test_without_pglast_the_error_names_the_extra` |
| install                                       |                                                 |
| roles: each power alone, several, several     | `test_role_problem_names_each_power`            |
| roles, none (absent: ``None``)                |                                                 |
| `ROLE_QUERY` and `narrow_role_sql` run as     | `test_the_role_sql_runs_on_the_server`          |
| written on the real server                    |                                                 |
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from postgres_db import scratch_database
from toolrig import ToolError
from toolrig.tools._sql_postgres import (
    MAX_SQL_CHARS,
    ROLE_QUERY,
    _nodes,
    _statement_word,
    check_postgres_query,
    narrow_role_sql,
    require_pglast,
    role_problem,
)

pglast = pytest.importorskip("pglast")


def _error(sql: str) -> ToolError:
    with pytest.raises(ToolError) as caught:
        check_postgres_query(sql)
    return caught.value


def test_one_statement_that_parses() -> None:
    for text in ("", ";", "  ;  ; "):
        error = _error(text)
        assert (error.code, error.message) == ("invalid_arguments", "The SQL holds no statement.")
    two = _error("SELECT 1; SELECT 2")
    assert (two.code, two.message) == (
        "invalid_arguments",
        "Only one SQL statement can be run per call.",
    )
    assert two.hint == "Send each statement in its own call."
    bad = _error("SELEC 1")
    assert bad.code == "invalid_arguments"
    assert bad.message.startswith("The SQL does not parse: syntax error at or near")
    assert bad.hint == "Fix the SQL; describe_db lists tables and columns."
    assert check_postgres_query("SELECT 1;")[1] is False


def test_the_size_limits_at_their_boundary() -> None:
    query = "SELECT 1"
    at_limit = query + " " * (MAX_SQL_CHARS - len(query))
    assert len(at_limit) == MAX_SQL_CHARS == 100_000
    check_postgres_query(at_limit)
    error = _error(at_limit + " ")
    assert error.code == "invalid_arguments"
    assert error.message == "The query is 100,001 characters long, over the 100,000 limit."
    assert error.hint == "Send a shorter query."
    # The walk of the tree stops at 200,000 nodes (no query within the text limit has more).
    from pglast import ast

    many = [ast.String(sval="x") for _ in range(200_000)]
    assert sum(1 for _ in _nodes(many)) == 200_000
    with pytest.raises(ToolError) as caught:
        sum(1 for _ in _nodes([*many, ast.String(sval="y")]))
    error = caught.value
    assert (error.code, error.message, error.hint) == (
        "invalid_arguments",
        "The query is too large to check.",
        "Send a smaller query.",
    )


@pytest.mark.parametrize(
    ("sql", "word"),
    [
        ("DELETE FROM t", "DELETE"),
        ("UPDATE t SET a = 1", "UPDATE"),
        ("INSERT INTO t VALUES (1)", "INSERT"),
        ("COPY t TO PROGRAM 'id'", "COPY"),
        ("DO $$ BEGIN END $$", "DO"),
        ("CREATE TABLE u (a int)", "CREATE"),
        ("SET search_path = x", "VARIABLESET"),
        ("EXPLAIN DELETE FROM t", "DELETE"),
        ("EXPLAIN (VERBOSE) UPDATE t SET a = 1", "UPDATE"),
    ],
)
def test_each_statement_that_is_not_a_read(sql: str, word: str) -> None:
    error = _error(sql)
    assert error.code == "permission_denied"
    assert error.message == f"query_db is read-only: a {word} statement is refused."
    assert error.hint == (
        "query_db only reads: use one SELECT (or WITH ... SELECT, VALUES, EXPLAIN)."
    )


def test_explain_with_and_without_analyze() -> None:
    for sql in (
        "EXPLAIN ANALYZE SELECT 1",
        "EXPLAIN (ANALYZE) SELECT 1",
        "explain (Analyze, costs off) select 1",
        "EXPLAIN (VERBOSE, ANALYZE false) SELECT 1",
    ):
        error = _error(sql)
        assert error.code == "permission_denied"
        assert error.message == (
            "query_db is read-only: EXPLAIN ANALYZE (it runs the statement) is refused."
        )
    for sql in ("EXPLAIN SELECT 1", "EXPLAIN (VERBOSE, COSTS OFF) SELECT 1", "EXPLAIN VALUES (1)"):
        assert check_postgres_query(sql)[1] is True
    for sql in ("SELECT 1", "VALUES (1)", "TABLE t", "WITH x AS (SELECT 1) SELECT * FROM x"):
        assert check_postgres_query(sql)[1] is False


@pytest.mark.parametrize(
    ("sql", "what"),
    [
        ("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "a nested DELETE statement"),
        ("WITH d AS (INSERT INTO t VALUES (1) RETURNING *) SELECT 1", "a nested INSERT statement"),
        ("SELECT * INTO u FROM t", "SELECT ... INTO (it creates a table)"),
        ("SELECT * FROM t FOR UPDATE", "SELECT ... FOR UPDATE / SHARE (it locks rows)"),
        ("SELECT * FROM t FOR SHARE", "SELECT ... FOR UPDATE / SHARE (it locks rows)"),
        ("SELECT * FROM t FOR NO KEY UPDATE", "SELECT ... FOR UPDATE / SHARE (it locks rows)"),
        ("SELECT * FROM t FOR KEY SHARE", "SELECT ... FOR UPDATE / SHARE (it locks rows)"),
        (
            "SELECT * FROM (SELECT 1 FROM t FOR UPDATE) s",
            "SELECT ... FOR UPDATE / SHARE (it locks rows)",
        ),
    ],
)
def test_what_a_select_may_not_hold(sql: str, what: str) -> None:
    error = _error(sql)
    assert error.code == "permission_denied"
    assert error.message == f"query_db is read-only: {what} is refused."


def test_every_kind_of_name_is_collected() -> None:
    names, explain = check_postgres_query(
        "SELECT t.a, b, pg_catalog.now(), db.sch.fn(), lower(x)::text, CAST(1 AS int), "
        "(r).f, (arr)[1], x.y.z FROM t WHERE a BETWEEN 1 AND 2 AND b = 3 AND c ~~ 'x'"
    )
    assert explain is False
    assert names.functions == {"pg_catalog.now", "sch.fn", "lower"}
    assert names.fields == {"a", "f", "z"}  # unqualified b, c and x are not fields
    assert names.operators == {"=", ">=", "<=", "~~"}
    assert names.types == {"text", "pg_catalog.int4"}
    for form in ("NOT BETWEEN", "BETWEEN SYMMETRIC", "NOT BETWEEN SYMMETRIC"):
        found = check_postgres_query(f"SELECT a {form} 1 AND 2 FROM t")[0]
        assert found.operators == {">=", "<="}, form
    nothing = check_postgres_query("SELECT a, b FROM t")[0]
    assert (nothing.functions, nothing.fields, nothing.operators, nothing.types) == (
        set(),
        set(),
        set(),
        set(),
    )
    assert check_postgres_query("SELECT (arr)[1] FROM t")[0].fields == set()


@given(st.sampled_from(["Delete", "Copy", "Do", "Select", "VariableSet"]))
def test_statement_words(kind: str) -> None:
    node = getattr(pglast.ast, f"{kind}Stmt")()
    assert _statement_word(node) == kind.upper()
    assert _statement_word(pglast.ast.A_Const()) == "A_CONST"
    assert _statement_word(type("Stmt", (), {})()) == "empty"  # never an empty word


def test_without_pglast_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    assert require_pglast() is pglast
    monkeypatch.setitem(sys.modules, "pglast", None)  # what a missing package looks like
    with pytest.raises(ImportError) as caught:
        require_pglast()
    assert str(caught.value) == (
        "db_tool needs pglast (PostgreSQL's own parser) to check queries on PostgreSQL: "
        "pip install 'toolrig[postgres]'"
    )


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        ((True, False, False, False), "is a superuser"),
        ((False, True, False, False), "may run programs on the server (pg_execute_server_program)"),
        ((False, False, True, False), "may write files on the server (pg_write_server_files)"),
        ((False, False, False, True), "may read files on the server (pg_read_server_files)"),
    ],
)
def test_role_problem_names_each_power(flags: tuple[bool, ...], words: str) -> None:
    assert role_problem([("alice", *flags)]) == f"the role alice {words}"
    assert role_problem([("alice", False, False, False, False)]) is None
    assert role_problem([]) is None
    both = role_problem([("a", True, True, False, False), ("b", False, False, False, True)])
    assert both == (
        "the role a is a superuser and may run programs on the server "
        "(pg_execute_server_program); the role b may read files on the server "
        "(pg_read_server_files)"
    )
    with pytest.raises(ValueError, match="zip"):  # a row of another shape is an error, not a pass
        role_problem([("a", True, False)])


def test_the_role_sql_runs_on_the_server() -> None:
    psycopg = pytest.importorskip("psycopg")
    with scratch_database("toolrig_guard") as dsn, psycopg.connect(dsn) as conn:
        database = dsn.rsplit("/", 1)[1]
        rows = [tuple(r) for r in conn.execute(ROLE_QUERY)]
        assert rows and all(len(r) == 5 for r in rows)
        (name, superuser, *_), *_ = rows
        if superuser:
            problem = role_problem(rows)
            assert problem is not None and problem.startswith(f"the role {name} is a superuser")
        # The proposed role, made in a transaction that is rolled back (roles are cluster-wide).
        conn.execute("CREATE TABLE t (a int)")
        role = "toolrig_reader"
        try:
            conn.execute(narrow_role_sql(database))
            granted = conn.execute(
                "SELECT has_table_privilege(%s, 't', 'SELECT'), "
                "has_table_privilege(%s, 't', 'INSERT'), "
                "has_database_privilege(%s, current_database(), 'CONNECT'), "
                "(SELECT rolsuper OR rolcreatedb OR rolcreaterole OR rolreplication "
                " FROM pg_roles WHERE rolname = %s), "
                "(SELECT rolcanlogin FROM pg_roles WHERE rolname = %s)",
                (role, role, role, role, role),
            ).fetchone()
            assert granted == (True, False, True, False, True)
            conn.execute(f"SET ROLE {role}")
            reader = [tuple(r) for r in conn.execute(ROLE_QUERY) if r[0] == role]
            assert reader == [(role, False, False, False, False)]
            assert role_problem(reader) is None
        finally:
            conn.rollback()

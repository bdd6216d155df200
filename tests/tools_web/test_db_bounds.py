"""``query_db`` holds its time and memory limits while the query runs, not after: PostgreSQL rows
come through a server-side cursor (two million rows cost what ten do), every backend stops at
its byte budget as rows arrive, and a SQLite query that spends its time inside single function
calls (where SQLite never looks at its progress handler) is killed at its deadline in its own
process. Memory is measured in a fresh interpreter, so other tests do not blur the figure."""

from __future__ import annotations

import gc
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from runtime_timing import Beside
from toolrig import ToolError
from toolrig.tools import DbTool
from toolrig.tools._fork_call import ForkedWorkers, fork_available
from toolrig.tools._sql_sqlite import MAX_VALUE_BYTES

needs_fork = pytest.mark.skipif(not fork_available(), reason="needs os.fork")

MEASURE = textwrap.dedent(
    """
    import json, resource, sys, time
    from toolrig.tools import DbTool

    def peak_mb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    url, sql, max_rows, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    tool = DbTool(url, allow_privileged_role=True, statement_timeout=timeout)
    tool.execute("query_db", sql="SELECT 1").unwrap()  # connections and imports warmed up
    before = peak_mb()
    start = time.monotonic()
    result = tool.execute("query_db", sql=sql, max_rows=max_rows)
    seconds = time.monotonic() - start
    out = result.output or {}
    print(json.dumps({
        "grew_mb": peak_mb() - before, "seconds": seconds, "code": result.code,
        "message": result.error.message if result.error else None,
        "rows": out.get("row_count"), "truncated": out.get("truncated"),
    }))
    """
)


def measure(url: str, sql: str, *, max_rows: int = 10, timeout: float = 30.0) -> dict[str, object]:
    """How much a fresh process grows (peak RSS, MB) and how long it takes to run ``sql``."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, url, sql, str(max_rows), str(timeout)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


# -- PostgreSQL -----------------------------------------------------------------------------
def test_two_million_rows_cost_what_ten_do(postgres_url: str) -> None:
    """Before the cursor, the whole result was buffered: about 250 MB for these rows."""
    sql = "SELECT i, repeat('x', 100) AS pad FROM generate_series(1, 2000000) AS i"
    figures = measure(postgres_url, sql, max_rows=10)
    assert figures["code"] is None, figures
    assert figures["rows"] == 10 and figures["truncated"] is True
    assert float(str(figures["grew_mb"])) < 20, figures
    assert float(str(figures["seconds"])) < 2.0, figures


def test_postgres_result_bytes_are_bounded_as_rows_arrive(postgres_reader_url: str) -> None:
    tool = DbTool(postgres_reader_url, max_result_bytes=1_000_000)
    try:
        result = tool.execute(
            "query_db", sql="SELECT repeat('x', 300000) FROM generate_series(1, 100)", max_rows=100
        )
        assert result.code == "invalid_arguments"
        assert "larger than 1,000,000 bytes" in result.error.message
        assert "by row 4" in result.error.message
        small = tool.execute("query_db", sql="SELECT repeat('x', 10)", max_rows=5).unwrap()
        assert small["rows"] == [["x" * 10]]
    finally:
        tool.close()


def test_explain_still_works_without_a_cursor(postgres_reader_url: str) -> None:
    tool = DbTool(postgres_reader_url)
    try:
        plan = tool.execute("query_db", sql="EXPLAIN SELECT * FROM generate_series(1, 3)")
        assert "Function Scan" in str(plan.unwrap()["rows"][0][0])
    finally:
        tool.close()


# -- SQLite ---------------------------------------------------------------------------------
@pytest.fixture
def lite(tmp_path: Path) -> Path:
    db = tmp_path / "app.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (a)")
        conn.execute("INSERT INTO t VALUES (1)")
    return db


TERM = "length(replace(hex(zeroblob(990000 + a)), '0', '00'))"
SLOW_ROW = "SELECT " + ", ".join([TERM] * 250) + " FROM t"
"""One row of 250 calls, each over two megabytes (about 5.5 s, 500 MB, on a quiet 2-core
machine; a hundred once finished in 985 ms, under the 1 s limit): no step of SQLite's program
ends between them, so neither the progress handler nor ``interrupt()`` is consulted."""


@needs_fork
def test_sqlite_single_row_of_long_calls_is_stopped_at_the_deadline(lite: Path) -> None:
    tool = DbTool(lite, statement_timeout=1)
    try:
        tool.execute("query_db", sql="SELECT 1").unwrap()  # the worker is up
        with Beside(1.0) as ref:
            result = tool.execute("query_db", sql=SLOW_ROW)
        assert result.code == "timeout", result.error
        assert "1 s limit" in result.error.message
        assert ref.elapsed < ref.bound(1.3), ref.elapsed  # read whole: 5.5 s on a quiet machine
        assert tool.execute("query_db", sql="SELECT a FROM t").unwrap()["rows"] == [[1]]
    finally:
        tool.close()


@needs_fork
def test_sqlite_memory_of_one_statement_is_capped(lite: Path) -> None:
    """Three hundred constant 4 MB strings: SQLite computes constants once, up front, and keeps
    them all (1.2 GB); the worker's address space stops it at its budget."""
    tool = DbTool(lite, statement_timeout=20)
    try:
        sql = "SELECT " + ", ".join([TERM.replace(" + a", "")] * 300)
        result = tool.execute("query_db", sql=sql)
        assert result.code == "invalid_arguments", result.error
        assert "more than its 256 MB of memory" in result.error.message
    finally:
        tool.close()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT replace(hex(zeroblob(3000000)), '0', '00')",
        "SELECT length(replace(hex(zeroblob(1500000)), '0', '000'))",
        "SELECT length(zeroblob(5000000))",
        "SELECT length(randomblob(5000000))",
        "SELECT length(hex(randomblob(3000000)))",
        "SELECT length(group_concat(hex(zeroblob(1000000)))) FROM (SELECT 1 UNION ALL SELECT 2)",
        "SELECT length(char(65) || hex(zeroblob(2000000)))",
        "SELECT length(substr(hex(zeroblob(2100000)), 1))",
    ],
)
def test_sqlite_values_are_bounded_by_setlimit(lite: Path, sql: str) -> None:
    tool = DbTool(lite, statement_timeout=2)
    try:
        result = tool.execute("query_db", sql=sql)  # past the limit: refused, not timed out
        assert result.code == "invalid_arguments", (sql, result.error)
        assert "too big" in result.error.message
    finally:
        tool.close()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT printf('%.*c', 50000000, 'x')",
        "SELECT printf('%*d', 50000000, 1)",
        "SELECT printf('%-*s', 50000000, 'x')",
        "SELECT printf('%0*d', 50000000, 1)",
        "SELECT printf('%.*f', 50000000, 1.0)",
    ],
)
def test_sqlite_printf_past_the_limit_gives_nothing_at_once(lite: Path, sql: str) -> None:
    tool = DbTool(lite, statement_timeout=2)
    try:
        result = tool.execute("query_db", sql=sql)  # at once: the 2 s limit never struck
        if result.success:
            assert result.unwrap()["rows"] == [[None]], sql  # SQLite gives up at the limit
        else:
            assert result.code == "invalid_arguments" and "too big" in result.error.message
    finally:
        tool.close()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT " + " + ".join(["1"] * 20_000),  # over the SQL length limit
        "SELECT " + "(" * 150 + "1" + ")" * 150,  # over the expression depth
        " UNION ALL ".join(["SELECT 1"] * 60),  # over the compound select limit
        "SELECT ?1001",  # over the number of parameters
        "SELECT 'a' LIKE '" + "%a" * 600 + "'",  # over the LIKE pattern length
    ],
)
def test_sqlite_statements_are_bounded_by_setlimit(lite: Path, sql: str) -> None:
    tool = DbTool(lite)
    try:
        result = tool.execute("query_db", sql=sql)
        assert result.code == "invalid_arguments", (sql[:80], result.error)
        assert "parameters do not match" not in result.error.message  # refused by a limit
    finally:
        tool.close()


def test_sqlite_huge_printf_rows_do_not_grow_the_process(lite: Path) -> None:
    """A hundred rows of 3.9 MB strings: refused by the result budget, in the worker; before,
    the caller's process grew by about 1 GB."""
    sql = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) "
        "SELECT printf('%.*c', 3900000, 'x') FROM n"
    )
    figures = measure(str(lite), sql, max_rows=100, timeout=10)
    assert figures["code"] == "invalid_arguments", figures
    assert "larger than 10,000,000 bytes" in str(figures["message"])
    assert float(str(figures["grew_mb"])) < 30, figures


def _handler(request: tuple[str, int]) -> int:
    kind, amount = request
    if kind == "sleep":
        time.sleep(amount)
    elif kind == "allocate":
        return len(bytearray(amount))
    elif kind == "collect, then allocate":
        gc.collect()
        return len(bytearray(amount))
    elif kind == "parent":
        return os.getppid()
    return os.getpid()


@needs_fork
def test_a_worker_is_killed_at_its_deadline_capped_in_memory_and_replaced() -> None:
    workers = ForkedWorkers(_handler, what="The query")
    try:
        first = workers.run(("pid", 0), timeout=5, memory=50_000_000)
        assert first != os.getpid()
        assert workers.run(("pid", 0), timeout=5, memory=50_000_000) == first  # reused
        with (
            Beside(0.5) as ref,
            pytest.raises(Exception, match=r"longer than its 0.5 s limit") as info,
        ):
            workers.run(("sleep", 30), timeout=0.5, memory=50_000_000)
        assert ref.elapsed < ref.bound(1.0), ref.elapsed  # killed, not waited for (30 s)
        assert getattr(info.value, "code", None) == "timeout"
        with pytest.raises(ProcessLookupError):
            os.kill(first, 0)  # killed and reaped
        with pytest.raises(Exception, match=r"more than its 50 MB of memory"):
            workers.run(("allocate", 500_000_000), timeout=10, memory=50_000_000)
        assert workers.run(("allocate", 10_000_000), timeout=10, memory=50_000_000) == 10**7
        assert workers.run(("pid", 0), timeout=5, memory=50_000_000) not in (first, os.getpid())
    finally:
        workers.close()


@needs_fork
def test_the_ceiling_does_not_count_memory_the_application_could_free() -> None:
    """A worker forked from this process would hold its 600 MB of uncollected cycles as its
    own; collected in the worker, they would become room for a 500 MB allocation on a 50 MB
    budget. Workers are forked by a small server process instead, never by this one."""
    gc.disable()
    try:
        for _ in range(6):
            cycle: list[object] = [bytearray(100_000_000)]
            cycle.append(cycle)
        del cycle
        workers = ForkedWorkers(_handler, what="The query")
        try:
            assert workers.run(("parent", 0), timeout=5, memory=50_000_000) != os.getpid()
            with pytest.raises(ToolError, match=r"more than its 50 MB of memory"):
                workers.run(("collect, then allocate", 500_000_000), timeout=10, memory=50_000_000)
        finally:
            workers.close()
    finally:
        gc.enable()
        gc.collect()


def test_work_that_cannot_be_pickled_is_refused_with_its_reason(lite: Path) -> None:
    with pytest.raises(TypeError, match=r"The query runs in a worker process, so its work"):
        ForkedWorkers(lambda request: request, what="The query")
    with pytest.raises(ValueError, match=r"engine_options .* must be picklable on SQLite"):
        DbTool(lite, engine_options={"creator": lambda: sqlite3.connect(lite)})

    class LocalDb(DbTool):  # a class the fork server cannot import
        pass

    with pytest.raises(ValueError, match=r"a subclass of DbTool\) must be picklable"):
        LocalDb(lite)


@needs_fork
def test_a_worker_killed_while_idle_is_replaced_and_workers_end_with_their_owner() -> None:
    import gc
    import signal

    workers = ForkedWorkers(_handler, what="The query")
    first = workers.run(("pid", 0), timeout=5, memory=50_000_000)
    os.kill(first, signal.SIGKILL)  # as the system's out-of-memory killer would
    time.sleep(0.1)
    second = workers.run(("pid", 0), timeout=5, memory=50_000_000)
    assert second != first
    del workers
    gc.collect()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # it reads the end of its requests, exits, is reaped
        try:
            os.kill(second, 0)
        except ProcessLookupError:
            break
        time.sleep(0.01)
    with pytest.raises(ProcessLookupError):
        os.kill(second, 0)


@needs_fork
def test_workers_collected_while_their_server_is_busy_wait_for_nothing() -> None:
    """A collection can run their finalizer in the middle of a request to the fork server,
    in the thread that holds the server: releasing them must not ask the server anything."""
    import threading

    from toolrig.tools import _fork_call

    workers = ForkedWorkers(_handler, what="The query")
    assert workers.run(("pid", 0), timeout=5, memory=50_000_000) != os.getpid()
    server = _fork_call._the_server()
    done = threading.Event()

    def collect() -> None:
        nonlocal workers
        with server.lock:  # as a request in flight holds it
            del workers
            gc.collect()
        done.set()

    threading.Thread(target=collect, daemon=True).start()
    assert done.wait(5), "releasing collected workers waited on the busy server"


@needs_fork
def test_ordinary_sqlite_queries_cost_a_round_trip_not_a_fork(lite: Path) -> None:
    tool = DbTool(lite)
    try:
        tool.execute("query_db", sql="SELECT a FROM t").unwrap()  # the worker starts
        workers = tool._workers
        assert workers is not None
        forked: list[object] = []
        fork = workers._fork

        def counted() -> Any:
            forked.append(None)
            return fork()

        workers._fork = counted  # type: ignore[method-assign]
        for _ in range(50):
            assert tool.execute("query_db", sql="SELECT a FROM t").unwrap()["rows"] == [[1]]
        assert forked == []  # counted, not timed: every query went to the waiting worker
    finally:
        tool.close()


def test_the_value_limit_is_what_the_docs_say() -> None:
    assert MAX_VALUE_BYTES == 4_000_000

"""Time and memory of ``db_tool``'s bounded paths, each beside the limit that bounds it.

Every case runs in a fresh interpreter, so its peak resident memory is its own: the figure is
how much the peak grew during the one call, after a warm-up call.

- ``pg-2m-rows``: two million rows asked with ``max_rows=10`` (server-side cursor);
- ``sqlite-long-row``: one row of 300 ``replace()`` calls over 2 MB each (about 12 s of work)
  with ``statement_timeout=2``;
- ``sqlite-printf-rows``: a hundred 3.9 MB ``printf`` strings (the result budget, 10 MB);
- ``sqlite-constants``: 300 constant 4 MB strings kept by SQLite at once (the worker's memory).

    .venv/bin/python bench/bounds_sql.py            # each case three times, the median shown
    .venv/bin/python bench/bounds_sql.py --quick    # each case once (about 15 s)

PostgreSQL is the local server (``TOOLRIG_TEST_POSTGRES``, default
``postgresql://postgres@127.0.0.1:5432/postgres``); without it that case is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

PG = os.environ.get("TOOLRIG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
TERM = "length(replace(hex(zeroblob(990000 + a)), '0', '00'))"
CASES: dict[str, dict[str, Any]] = {
    "pg-2m-rows": {
        "sql": "SELECT i, repeat('x', 100) AS pad FROM generate_series(1, 2000000) AS i",
        "max_rows": 10,
        "timeout": 30.0,
        "limit": "max_rows=10 (rows fetched: at most 11)",
    },
    "sqlite-long-row": {
        "sql": "SELECT " + ", ".join([TERM] * 300) + " FROM t",
        "max_rows": 10,
        "timeout": 2.0,
        "limit": "statement_timeout=2 s",
    },
    "sqlite-printf-rows": {
        "sql": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) "
        "SELECT printf('%.*c', 3900000, 'x') FROM n",
        "max_rows": 100,
        "timeout": 10.0,
        "limit": "max_result_bytes=10 MB",
    },
    "sqlite-constants": {
        "sql": "SELECT " + ", ".join([TERM.replace(" + a", "")] * 300),
        "max_rows": 10,
        "timeout": 20.0,
        "limit": "worker memory 256 MB (caller: unchanged)",
    },
}


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_case(name: str, url: str) -> dict[str, Any]:
    """One call of the case in this process: the peak growth, the time and the answer."""
    from toolrig.tools import DbTool

    case = CASES[name]
    tool = DbTool(url, allow_privileged_role=True, statement_timeout=case["timeout"])
    tool.execute("query_db", sql="SELECT 1").unwrap()
    before = peak_mb()
    start = time.monotonic()
    result = tool.execute("query_db", sql=case["sql"], max_rows=case["max_rows"])
    seconds = time.monotonic() - start
    tool.close()
    answer = result.code or f"{result.unwrap()['row_count']} rows"
    return {"grew_mb": peak_mb() - before, "seconds": seconds, "answer": answer}


def _sqlite_file(folder: str) -> str:
    path = Path(folder) / "bench.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (a)")
        conn.execute("INSERT INTO t VALUES (1)")
    return str(path)


def _pg_url() -> tuple[str, str] | None:
    """A scratch database's URL and its name, or ``None`` when no server answers."""
    try:
        import psycopg

        name = f"toolrig_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(PG, autocommit=True, connect_timeout=3) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
    except Exception as exc:
        print(f"pg-2m-rows skipped: {exc}", file=sys.stderr)
        return None
    rest = PG.split("://", 1)[1].rsplit("/", 1)[0]
    return f"postgresql+psycopg://{rest}/{name}", name


def _drop(name: str) -> None:
    import psycopg

    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="each case once")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.url)))
        return
    rounds = 1 if args.quick else 3
    pg = _pg_url()
    print(f"{'case':<20} {'limit':<42} {'answer':<18} {'time':>8} {'peak growth':>12}")
    with tempfile.TemporaryDirectory() as folder:
        lite = _sqlite_file(folder)
        for name, case in CASES.items():
            if name.startswith("pg") and pg is None:
                continue
            url = pg[0] if name.startswith("pg") and pg else lite
            runs = [
                json.loads(
                    subprocess.run(
                        [sys.executable, __file__, "--case", name, "--url", url],
                        capture_output=True,
                        text=True,
                        check=True,
                        timeout=120,
                    ).stdout.splitlines()[-1]
                )
                for _ in range(rounds)
            ]
            seconds = statistics.median(r["seconds"] for r in runs)
            grew = statistics.median(r["grew_mb"] for r in runs)
            print(
                f"{name:<20} {case['limit']:<42} {runs[0]['answer']:<18} "
                f"{seconds:>7.2f}s {grew:>9.1f} MB"
            )
    if pg is not None:
        _drop(pg[1])


if __name__ == "__main__":
    main()

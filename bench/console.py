#!/usr/bin/env python3
"""Page render times of ``toolrig console`` on a large execution log.

Run from the checkout:  .venv/bin/python bench/console.py [--quick] [--records N] [--log URL]

Fills a log (a fresh SQLite file, or the PostgreSQL database at ``--log``, whose executions
table is emptied first) with agent runs as the agent writes them: per run, model turns
(``executor_type = 'llm'``) each followed by one to three tool calls over 20 tool names, about
5 % of calls failed, and each run's row in the runs table; plus 20 sessions holding a call for approval. Then requests each page
``--repeat`` times through the ASGI app in this process (no socket: the figure is the app's
own work, queries and template rendering) and prints p50 and p95 per page. The full run uses
a million records (``--quick``: 20,000, in seconds). PostgreSQL's statistics are refreshed
after the fill (``ANALYZE``), as autovacuum keeps them on a log that grew over time; without
them the planner reads the whole table for an id range.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from toolrig import tool
from toolrig.console import app
from toolrig.storage import ExecutionLog, open_log
from toolrig.storage._rows import COLUMNS
from toolrig.storage._sessions import LogSessionStore, SessionState

TOOLS = [f"tool_{i:02d}" for i in range(20)]


def fill(log: ExecutionLog, records: int, seed: int = 7) -> list[str]:
    """Write ``records`` records in runs; the run ids, oldest first."""
    rng = random.Random(seed)
    marks = ", ".join(log.placeholder for _ in COLUMNS)
    sql = f"INSERT INTO {log.table} ({', '.join(COLUMNS)}) VALUES ({marks})"
    conn = log._conn()
    now = time.time() - records * 0.05
    rows: list[tuple[Any, ...]] = []
    runs: list[str] = []
    run_rows: list[tuple[Any, ...]] = []
    written = 0
    postgres = log.placeholder != "?"
    if not postgres:
        conn.execute("BEGIN")
    while written < records:
        run = f"run-{len(runs):07d}"
        runs.append(run)
        failed_run = False
        began = now
        for turn in range(1, rng.randint(2, 5) + 1):
            now += 0.02
            rows.append(_row(run, f"turn{turn}", "scripted", "llm", now, 15.0, "succeeded", None))
            for _ in range(rng.randint(1, 3)):
                ok = rng.random() > 0.05
                duration = rng.lognormvariate(1.5, 1.0)
                rows.append(
                    _row(
                        run,
                        f"turn{turn}",
                        rng.choice(TOOLS),
                        "tool",
                        now,
                        duration,
                        "succeeded" if ok else "failed",
                        None if ok else "invalid_arguments",
                    )
                )
                failed_run = failed_run or not ok
                now += duration / 1000
        status = "failed" if failed_run else "succeeded"
        run_rows.append((run, "agent", "helper", None, status, "answer", None, began, now))
        if len(rows) >= 5000:
            conn.cursor().executemany(sql, rows) if postgres else conn.executemany(sql, rows)
            written += len(rows)
            rows = []
    if rows:
        conn.cursor().executemany(sql, rows) if postgres else conn.executemany(sql, rows)
    runs_sql = (
        f"INSERT INTO {_runs_table(log)} (run_id, kind, name, session_id, status, stop_reason, "
        f"error, started_at, finished_at) VALUES ({', '.join(log.placeholder for _ in range(9))})"
    )
    conn.cursor().executemany(runs_sql, run_rows) if postgres else conn.executemany(
        runs_sql, run_rows
    )
    if not postgres:
        conn.execute("COMMIT")
    store = LogSessionStore(log)
    for number in range(20):
        pending = {
            "text": None,
            "calls": [{"name": "drop_table", "arguments": {"name": f"t{number}"}, "id": "c1"}],
            "results": {},
            "pending": [
                {
                    "id": "c1",
                    "name": "drop_table",
                    "arguments": {"name": f"t{number}"},
                    "tool": "drop_table",
                }
            ],
        }
        store.save(SessionState(session_id=f"held-{number}", messages=[], pending=pending))
    if postgres:  # autovacuum would, on a log that grew over time; a bulk fill outruns it
        conn.execute(f"ANALYZE {log.table}")
        conn.execute(f"ANALYZE {_runs_table(log)}")
    return runs


def _runs_table(log: ExecutionLog) -> str:
    return log.table[: -len("executions")] + "runs"


def _row(
    run: str,
    step: str,
    executor: str,
    kind: str,
    started: float,
    duration: float,
    status: str,
    code: str | None,
) -> tuple[Any, ...]:
    values = {
        "run_id": run,
        "step_id": step,
        "tool_call_id": None,
        "executor": executor,
        "executor_type": kind,
        "action": None,
        "input_data": json.dumps({"query": "x" * 40}),
        "output": json.dumps({"rows": [1, 2, 3]}),
        "status": status,
        "error_code": code,
        "error_message": None if code is None else "a must be an integer",
        "started_at": started,
        "finished_at": started + duration / 1000,
        "duration_ms": duration,
        "attempts": 1,
        "cost": None,
        "tool_version": "1.0.0",
        "error_hint": None if code is None else "Pass a whole number.",
        "parent_call_id": None,
    }
    return tuple(values[c] for c in COLUMNS)


@tool(annotations={"destructive": True})
def drop_table(name: str) -> str:
    """Drop a table."""
    return f"dropped {name}"


async def measure(log: ExecutionLog, runs: list[str], repeat: int) -> dict[str, list[float]]:
    asgi = app(log=log, catalog=[drop_table])
    pages = {
        "runs (first page)": "/runs",
        "runs (page 100)": None,
        f"runs ?tool={TOOLS[3]}": f"/runs?tool={TOOLS[3]}",
        "runs ?status=failed": "/runs?status=failed",
        "a run": f"/runs/{runs[len(runs) // 2]}",
        "approvals": "/approvals",
        "catalogue": "/catalog",
        "health": "/health",
    }
    transport = httpx.ASGITransport(app=asgi)
    times: dict[str, list[float]] = {}
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        path, number = "/runs", 1
        while number < 100:  # follow "Older runs" up to page 100
            found = (await http.get(path)).text.split("before=", 1)
            if len(found) < 2:
                break
            cursor = found[1].split('"', 1)[0]
            path, number = f"/runs?before={cursor}", number + 1
        del pages["runs (page 100)"]
        pages = {**dict(list(pages.items())[:1]), f"runs (page {number})": path, **pages}
        for name, url in pages.items():
            assert url is not None
            for _ in range(3):  # warm: a connection per worker thread, compiled templates
                await http.get(url)
            samples = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                response = await http.get(url)
                samples.append((time.perf_counter() - t0) * 1000)
                assert response.status_code == 200, (url, response.status_code)
            times[name] = samples
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20,000 records instead of 1,000,000")
    parser.add_argument("--records", type=int, help="how many records to write")
    parser.add_argument("--log", help="a postgresql:// URL (default: a fresh SQLite file)")
    parser.add_argument("--repeat", type=int, default=30, help="requests per page")
    args = parser.parse_args()
    records = args.records or (20_000 if args.quick else 1_000_000)
    with tempfile.TemporaryDirectory() as folder:
        log = open_log(args.log or str(Path(folder) / "bench.sqlite3"))
        if args.log:
            log._conn().execute(f"TRUNCATE {log.table}")
            log._conn().execute(f"DELETE FROM {_runs_table(log)}")
            log._conn().execute(f"DELETE FROM {LogSessionStore(log).table}")
        t0 = time.perf_counter()
        runs = fill(log, records)
        filled = time.perf_counter() - t0
        print(f"{log!r}: {records:,} records in {len(runs):,} runs, written in {filled:.1f} s")
        times = asyncio.run(measure(log, runs, args.repeat))
        print(f"{'page':<24} {'p50 ms':>8} {'p95 ms':>8}  ({args.repeat} requests each)")
        for name, samples in times.items():
            p95 = statistics.quantiles(samples, n=20)[-1]
            print(f"{name:<24} {statistics.median(samples):>8.1f} {p95:>8.1f}")
        print(f"python {sys.version.split()[0]}")
        log.close()


if __name__ == "__main__":
    main()

"""``toolrig log``'s views for people and its options, boundary by boundary (``cli._log_cmd``),
through the command on a SQLite log written record by record.

| promise | boundary | test |
|---|---|---|
| `--status` | each status (`denied`, `answered`); a legacy word; a typo: one line | `..._status` |
| `--tool` | a tool (all its actions); `tool.action`, `tool__action`: that one | `..._tool` |
| numbers | `--limit 0`, `-n -1`, `--interval` 0/`nan`/`inf`, `--max-chars 79` | `..._numbers` |
| numbers | the least each takes: `--limit 1`, `-n 0`, `--max-chars 80` | `..._least` |
| `--since` | `1.5h`, ` 2d `, epoch seconds, an ISO time, by `started_at` | `..._since` |
| the table | id, local time, `tool.action`, status, ms, run, `[code] message` | `..._table` |
| the table | output as JSON, whitespace folded, cut at 80 with `…`, markup kept | `..._table` |
| summary | a row per `tool.action`, busiest first, each status counted, mean, max | `..._summary` |
| summary | the last error, cut at 60; the title counts records and tools | `..._summary` |
| `tail -f` | `-n 0`: only later records; one started first, written later; a pipe | `..._follow` |

Breaks tried (each made the named test fail, then was undone): ``--status`` passed on without
``status_of`` (``..._status``); the action dropped from ``--tool`` (``..._tool``); ``at_least(0)``
for ``--limit`` (``..._numbers``); ``_short`` keeping the whitespace, cutting at ``limit``
without the ``…`` (``..._table``); the ``denied`` count left out of ``_per_tool``, busiest
last (``..._summary``); following by ``started_at`` as before (``..._follow``); ``seen``
starting at 0 (``..._follow``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from cli_runner import ROOT, env, one_line_error, toolrig

from toolrig.storage import RecordStatus, open_log


def _add(url: str, tool: str, status: str, **fields: Any) -> int:
    """One record in run ``r1`` (or ``fields['run_id']``), as a log's writer would add it."""
    fields.setdefault("run_id", "r1")
    action = fields.pop("action", None)
    output = fields.pop("output", None)
    message = fields.pop("error_message", None)
    with open_log(url) as log:
        return log.add_result(tool, "tool", action, {}, output, status, message, **fields)


def _rows(stdout: str) -> list[list[str]]:
    """The cells of a Rich table's body rows (heads and rules left out)."""
    return [
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in stdout.splitlines()
        if line.startswith("│")
    ]


@pytest.fixture
def url(tmp_path: Path) -> str:
    return str(tmp_path / "log.sqlite3")


def _ids(done: subprocess.CompletedProcess[str]) -> list[int]:
    assert done.returncode == 0, done.stderr
    return [json.loads(line)["id"] for line in done.stdout.splitlines()]


def test_query_status(url: str) -> None:
    ids = {status: _add(url, "t", status) for status in RecordStatus}
    for status in RecordStatus:
        done = toolrig("log", "query", "--log", url, "--status", status.value, "--json")
        assert _ids(done) == [ids[status]], status
    done = toolrig("log", "query", "--log", url, "--status", "error", "--json")  # legacy word
    assert _ids(done) == [ids[RecordStatus.FAILED]]
    done = toolrig("log", "query", "--log", url, "--status", "denyed")
    assert done.returncode == 2
    line = one_line_error(done, "log")
    assert "--status: status must be one of" in line and "'denyed'" in line
    assert all(status.value in line for status in RecordStatus)


def test_query_tool(url: str) -> None:
    read = _add(url, "files", "succeeded", action="read")
    write = _add(url, "files", "succeeded", action="write")
    other = _add(url, "double", "succeeded")
    query = ("log", "query", "--log", url, "--json", "--tool")
    assert _ids(toolrig(*query, "files")) == [read, write]
    assert _ids(toolrig(*query, "files.write")) == [write]
    assert _ids(toolrig(*query, "files__read")) == [read]
    assert _ids(toolrig(*query, "double")) == [other]
    assert _ids(toolrig(*query, "double.read")) == []


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["query", "--limit", "0"], "argument --limit: must be at least 1, not 0"),
        (["tail", "-n", "-1"], "argument -n: must be at least 0, not -1"),
        (["tail", "-f", "--interval", "0"], "argument --interval: must be a positive number"),
        (["tail", "-f", "--interval", "nan"], "argument --interval: must be a positive number"),
        (["tail", "-f", "--interval", "inf"], "argument --interval: must be a positive number"),
        (["tail", "--interval", "soon"], "argument --interval: 'soon' is not a number"),
        (["summary", "r1", "--max-chars", "79"], "argument --max-chars: must be at least 80"),
        (["query", "--limit", "1.5"], "argument --limit: '1.5' is not a whole number"),
    ],
)
def test_numbers(url: str, argv: list[str], line: str) -> None:
    _add(url, "t", "succeeded", output="x")
    done = toolrig("log", *argv, "--log", url)
    assert done.returncode == 2, done.stdout
    assert line in one_line_error(done, f"log {argv[0]}")


def test_numbers_at_their_least(url: str) -> None:
    first = _add(url, "t", "succeeded", output="x")
    _add(url, "t", "failed", error_message="boom")
    assert _ids(toolrig("log", "query", "--log", url, "--limit", "1", "--json")) == [first]
    assert _ids(toolrig("log", "tail", "--log", url, "-n", "0", "--json")) == []
    done = toolrig("log", "summary", "r1", "--log", url, "--max-chars", "80")
    assert done.returncode == 0 and len(done.stdout.rstrip("\n")) <= 80, done.stdout


def test_since(url: str) -> None:
    now = time.time()
    old = _add(url, "t", "succeeded", started_at=now - 3 * 86400)
    hour_ago = _add(url, "t", "succeeded", started_at=now - 3600)
    fresh = _add(url, "t", "succeeded", started_at=now - 60)
    query = ("log", "query", "--log", url, "--json", "--since")
    assert _ids(toolrig(*query, "1.5h")) == [hour_ago, fresh]
    assert _ids(toolrig(*query, " 2d ")) == [hour_ago, fresh]
    assert _ids(toolrig(*query, "10m")) == [fresh]
    assert _ids(toolrig(*query, str(now - 7200))) == [hour_ago, fresh]
    iso = datetime.fromtimestamp(now - 4 * 86400).isoformat()
    assert _ids(toolrig(*query, iso)) == [old, hour_ago, fresh]
    done = toolrig(*query, "2 days")
    assert done.returncode == 2 and "use 30m, 2h, 7d" in one_line_error(done, "log")


def test_table(url: str) -> None:
    started = datetime(2026, 5, 17, 9, 30, 5).timestamp()
    long_text = "word  \n\t" * 30  # folded to "word word ..." then cut
    ids = [
        _add(url, "files", "succeeded", action="read", output={"n": 1, "é": [True]},
             started_at=started, duration_ms=12.345, run_id="run-a"),
        _add(url, "double", "failed", error_code="execution_error", error_message="bad [red]x[/]",
             started_at=started, duration_ms=0.04),
        _add(url, "double", "denied", output=long_text, started_at=started),
    ]  # fmt: skip
    done = toolrig("log", "query", "--log", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].rstrip() == "3 records"
    rows = _rows(done.stdout)
    assert rows[0] == [
        str(ids[0]),
        "2026-05-17 09:30:05",
        "files.read",
        "succeeded",
        "12.3",
        "run-a",
        '{"n": 1, "é": [true]}',
    ]
    assert rows[1][2:] == ["double", "failed", "0.0", "r1", "[execution_error] bad [red]x[/]"]
    shown = rows[2][6]
    assert shown == ("word " * 16).rstrip() + "…" and len(shown) == 80


def test_summary(url: str) -> None:
    for status, ms in (("succeeded", 10.0), ("denied", 30.0), ("failed", 20.0)):
        _add(url, "files", status, action="read", duration_ms=ms, error_message=f"{status}!"
             if status != "succeeded" else None)  # fmt: skip
    _add(url, "files", "answered", action="write", duration_ms=1.0)
    _add(url, "files", "skipped", action="write", duration_ms=3.0)
    _add(url, "late", "failed", duration_ms=5.0, error_message="x" * 100)
    done = toolrig("log", "summary", "--log", url, "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [row["tool"] for row in rows] == ["files.read", "files.write", "late"]
    assert rows[0] == {
        "tool": "files.read",
        "calls": 3,
        **{status.value: 0 for status in RecordStatus},
        "succeeded": 1,
        "failed": 1,
        "denied": 1,
        "mean_ms": 20.0,
        "max_ms": 30.0,
        "last_error": "failed!",
    }
    assert (rows[1]["answered"], rows[1]["skipped"], rows[1]["last_error"]) == (1, 1, None)
    done = toolrig("log", "summary", "--log", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].rstrip() == "6 records, 3 tools"
    head = next(line for line in done.stdout.splitlines() if line.startswith("┃"))
    assert [cell.strip() for cell in head.split("┃")[1:-1]] == [
        "tool",
        "calls",
        *(status.value for status in RecordStatus),
        "mean ms",
        "max ms",
        "last error",
    ]
    table = _rows(done.stdout)
    assert table[0] == ["files.read", "3", "1", "1", "0", "1", "0", "20.0", "30.0", "failed!"]
    assert table[2][-1] == "x" * 59 + "…"


def _follow(url: str, *argv: str) -> subprocess.Popen[str]:
    environ = env()
    environ.pop("PYTHONUNBUFFERED", None)  # a pipe, as `toolrig log tail -f | grep` has
    return subprocess.Popen(
        [sys.executable, "-m", "toolrig.cli.main", "log", "tail", "-f", "--log", url, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=environ,
    )


def test_follow(url: str) -> None:
    _add(url, "old", "succeeded", started_at=time.time() - 120)
    proc = _follow(url, "-n", "0", "--interval", "0.05")
    watchdog = threading.Timer(60, proc.kill)  # a read below never waits longer than this
    watchdog.start()
    try:
        assert proc.stdout is not None
        lines = iter(proc.stdout.readline, "")
        assert next(lines).rstrip() == "last 0 records"  # it has looked: what comes now is new
        first = _add(url, "new", "succeeded", started_at=time.time())
        # a call that started before the one above and ended after it: written later
        late = _add(url, "slow", "succeeded", started_at=time.time() - 60)
        rows: list[list[str]] = []
        while len(rows) < 2:
            rows += _rows(next(lines))
        assert [(row[0], row[2]) for row in rows] == [(str(first), "new"), (str(late), "slow")]
    finally:
        watchdog.cancel()
        proc.terminate()
        proc.wait(10)

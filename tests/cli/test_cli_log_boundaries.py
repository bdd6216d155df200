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
| the heads | each column's head; numbers to the right; no output: an empty cell | `..._heads...` |
| colours | each status its own colour, in the records and in the summary's counts | `..._colour` |
| `--json` | query, tail and one run's records keep their characters (`café ✓`) | `..._characters` |
| defaults | `tail`: the last 20; `query`: the first 100; a run: 4,000 characters | `..._defaults` |
| filters | `--run`; `summary --since`; a run as JSON; no such run: one line | `..._everywhere` |
| cut | a text of exactly 80 characters is kept whole | `..._whole` |
| narrow | a terminal too narrow for the output: folded over lines, never cut | `..._folds...` |
| usage | `log` without `query`, `tail` or `summary`: one line, exit 2 | `..._usage_error` |
| the log | no `--log` nor `$TOOLRIG_LOG`: the user data folder's file | `..._folder` |
| following | the last n, the id to follow from (empty log, n = 0, n past all) | `..._from` |
| following | batch by batch, by id (one started first, written later), each once | `..._by_id` |

Breaks tried (each made the named test fail, then was undone): ``--status`` passed on without
``status_of`` (``..._status``); the action dropped from ``--tool`` (``..._tool``); ``at_least(0)``
for ``--limit`` (``..._numbers``); ``_short`` keeping the whitespace, cutting at ``limit``
without the ``…`` (``..._table``); the ``denied`` count left out of ``_per_tool``, busiest
last (``..._summary``); following by ``started_at`` as before (``..._follow``); ``seen``
starting at 0 (``..._follow``); the status colours swapped, a number column left-aligned
(``..._colour``, ``..._heads...``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from cli_runner import ROOT, env, one_line_error, toolrig

from toolrig.cli._log_cmd import last_records, records_after
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
    first = _add(url, "t", "succeeded", output="x" * 300)
    _add(url, "t", "failed", error_message="boom " * 60)
    assert _ids(toolrig("log", "query", "--log", url, "--limit", "1", "--json")) == [first]
    assert _ids(toolrig("log", "tail", "--log", url, "-n", "0", "--json")) == []
    done = toolrig("log", "summary", "r1", "--log", url, "--max-chars", "80")
    assert done.returncode == 0 and 40 < len(done.stdout.rstrip("\n")) <= 80, done.stdout
    done = toolrig("log", "summary", "r1", "--log", url)
    assert len(done.stdout) > 300  # the default, 4,000, leaves more


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
    assert _cells(done.stdout)[1][8] == "    3.0 "  # max ms, to the right
    assert table[2][-1] == "x" * 59 + "…" and table[1][-1] == ""  # none: an empty cell


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


def _cells(stdout: str, head: str = "│") -> list[list[str]]:
    """The cells of a table's lines starting with ``head``, as printed (padding kept)."""
    return [line.split(head)[1:-1] for line in stdout.splitlines() if line.startswith(head)]


def test_the_table_heads_and_alignment(url: str) -> None:
    _add(url, "files", "succeeded", action="read", duration_ms=1.5, output=None)
    _add(url, "files", "succeeded", action="read", duration_ms=1234.5, output=None)
    done = toolrig("log", "query", "--log", url)
    assert done.returncode == 0, done.stderr
    (head,) = _cells(done.stdout, "┃")
    assert [cell.strip() for cell in head] == [
        "id", "time", "tool", "status", "ms", "run", "output or error",
    ]  # fmt: skip
    row, _ = _cells(done.stdout)
    assert row[0] == "  1 " and row[4] == "    1.5 "  # numbers to the right
    assert row[2].startswith(" files.read") and row[6] == " " * len(row[6])  # no output: ""
    done = toolrig("log", "summary", "--log", url)
    (row,) = _cells(done.stdout)
    assert row[1] == "     2 "  # calls, to the right
    assert all(cell.startswith("  ") for cell in row[2:8]), row  # the counts, the mean
    assert row[7] == "   618.0 " and row[8] == " 1234.5 "


def test_each_status_has_its_colour(url: str) -> None:
    for status in RecordStatus:
        _add(url, "t", status.value)
    query = ("log", "query", "--log", url)
    done = toolrig(*query, FORCE_COLOR="1", NO_COLOR="", TERM="xterm-256color")
    assert done.returncode == 0, done.stderr
    codes = {"succeeded": "32", "failed": "31", "skipped": "33", "denied": "35", "answered": "34"}
    for word, code in codes.items():
        assert f"\x1b[{code}m{word}\x1b[0m" in done.stdout, word
    assert "\x1b[1;36mt" in done.stdout and "\x1b[2m" in done.stdout  # the tool, the id
    done = toolrig("log", "summary", "--log", url, FORCE_COLOR="1", NO_COLOR="", TERM="xterm")
    (row,) = [line for line in done.stdout.splitlines() if "\x1b[1;36mt" in line]
    assert all(re.search(rf"\x1b\[{code}m *1\x1b\[0m", row) for code in codes.values()), row


def test_json_lines_keep_their_characters(url: str) -> None:
    _add(url, "t", "succeeded", output="café ✓")
    for argv in (("query",), ("tail",), ("summary", "r1")):
        done = toolrig("log", *argv, "--log", url, "--json")
        assert done.returncode == 0, done.stderr
        assert '"output": "café ✓"' in done.stdout, argv
        assert json.loads(done.stdout)["output"] == "café ✓"


def test_the_defaults(url: str) -> None:
    with open_log(url) as log:
        for n in range(105):
            log.add_result("t", "tool", None, {}, n, "succeeded", run_id="r1")
    done = toolrig("log", "tail", "--log", url, "--json")
    assert [json.loads(line)["output"] for line in done.stdout.splitlines()] == [*range(85, 105)]
    done = toolrig("log", "query", "--log", url, "--json")
    assert [json.loads(line)["output"] for line in done.stdout.splitlines()] == [*range(100)]
    _add(url, "t", "succeeded", output="y" * 300, run_id="long")
    for _ in range(30):
        _add(url, "t", "succeeded", output="y" * 300, run_id="long")
    done = toolrig("log", "summary", "long", "--log", url)
    assert 3000 < len(done.stdout) <= 4001, len(done.stdout)  # the default --max-chars 4000


def test_a_run_and_a_time_are_filters_everywhere(url: str) -> None:
    now = time.time()
    _add(url, "t", "succeeded", run_id="a", started_at=now - 7200)
    mine = _add(url, "t", "failed", run_id="b", started_at=now, error_message="no")
    assert _ids(toolrig("log", "query", "--log", url, "--run", "b", "--json")) == [mine]
    done = toolrig("log", "summary", "--log", url, "--since", "1h", "--json")
    assert [(row["calls"], row["failed"]) for row in json.loads(done.stdout)] == [(1, 1)]
    done = toolrig("log", "summary", "b", "--log", url, "--json")
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == [mine]
    done = toolrig("log", "summary", "nope", "--log", url)
    assert done.returncode == 2 and "no run 'nope' in this log" in one_line_error(done, "log")


def test_a_text_of_exactly_the_limit_is_kept_whole(url: str) -> None:
    _add(url, "t", "succeeded", output="z" * 80)
    (row,) = _rows(toolrig("log", "query", "--log", url).stdout)
    assert row[6] == "z" * 80


def test_last_records_and_the_id_to_follow_from(url: str) -> None:
    with open_log(url) as log:
        assert last_records(log, 0) == ([], 0) == last_records(log, 5)  # an empty log
        ids = [_add(url, "t", "succeeded", output=n) for n in range(3)]
        for count, shown in ((0, []), (1, ids[2:]), (2, ids[1:]), (9, ids)):
            records, newest = last_records(log, count)
            assert ([r.id for r in records], newest) == (shown, ids[2]), count


def test_records_after_come_batch_by_batch_by_id(url: str) -> None:
    first = _add(url, "t", "succeeded")
    with open_log(url) as log:
        batches = records_after(log, first, interval=0.01)
        later = _add(url, "t", "succeeded", started_at=time.time())
        early = _add(url, "t", "succeeded", started_at=time.time() - 60)  # started first
        assert [r.id for r in next(batches)] == [later, early]
        last = _add(url, "t", "succeeded")
        assert [r.id for r in next(batches)] == [last]  # from the last batch on, once each


def test_log_without_an_action_is_a_usage_error() -> None:
    done = toolrig("log")
    assert done.returncode == 2
    assert "the following arguments are required: ACTION" in one_line_error(done, "log")


def test_a_narrow_terminal_folds_the_output(url: str) -> None:
    _add(url, "t", "succeeded", output="q" * 70)
    done = toolrig("log", "query", "--log", url, COLUMNS="90")
    assert done.returncode == 0, done.stderr
    folded = "".join(row[6] for row in _rows(done.stdout))
    assert folded == "q" * 70 and "…" not in done.stdout  # folded over lines, not cut


def test_without_log_or_toolrig_log_the_user_data_folder(tmp_path: Path) -> None:
    done = toolrig("log", "tail", XDG_DATA_HOME=str(tmp_path), TOOLRIG_LOG="")
    assert done.returncode == 2
    expected = f"no execution log at '{tmp_path / 'toolrig' / 'executions.sqlite3'}'"
    assert expected in one_line_error(done, "log")
    url = str(tmp_path / "toolrig" / "executions.sqlite3")
    _add(url, "t", "succeeded")
    done = toolrig("log", "query", "--json", XDG_DATA_HOME=str(tmp_path), TOOLRIG_LOG="")
    assert len(_ids(done)) == 1

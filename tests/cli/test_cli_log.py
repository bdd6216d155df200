"""``toolrig log query|tail|summary`` over SQLite and PostgreSQL, through the real command."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cli_runner import ROOT, env, one_line_error, toolrig

from toolrig import ToolExecutor, tool
from toolrig.storage import open_log


@tool
def double(n: int) -> int:
    """Double a number."""
    if n < 0:
        raise ValueError("negative")
    return 2 * n


def _fill(url: str) -> None:
    """Five calls recorded in run ``r1``: three succeed, two fail."""
    with open_log(url) as log, ToolExecutor([double]) as executor, log.run("r1"):
        for n in (1, 2, -1, 3, -2):
            executor.execute_sync("double", {"n": n})


@pytest.fixture(params=["sqlite", "postgres"])
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = (
        str(tmp_path / "log.sqlite3")
        if request.param == "sqlite"
        else str(request.getfixturevalue("postgres_url"))
    )
    _fill(url)
    return url


def test_query_filters_records(log_url: str) -> None:
    done = toolrig("log", "query", "--log", log_url, "--status", "failed", "--json")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(records) == 2 and {r["status"] for r in records} == {"failed"}
    assert records[0]["error_code"] == "execution_error" and records[0]["run_id"] == "r1"
    done = toolrig("log", "query", "--log", log_url, "--tool", "double", "--since", "1h")
    assert done.returncode == 0 and "5 records" in done.stdout


def test_tail_shows_the_newest_records(log_url: str) -> None:
    done = toolrig("log", "tail", "-n", "2", "--log", log_url)
    assert done.returncode == 0, done.stderr
    assert "last 2 records" in done.stdout
    assert [line.split("│")[3].strip() for line in done.stdout.splitlines() if "│" in line] == [
        "double",
        "double",
    ]


def test_summary_counts_per_tool_and_summarises_a_run(log_url: str) -> None:
    done = toolrig("log", "summary", "--log", log_url, "--json")
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)
    assert row["tool"] == "double" and row["calls"] == 5
    assert row["succeeded"] == 3 and row["failed"] == 2
    assert "negative" in row["last_error"]
    done = toolrig("log", "summary", "r1", "--log", log_url)
    assert done.returncode == 0 and "r1" in done.stdout and "negative" in done.stdout


def test_tail_follow_prints_records_written_later(tmp_path: Path) -> None:
    url = str(tmp_path / "log.sqlite3")
    _fill(url)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolrig.cli.main",
            "log",
            "tail",
            "-n",
            "1",
            "-f",
            "--log",
            url,
            "--interval",
            "0.1",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env(),
    )
    watchdog = threading.Timer(30, proc.kill)  # a read below never waits longer than this
    watchdog.start()
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        with open_log(url) as log, ToolExecutor([double]) as executor, log.run("r2"):
            executor.execute_sync("double", {"n": 21})
        later = json.loads(proc.stdout.readline())
        assert later["run_id"] == "r2" and later["output"] == 42 and later["id"] > first["id"]
    finally:
        watchdog.cancel()
        proc.terminate()
        proc.wait(10)


def test_a_missing_log_is_an_error_and_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "none.sqlite3"
    done = toolrig("log", "tail", "--log", path)
    assert done.returncode == 2
    assert "no execution log at" in one_line_error(done, "log")
    assert not path.exists()
    done = toolrig("log", "summary", "--log", "postgresql://nobody@127.0.0.1:1/none")
    assert done.returncode == 2 and "cannot read the execution log" in one_line_error(done, "log")


def test_default_log_is_toolrig_log(tmp_path: Path) -> None:
    url = str(tmp_path / "env.sqlite3")
    _fill(url)
    done = toolrig("log", "query", "--run", "r1", "--json", TOOLRIG_LOG=url)
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 5


def test_call_with_log_records_the_call_as_a_run_of_its_own(tmp_path: Path) -> None:
    url = str(tmp_path / "calls.sqlite3")
    ok = toolrig("call", "add", "a:=2", "b:=3", "--log", url)
    bad = toolrig("call", "add", "a=x", "b:=3", "--log", url)
    assert (ok.returncode, bad.returncode) == (0, 1), ok.stderr + bad.stderr
    toolrig("call", "add", "a:=1", "b:=1")  # without --log: nothing recorded
    with open_log(url) as log:
        good, refused = log.query()
        assert good.output == 5 and good.run_id != refused.run_id  # a run each
        assert (refused.status, refused.error_code) == ("failed", "invalid_arguments")
        assert refused.error_hint and refused.sent_text and "Hint:" in refused.sent_text
        info = log.run_info(good.run_id)
        assert info is not None and (info.kind, info.name, info.status) == (
            "cli",
            "call",
            "succeeded",
        )
        assert re.fullmatch(r"cli-[0-9a-f]{12}", good.run_id), good.run_id
        failed = log.run_info(refused.run_id)
        assert failed is not None and (failed.kind, failed.name) == ("cli", "call")

"""The console's pages over a log that real agents wrote (scripted models, a real SQLite file):
statuses from the run rows (and from records when a run has none), what a model turn was
given, the error as the model read it, nested calls, health that tells a deny from a tool
error, runs and sessions linked, and a log file that is deleted, replaced or corrupted."""

from __future__ import annotations

import asyncio
import html
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from console_support import fill_log, fill_story
from console_tools import tools

from toolrig import BaseTool, ToolContext, ToolExecutor, action, tool
from toolrig.agent import Agent, ApprovalPolicy
from toolrig.console import app
from toolrig.console._live import signature
from toolrig.console._watch import LogWatch
from toolrig.storage import SQLiteExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel


@pytest.fixture
def story(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "story.sqlite3"
    return path, fill_story(path)


class Pages:
    """The console app in this process, read as a browser would (no socket)."""

    def __init__(self, log: SQLiteExecutionLog) -> None:
        self.log = log
        self.asgi = app(log=log, catalog=tools)

    def get(self, url: str) -> httpx.Response:
        async def fetch() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.asgi)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
                return await c.get(url)

        return asyncio.run(fetch())

    def text(self, url: str, status: int = 200) -> str:
        response = self.get(url)
        assert response.status_code == status, response.text
        return response.text


@pytest.fixture
def pages(story: tuple[Path, dict[str, str]]) -> Iterator[Pages]:
    log = SQLiteExecutionLog(story[0])
    yield Pages(log)
    log.close()


def rows(page: str) -> dict[str, str]:
    """Run id -> the status shown in its row of the runs list."""
    found = re.findall(r'href="/runs/([^"]+)">.*?<span class="status ([a-z_]+)">', page, re.S)
    return {html.unescape(run): status for run, status in found}


def plain(page: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_the_runs_list_shows_each_runs_own_status_kind_and_agent(pages: Pages) -> None:
    page = pages.text("/runs")
    assert rows(page) == {
        "plan-skip": "failed",
        "run-rejected": "output_rejected",
        "run-denied": "denied",
        "run-asked": "held",
        "run-held": "held",
        "run-hint": "succeeded",  # a refused call the model recovered from: the run answered
    }
    assert 'href="/sessions/held-session"' in page
    text = plain(page)
    assert "agent DBA" in text and "agent counter" in text and "plan plan-skip" in text
    for word in ("running", "held", "denied", "output_rejected"):
        assert f'<option value="{word}"' in page


@pytest.mark.parametrize(
    ("status", "listed"),
    [
        ("held", {"run-asked", "run-held"}),
        ("denied", {"run-denied"}),
        ("output_rejected", {"run-rejected"}),
        ("failed", {"plan-skip"}),
    ],
)
def test_the_status_filter_takes_the_run_words(pages: Pages, status: str, listed: set[str]) -> None:
    assert set(rows(pages.text(f"/runs?status={status}"))) == listed


def test_a_status_filter_pages_through_its_runs(story: tuple[Path, dict[str, str]]) -> None:
    from toolrig.console._runs import RunFilters, runs_page

    log = SQLiteExecutionLog(story[0])
    first, cursor = runs_page(log, RunFilters(status="held"), size=1)
    assert [r.run_id for r in first] == ["run-asked"] and cursor is not None
    second, end = runs_page(log, RunFilters(status="held"), before=cursor, size=1)
    assert [r.run_id for r in second] == ["run-held"] and end is None
    both, _ = runs_page(log, RunFilters(status="held", tool="nothing-of-that-name"))
    assert both == []  # a tool and a status: the records walk, then the run rows
    log.close()


def test_a_run_without_a_run_row_gets_its_status_from_its_records(
    story: tuple[Path, dict[str, str]],
) -> None:
    path, _ = story
    with sqlite3.connect(path) as db:  # as a log written before runs had rows
        db.execute("DELETE FROM runs")
    log = SQLiteExecutionLog(path)
    try:
        shown = rows(Pages(log).text("/runs"))
    finally:
        log.close()
    assert shown["run-denied"] == "denied"  # a person's deny is not a failure
    assert shown["plan-skip"] == "failed"  # its step failed; the skipped one is not counted
    assert shown["run-hint"] == "failed"  # without a run row, a failed call is all we know


def test_a_model_turn_shows_what_it_was_given_and_the_error_its_hint(pages: Pages) -> None:
    page = pages.text("/runs/run-hint")
    given = page.split('<div class="given">', 1)[1].split("</div>", 1)[0]
    assert "add two and three" in given  # the user's message
    assert "You are helper" in given  # the system prompt, first turn
    offered = re.findall(r'title="schema hash ([0-9a-f]{16})">([a-z_]+)', given)
    assert [name for _, name in offered] == [
        "add",
        "echo",
        "drop_table",
        "login",
        "attempt_completion",
    ]
    assert "&#34;max_tokens&#34;: 4096" in given  # the settings
    error = html.unescape(page.split('<pre class="error">', 1)[1].split("</pre>", 1)[0])
    assert error.startswith("Error [invalid_arguments]: Invalid arguments for `add`")
    assert "\nHint: Fix the arguments listed above and call `add` again." in error
    # the second turn was given what was new: the call and its error, as the model read it
    second = page.split('<div class="given">')[2]
    assert "Hint: Fix the arguments" in html.unescape(second)


def test_a_held_run_shows_held_and_links_its_session(pages: Pages) -> None:
    page = pages.text("/runs/run-held")
    assert '<span class="status held" id="run-status">held</span>' in page
    assert 'href="/sessions/held-session"' in page
    session = pages.text("/sessions/deny-session")
    assert 'href="/runs/run-asked"' in session and 'href="/runs/run-denied"' in session
    assert '<span class="status denied">denied</span>' in session
    resumed = pages.text("/runs/run-denied")  # the session's runs, in order
    assert "run-asked" in plain(resumed).split("Runs of this session:", 1)[1]


def test_health_counts_a_deny_apart_from_tool_errors(pages: Pages) -> None:
    text = plain(pages.text("/health"))
    assert "Tool errors 2 " in text  # add refused, unreachable failed
    assert "Denied by a person 1 " in text and "1 steps skipped" in text
    assert re.search(r"drop_table 0 0 1 0\.0%", text)  # no call ran, none failed, one denied
    assert "output_rejected 1" in text and "held 2" in text


def test_a_secret_argument_stays_masked_in_a_turns_messages(tmp_path: Path) -> None:
    log = SQLiteExecutionLog(tmp_path / "secret.sqlite3")
    secret = {"user": "u", "password": "hunter22"}
    model = ScriptedModel([ModelTurn(calls=[("login", secret)]), "in"])
    Agent("helper", "You help.", model, tools, log=log).run("sign in", run_id="run-secret")
    page = Pages(log).text("/runs/run-secret")
    log.close()
    assert "hunter22" not in page  # not in the messages, the calls asked for, nor the JSON copy
    assert "Model was given" in page


class Outer(BaseTool):
    """Calls another tool from inside."""

    name = "outer"

    @action
    async def run(self, n: int, ctx: ToolContext) -> int:
        """Add one through the inner tool."""
        inner = await ctx.run_tool(add_one, "add_one", {"n": n})
        return int(inner.output) + 1


@tool
def add_one(n: int) -> int:
    """Add one."""
    return n + 1


def test_a_nested_call_names_its_parent(tmp_path: Path) -> None:
    log = SQLiteExecutionLog(tmp_path / "nested.sqlite3")
    with log.run("run-nested"):
        ToolExecutor([Outer(), add_one]).execute_sync("outer.run", {"n": 1}, tool_call_id="o-1")
    page = Pages(log).text("/runs/run-nested")
    log.close()
    inner = page.split('class="span succeeded tool nested"', 1)[1].split("</li>", 1)[0]
    assert "Called from inside" in inner and "outer.run · o-1" in html.unescape(inner)


def test_the_approvals_signature_moves_when_a_call_is_held(tmp_path: Path) -> None:
    path = tmp_path / "live.sqlite3"
    fill_log(path)
    log = SQLiteExecutionLog(path)
    watch = LogWatch(log)
    before, version = signature(log, "approvals"), watch.check().version
    agent = Agent(
        "DBA",
        "You maintain the database.",
        ScriptedModel([ModelTurn(calls=[("drop_table", {"name": "t"}, "n1")]), "ok"]),
        tools,
        approval=ApprovalPolicy(destructive=True),
        log=SQLiteExecutionLog(path),
    )
    agent.run("Drop t.", session_id="new-held", run_id="run-new-held")
    time.sleep(0.3)  # a check younger than a quarter second is reused
    assert watch.check().version != version  # another connection wrote
    assert signature(log, "approvals") != before
    run = signature(log, "run", "run-new-held")
    assert run.endswith("|held")
    watch.close()
    log.close()


def wait_for(pages: Pages, url: str, status: int) -> str:
    deadline = time.monotonic() + 5
    while True:
        response = pages.get(url)
        if response.status_code == status or time.monotonic() > deadline:
            assert response.status_code == status, response.text
            return response.text
        time.sleep(0.1)


def test_a_deleted_log_file_says_so_on_every_page_then_is_followed_back(
    story: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, _ = story
    log = SQLiteExecutionLog(path)
    pages = Pages(log)
    assert "run-held" in pages.text("/runs")
    kept = tmp_path / "kept.sqlite3"
    log.close()
    os.replace(path, kept)  # deleted or moved away
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    for url in ("/runs", "/runs/run-held", "/approvals", "/health", "/catalog"):
        page = wait_for(pages, url, 503)
        assert f"The log file {path} was deleted or moved; waiting for it." in page, url
        assert "run-held" not in page  # no stale data
    assert not path.exists()  # waiting does not create an empty log in its place
    other = tmp_path / "other.sqlite3"  # a different log takes the path: it is followed
    fill_log(other)
    os.replace(other, path)
    page = wait_for(pages, "/runs", 200)
    assert set(rows(page)) == {"run-1", "run-2", "run-3"}
    log.close()


def test_a_corrupt_log_file_gives_one_line(story: tuple[Path, dict[str, str]]) -> None:
    path, _ = story
    log = SQLiteExecutionLog(path)
    pages = Pages(log)
    assert pages.get("/runs").status_code == 200
    log.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    broken = path.with_suffix(".broken")
    broken.write_bytes(b"this is not a database" * 400)
    os.replace(broken, path)
    started = time.monotonic()
    page = wait_for(pages, "/runs", 503)
    assert time.monotonic() - started < 3
    line = plain(page.split('role="alert" id="unavailable"', 1)[1].split("</section>", 1)[0])
    assert f"The log file {path} cannot be read (file is not a database)" in line
    assert "Traceback" not in page
    log.close()


def test_the_console_command_says_a_corrupt_log_in_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(b"this is not a database" * 400)
    done = subprocess.run(
        [sys.executable, "-m", "toolrig.cli.main", "console", "--log", str(broken), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [f"toolrig console: the log {broken} cannot be read: file is not a database"]

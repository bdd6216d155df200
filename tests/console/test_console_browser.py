"""The console in a real headless Chromium, against a real ``toolrig console`` subprocess on a
SQLite log filled by real agent runs (scripted models): live runs, a run's waterfall, approvals
that a waiting agent in another process acts on once, the try-it form, escaped outputs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from console_support import HERE, HTML_OUTPUT, ROOT, console, fill_story
from console_tools import tools

from toolrig import ToolExecutor
from toolrig.agent import Agent, ApprovalPolicy
from toolrig.storage import SQLiteExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel

pytestmark = pytest.mark.chromium  # under CI=true a skip fails the run: CI installs Chromium

SHOTS = os.environ.get("TOOLRIG_CONSOLE_SCREENSHOTS")
"""A folder to save a screenshot of each page in (the docs' pictures), when set."""


def shot(page: Any, name: str) -> None:
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"console-{name}.png"), full_page=True)


def new_page(chromium: Any) -> Any:
    return chromium.new_context(viewport={"width": 1280, "height": 800}).new_page()


def test_runs_list_updates_live_when_a_call_lands(chromium: Any, filled_log: Path) -> None:
    with console(filled_log) as url:
        page = new_page(chromium)
        page.goto(f"{url}/runs")
        assert page.locator("#runs-body tr").count() == 3
        assert page.locator("#runs-body tr").first.inner_text().startswith("run-3")
        page.wait_for_selector("#live:not([hidden])")
        page.evaluate("window.notReloaded = true")
        shot(page, "runs")
        log = SQLiteExecutionLog(filled_log)
        model = ScriptedModel([ModelTurn(calls=[("add", {"a": 40, "b": 2})]), "42"])
        Agent("helper", "You help.", model, tools, log=log).run("add", run_id="run-live")
        log.close()
        page.wait_for_selector("#runs-body tr.new >> text=run-live", timeout=10_000)
        assert page.locator("#runs-body tr").first.inner_text().startswith("run-live")
        assert page.evaluate("window.notReloaded") is True  # no reload: the row came by SSE


def test_a_runs_waterfall_shows_its_calls_in_order(chromium: Any, filled_log: Path) -> None:
    with console(filled_log) as url:
        page = new_page(chromium)
        page.goto(f"{url}/runs")
        page.click("text=run-1")
        page.wait_for_selector("#waterfall")
        names = page.locator("#waterfall .span .name").all_inner_texts()
        assert names == [
            "model turn · scripted",
            "add",
            "model turn · scripted",
            "echo",
            "model turn · scripted",
        ]
        page.locator("#waterfall .span summary").nth(1).click()
        detail = page.locator("#waterfall .span").nth(1)
        assert '"a": 2' in detail.locator("pre").first.inner_text()
        assert detail.locator("pre.output").inner_text() == "5"
        shot(page, "run")
        page.goto(f"{url}/runs/run-2")
        page.locator("#waterfall .span.failed summary").click()
        error = page.locator("#waterfall .span.failed pre.error").inner_text()
        assert error.startswith("Error [invalid_arguments]: ")
        assert "\nHint: " in error  # the error exactly as the model read it


def test_output_holding_html_is_shown_as_text(chromium: Any, filled_log: Path) -> None:
    with console(filled_log) as url:
        page = new_page(chromium)
        page.goto(f"{url}/runs/run-3")
        page.locator("#waterfall .span.tool summary").click()
        output = page.locator("#waterfall .span.tool pre.output")
        assert output.inner_text() == HTML_OUTPUT
        assert output.locator("b").count() == 0
        assert page.title() != "owned"


def start_held_agent(log: Path, session: str, drops: Path) -> subprocess.Popen[str]:
    """The agent process: holds a drop_table call and waits for a decision."""
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "console" / "held_agent.py"), str(log), session],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(HERE), "TOOLRIG_TEST_DROPS": str(drops)},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("HELD approval"), line + proc.stderr.read()
    return proc


def finished(proc: subprocess.Popen[str]) -> str:
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return out


def test_approving_in_the_browser_resumes_the_waiting_agent_once(
    chromium: Any, filled_log: Path, tmp_path: Path
) -> None:
    drops = tmp_path / "drops.txt"
    agent = start_held_agent(filled_log, "cleanup", drops)
    try:
        with console(filled_log) as url:
            page = new_page(chromium)
            page.goto(f"{url}/approvals")
            card = page.locator("#held-c1")
            assert "drop_table" in card.inner_text()
            assert '"name": "logs"' in card.locator("pre").inner_text()
            assert card.locator(".chip.bad").inner_text() == "destructive"
            shot(page, "approvals")
            card.locator("a[href='/sessions/cleanup']").click()
            assert page.locator(".message.user pre").inner_text() == "Drop the logs table."
            assert "→ drop_table" in page.locator(".message.assistant").inner_text()
            shot(page, "session")
            page.go_back()
            card.locator("button.approve").click()
            page.wait_for_selector("text=Recorded: allow:c1")
            assert "DONE answer The logs table is gone." in finished(agent)
            page.goto(f"{url}/approvals")
            assert page.locator("#held-c1").count() == 0  # the agent resumed: nothing held
    finally:
        agent.kill()
    assert drops.read_text().splitlines() == ["logs"]


def test_two_browsers_approving_at_once_run_the_call_once(
    chromium: Any, filled_log: Path, tmp_path: Path
) -> None:
    drops = tmp_path / "drops.txt"
    agent = start_held_agent(filled_log, "twice", drops)
    try:
        with console(filled_log) as url:
            pages = [new_page(chromium) for _ in range(2)]
            for page in pages:
                page.goto(f"{url}/approvals")
            # both submit before either answer is back
            for page in pages:
                page.evaluate("document.querySelector('#held-c1 button.approve').click()")
            for page in pages:
                page.wait_for_load_state()
                page.wait_for_selector("text=/Recorded: allow:c1|already decided/")
            texts = [page.locator("main").inner_text() for page in pages]
            assert sum("Recorded: allow:c1" in t for t in texts) == 1, texts
            assert "DONE answer" in finished(agent)
    finally:
        agent.kill()
    assert drops.read_text().splitlines() == ["logs"]


def test_try_it_shows_a_validation_error_then_a_result(chromium: Any, filled_log: Path) -> None:
    with console(filled_log) as url:
        page = new_page(chromium)
        page.goto(f"{url}/catalog")
        shot(page, "catalog")
        page.click("a.tool >> text=add")
        page.fill("input[name=a]", "two")
        page.fill("input[name=b]", "3")
        page.click("#tryit button[type=submit]")
        result = page.locator("#result.bad")
        assert result.locator("h3").text_content() == "invalid_arguments"
        assert "a" in result.locator(".error-message").inner_text()
        assert page.input_value("input[name=a]") == "two"  # kept, to fix in place
        page.fill("input[name=a]", "2")
        page.click("#tryit button[type=submit]")
        assert page.locator("#result.ok pre.output").inner_text() == "5"
        shot(page, "tool")
        page.goto(f"{url}/catalog/echo")
        page.fill("input[name=text]", HTML_OUTPUT)
        page.click("#tryit button[type=submit]")
        assert page.locator("#result.ok pre.output").inner_text() == HTML_OUTPUT
        assert page.title() != "owned"


def test_a_destructive_tool_needs_the_confirmation(chromium: Any, filled_log: Path) -> None:
    with console(filled_log) as url:
        page = new_page(chromium)
        page.goto(f"{url}/catalog/drop_table")
        page.fill("input[name=name]", "users")
        page.click("#tryit button[type=submit]")  # the required box stops the form
        assert page.locator("#result").count() == 0
        page.check("input[name=confirm]")
        page.click("#tryit button[type=submit]")
        assert page.locator("#result.ok pre.output").inner_text() == "dropped users"


def test_health_shows_per_tool_figures(chromium: Any, filled_log: Path) -> None:
    with console(filled_log) as url:
        page = new_page(chromium)
        page.goto(f"{url}/health")
        rows = page.locator("table.runs tbody tr").all_inner_texts()
        assert any(r.startswith("add\t2\t1") for r in rows), rows
        assert page.locator("svg.chart rect").count() == 60
        shot(page, "health")


def test_the_token_is_required_on_a_non_default_bind(chromium: Any, filled_log: Path) -> None:
    refused = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolrig.cli.main",
            "console",
            "--log",
            str(filled_log),
            "--host",
            "127.0.0.2",
            "--port",
            "0",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(HERE)},
    )
    assert refused.returncode == 2
    assert "refusing to serve the console on '127.0.0.2' without a token" in refused.stderr
    with console(filled_log, "--host", "127.0.0.2", "--token", "s3cret") as url:
        page = new_page(chromium)
        response = page.goto(f"{url}/runs")
        assert response is not None and response.status == 401
        page.goto(f"{url}/runs?token=wrong")
        assert "needs its token" in page.inner_text("body")
        page.goto(f"{url}/runs?token=s3cret")  # sets the cookie, then drops it from the URL
        assert page.url == f"{url}/runs"
        assert page.locator("#runs-body tr").count() == 3
        page.goto(f"{url}/approvals")  # the cookie carries on
        assert page.locator("h1").inner_text() == "Approvals"


@pytest.fixture
def story_log(tmp_path: Path) -> Path:
    path = tmp_path / "story.sqlite3"
    fill_story(path)
    return path


def test_a_model_turn_shows_its_messages_tools_and_the_hint(chromium: Any, story_log: Path) -> None:
    with console(story_log) as url:
        page = new_page(chromium)
        page.goto(f"{url}/runs/run-hint")
        turn = page.locator("#waterfall .span.llm").first
        turn.locator("summary").click()
        given = turn.locator(".given")
        assert given.locator(".message.user pre").inner_text() == "add two and three"
        offered = given.locator(".tools-offered .chip").all_inner_texts()
        assert [t.split()[0] for t in offered] == [
            "add",
            "echo",
            "drop_table",
            "login",
            "attempt_completion",
        ]
        assert all(len(t.split()[1]) == 16 for t in offered)  # each with its schema hash
        assert '"model": "scripted"' in given.locator("pre.settings").inner_text()
        failed = page.locator("#waterfall .span.failed")
        failed.locator("summary").click()
        sent = failed.locator("pre.error").inner_text()
        assert sent.startswith("Error [invalid_arguments]: Invalid arguments for `add`")
        assert "Hint: Fix the arguments listed above" in sent
        shot(page, "run-turn")


def test_a_held_run_shows_held_and_health_keeps_denials_apart(
    chromium: Any, story_log: Path
) -> None:
    with console(story_log) as url:
        page = new_page(chromium)
        page.goto(f"{url}/runs")
        row = page.locator("#runs-body tr", has_text="run-held")
        assert row.locator(".status").inner_text() == "held"
        assert "DBA" in row.inner_text()
        denied = page.locator("#runs-body tr", has_text="run-denied")
        assert denied.locator(".status").inner_text() == "denied"
        page.goto(f"{url}/runs/run-held")
        assert page.locator("#run-status").inner_text() == "held"
        page.goto(f"{url}/health")
        assert page.locator("#tool-errors .v").inner_text() == "2"
        assert page.locator("#denials .v").inner_text() == "1"
        drop = page.locator("tbody tr", has_text="drop_table").locator("td")
        assert drop.all_inner_texts()[1:4] == ["0", "0", "1"]  # calls, failed, denied
        shot(page, "health")


def test_the_inbox_shows_a_new_held_call_without_a_reload(chromium: Any, filled_log: Path) -> None:
    with console(filled_log) as url:
        page = new_page(chromium)
        page.goto(f"{url}/approvals")
        assert page.locator("article.held").count() == 0
        page.evaluate("window.notReloaded = true")
        page.wait_for_timeout(1200)  # the stream is open
        log = SQLiteExecutionLog(filled_log)
        model = ScriptedModel([ModelTurn(calls=[("drop_table", {"name": "x"}, "live1")]), "ok"])
        agent = Agent(
            "DBA",
            "You maintain it.",
            model,
            tools,
            approval=ApprovalPolicy(destructive=True),
            log=log,
        )
        assert agent.run("Drop x.", session_id="live-held").stop_reason == "approval"
        log.close()
        page.wait_for_selector("#held-live1.new", timeout=10_000)
        assert '"name": "x"' in page.locator("#held-live1 pre").inner_text()
        assert page.evaluate("window.notReloaded") is True


def test_an_open_run_page_follows_its_run(chromium: Any, filled_log: Path) -> None:
    log = SQLiteExecutionLog(filled_log)
    executor = ToolExecutor(tools)
    with console(filled_log) as url:
        page = new_page(chromium)
        with log.run("run-open"):
            executor.execute_sync("add", {"a": 1, "b": 2}, tool_call_id="first")
            page.goto(f"{url}/runs/run-open")
            assert page.locator("#run-status").inner_text() == "running"
            page.evaluate("window.notReloaded = true")
            page.wait_for_timeout(1200)  # the stream is open
            executor.execute_sync("echo", {"text": "later"}, tool_call_id="second")
            page.wait_for_selector("#waterfall .span.new >> text=echo", timeout=10_000)
        page.wait_for_selector("#run-status.succeeded", timeout=10_000)  # the run ended
        assert page.evaluate("window.notReloaded") is True
    log.close()


def test_deleting_the_log_file_shows_a_message(chromium: Any, filled_log: Path) -> None:
    with console(filled_log) as url:
        page = new_page(chromium)
        page.goto(f"{url}/runs")
        page.wait_for_selector("#live:not([hidden])")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{filled_log}{suffix}").unlink(missing_ok=True)
        line = page.locator("#logline")
        line.wait_for(state="visible", timeout=10_000)
        assert (
            line.inner_text() == f"The log file {filled_log} was deleted or moved; waiting for it."
        )
        assert page.locator("#live").is_hidden()
        page.goto(f"{url}/runs/run-1")  # every page says it, none serves the old runs
        assert "was deleted or moved" in page.locator("#unavailable").inner_text()
        assert page.locator("#waterfall").count() == 0
        shot(page, "log-deleted")

"""The inbox's edit form and its allow for the session, through the ASGI app: an edit that is
not a JSON object, or that the tool refuses, is answered 400 and records nothing; a valid one
is recorded with the model's proposed arguments and shown as decided; a call with secret
arguments (shown masked) offers no edit form."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from console_tools import tools

from toolrig.agent import Agent, ApprovalPolicy
from toolrig.console import app
from toolrig.storage import SQLiteExecutionLog
from toolrig.storage._runs import stored_decisions
from toolrig.testing import ModelTurn, ScriptedModel


@pytest.fixture
def log(tmp_path: Path) -> SQLiteExecutionLog:
    opened = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    yield opened  # type: ignore[misc]
    opened.close()


def _hold(log: SQLiteExecutionLog, session: str, call: tuple[str, dict[str, object]]) -> None:
    model = ScriptedModel([ModelTurn(calls=[(call[0], call[1], "c1")])])
    policy = ApprovalPolicy(tools=["drop_table", "login"])
    agent = Agent("DBA", "db", model, tools, approval=policy, log=log)
    assert agent.run("go", session_id=session).stop_reason == "approval"


async def test_the_edit_form_records_a_valid_edit_and_refuses_the_rest(
    log: SQLiteExecutionLog,
) -> None:
    _hold(log, "s", ("drop_table", {"name": "users"}))
    transport = httpx.ASGITransport(app=app(log=log, catalog=tools))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        page = (await http.get("/approvals")).text
        token = re.search(r'<meta name="csrf" content="([^"]+)">', page)
        assert token is not None and 'name="arguments"' in page
        form = {
            "csrf": token.group(1),
            "session": "s",
            "call": "c1",
            "kind": "edit",
            "name": "echo",
        }  # fmt: skip  (a name in the form is not trusted)
        for arguments, expected in (
            ("{nope", "not JSON"),
            ('["users"]', "a JSON object"),
            ('{"name": 5}', "were refused"),
            ('{"table": "tmp"}', "were refused"),
            ('{"text": "tmp"}', "were refused"),  # echo's arguments, not the held call's
        ):
            refused = await http.post("/approvals/decide", data={**form, "arguments": arguments})
            assert refused.status_code == 400 and expected in refused.text, arguments
        assert stored_decisions(log, "s") == {}
        done = await http.post(
            "/approvals/decide",
            data={**form, "arguments": '{"name": "tmp"}', "reason": "users is live"},
        )
        assert done.status_code == 303
        after = (await http.get("/approvals")).text
        assert "Edited arguments" in after and "tmp" in after
    kept = stored_decisions(log, "s")["c1"]
    assert kept.kind == "edit" and kept.reason == "users is live"
    assert kept.output == {"arguments": {"name": "tmp"}, "proposed": {"name": "users"}}
    assert kept.decided_by == "console"


async def test_a_call_with_secret_arguments_offers_no_edit_form(log: SQLiteExecutionLog) -> None:
    _hold(log, "s", ("login", {"user": "ann", "password": "hunter2"}))
    transport = httpx.ASGITransport(app=app(log=log, catalog=tools))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        page = (await http.get("/approvals")).text
    assert "hunter2" not in page and 'name="arguments"' not in page
    assert "Allow login for this session" in page

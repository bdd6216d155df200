"""Held calls decided during the run (``on_approval=``) and decisions that stand for the
session (`AllowForSession`): a handler's decision is recorded before the call runs and the run
goes on; a handler that raises, answers garbage or is too slow runs nothing and the calls stay
held with the reason; an allow for the session lets that tool's later calls pass, in a second
process too, while other tools are still held, and the console shows it."""

from __future__ import annotations

import asyncio
import html
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from agent_support import in_another_process

from toolrig import tool
from toolrig.agent import (
    Agent,
    AllowForSession,
    AlreadyDecided,
    ApprovalPolicy,
    Deny,
    Edit,
    PendingCall,
)
from toolrig.console import app
from toolrig.storage import LogSessionStore, SQLiteExecutionLog
from toolrig.storage._runs import stored_decisions
from toolrig.testing import ModelTurn, ScriptedModel

ran: list[tuple[str, str]] = []


@tool
def drop_table(name: str) -> str:
    """Drop a table."""
    ran.append(("drop_table", name))
    return f"dropped {name}"


@tool
def truncate(name: str) -> str:
    """Empty a table."""
    ran.append(("truncate", name))
    return f"emptied {name}"


POLICY = ApprovalPolicy(tools=["drop_table", "truncate"])


def _agent(log: SQLiteExecutionLog, turns: list[Any], **options: Any) -> Agent:
    return Agent(
        "DBA", "db", ScriptedModel(turns), [drop_table, truncate], approval=POLICY, log=log,
        **options,
    )  # fmt: skip


@pytest.fixture
def log(tmp_path: Path) -> Any:
    ran.clear()
    opened = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    yield opened
    opened.close()


TWO_CALLS = ModelTurn(
    calls=[("drop_table", {"name": "a"}, "c1"), ("truncate", {"name": "b"}, "c2")]
)


def _sync_handler(pending: PendingCall) -> Any:
    if pending.name == "drop_table":
        return Edit(arguments={"name": "a_old"}, reason="a is live")
    return Deny(reason="not today")


async def _async_handler(pending: PendingCall) -> Any:
    await asyncio.sleep(0)
    return _sync_handler(pending)


@pytest.mark.parametrize("handler", [_sync_handler, _async_handler])
def test_on_approval_decides_during_the_run_and_the_run_goes_on(
    handler: Any, log: SQLiteExecutionLog
) -> None:
    agent = _agent(log, [TWO_CALLS, "Done."], on_approval=handler)
    events: list[Any] = []

    async def stream() -> Any:
        async for event in agent.stream("clean up", session_id="s"):
            events.append(event)
        return events[-1].result

    result = asyncio.run(stream())
    assert result.stop_reason == "answer" and result.output == "Done."
    assert ran == [("drop_table", "a_old")]  # the edit ran, once; the deny ran nothing
    codes = [r.code for r in result.steps[0].results]
    assert codes == [None, "permission_denied"]
    sent = json.dumps(result.all_messages)  # what the model was sent after the calls
    assert "A person edited the arguments" in sent and "not today" in sent
    finished = [e.tool_call_id for e in events if type(e).__name__ == "ToolCallFinished"]
    assert sorted(finished) == ["c1", "c2"]  # each call told once
    kept = stored_decisions(log, "s")
    assert {c: (d.kind, d.decided_by) for c, d in kept.items()} == {
        "c1": ("edit", "on_approval"),
        "c2": ("deny", "on_approval"),
    }
    state = LogSessionStore(log).load("s")
    assert state is not None and state.pending is None


def test_a_handler_may_leave_a_call_to_a_person(log: SQLiteExecutionLog) -> None:
    agent = _agent(
        log,
        [TWO_CALLS],
        on_approval=lambda p: True if p.name == "drop_table" else None,
    )
    held = agent.run("clean up", session_id="s")
    assert held.stop_reason == "approval" and held.error is None
    assert [p.tool_call_id for p in held.pending] == ["c2"]
    assert ran == [("drop_table", "a")]
    with pytest.raises(AlreadyDecided, match="c1"):  # c1 was decided by the handler
        _agent(log, ["x"]).run(session_id="s", approvals={"c1": True, "c2": True})
    done = _agent(log, ["Done."]).run(session_id="s", approvals={"c2": True})
    assert done.output == "Done." and ran == [("drop_table", "a"), ("truncate", "b")]


async def _slow(pending: PendingCall) -> Any:
    await asyncio.sleep(30)
    return True


def _raises(pending: PendingCall) -> Any:
    raise RuntimeError("the approvals service is down")


@pytest.mark.parametrize(
    ("handler", "options", "why"),
    [
        (_raises, {}, "on_approval raised RuntimeError deciding call c1 (drop_table): the "),
        (
            lambda p: "yes",
            {},
            "on_approval answered call c1 (drop_table) with str is not a decision",
        ),
        (lambda p: 1, {}, "with int is not a decision"),
        (_slow, {"time_budget": 0.5}, "still deciding call c1 (drop_table) when the time budget"),
    ],
)
def test_a_failing_handler_runs_nothing_and_the_calls_stay_held(
    handler: Any, options: dict[str, Any], why: str, log: SQLiteExecutionLog
) -> None:
    agent = _agent(log, [TWO_CALLS], on_approval=handler, **options)
    held = agent.run("clean up", session_id="s")
    assert ran == []
    assert held.stop_reason == "approval" and why in (held.error or ""), held.error
    assert [p.tool_call_id for p in held.pending] == ["c1", "c2"]
    assert stored_decisions(log, "s") == {}  # nothing decided: a person still can
    done = _agent(log, ["Done."]).run(session_id="s", approvals={"c1": True, "c2": False})
    assert done.output == "Done." and ran == [("drop_table", "a")]


def test_a_handler_decision_recorded_elsewhere_first_is_not_overridden(
    log: SQLiteExecutionLog,
) -> None:
    """The handler's decisions are claimed like any other: one recorded first for the same
    call id (another run on the session) stands, and nothing runs."""
    from toolrig.storage._runs import StoredDecision, insert_decision

    insert_decision(
        log, StoredDecision(session_id="s", tool_call_id="c1", kind="deny", decided_by="alice")
    )
    agent = _agent(log, [TWO_CALLS], on_approval=lambda p: True)
    held = agent.run("clean up", session_id="s")
    assert ran == [] and held.stop_reason == "approval"
    assert "denied by alice" in (held.error or "")


CHILD = """
import json
from toolrig import tool
from toolrig.agent import Agent
from toolrig.storage import SQLiteExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel

ran = []


@tool
def drop_table(name: str) -> str:
    ran.append(("drop_table", name))
    return "dropped"


@tool
def truncate(name: str) -> str:
    ran.append(("truncate", name))
    return "emptied"


log = SQLiteExecutionLog(path)
model = ScriptedModel([
    ModelTurn(calls=[("drop_table", {"name": "x"}, "n1"), ("truncate", {"name": "y"}, "n2")]),
])
agent = Agent("DBA", "db", model, [drop_table, truncate], log=log)  # no policy of its own
result = agent.run("more", session_id="s")
print(json.dumps({"ran": ran, "stop": result.stop_reason,
                  "pending": [p.tool_call_id for p in result.pending]}))
"""


def test_allow_for_session_stands_in_another_process_for_that_tool_only(
    log: SQLiteExecutionLog, tmp_path: Path
) -> None:
    held = _agent(log, [TWO_CALLS]).run("clean up", session_id="s")
    assert [p.tool_call_id for p in held.pending] == ["c1", "c2"]
    done = _agent(log, ["Done."]).run(
        session_id="s", approvals={"c1": AllowForSession(), "c2": Deny()}
    )
    assert done.output == "Done." and ran == [("drop_table", "a")]
    state = LogSessionStore(log).load("s")
    assert state is not None and state.policy is not None
    assert state.policy["allowed"] == ["drop_table"]
    child = in_another_process(CHILD, path=str(tmp_path / "log.sqlite3"))
    assert child["ran"] == [["drop_table", "x"]]  # allowed for the session: it passed
    assert child["stop"] == "approval" and child["pending"] == ["n2"]  # truncate still held
    assert stored_decisions(log, "s")["c1"].kind == "allow_session"
    page = _console_page(log, "/sessions/s")
    rules = re.search(r'id="session-rules">(.*?)</section>', page, re.S)
    assert rules is not None and "drop_table" in rules.group(1)
    assert "truncate" not in rules.group(1)


def test_allow_for_session_from_the_console(log: SQLiteExecutionLog) -> None:
    from toolrig.console import stored_decisions as decisions_for
    from toolrig.console._approvals import decide

    _agent(log, [ModelTurn(calls=[("drop_table", {"name": "a"}, "c1")])]).run(
        "drop", session_id="s"
    )
    page = _console_page(log, "/approvals")
    assert "Allow drop_table for this session" in page and 'name="arguments"' in page
    decide(log, "s", "c1", {"kind": "allow_session"})
    with pytest.raises(AlreadyDecided, match="approved for the session by console"):
        decide(log, "s", "c1", {"kind": "allow"})
    found = decisions_for(log, LogSessionStore(log).load("s"))
    assert found == {"c1": AllowForSession()}
    later = ModelTurn(calls=[("drop_table", {"name": "b"}, "c2")])
    done = _agent(log, [later, "Done."]).run(session_id="s", approvals=found)
    assert done.output == "Done." and ran == [("drop_table", "a"), ("drop_table", "b")]


def _console_page(log: SQLiteExecutionLog, url: str) -> str:
    async def fetch() -> str:
        transport = httpx.ASGITransport(app=app(log=log, catalog=[drop_table, truncate]))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            response = await c.get(url)
            assert response.status_code == 200, response.text
            return html.unescape(response.text)

    return asyncio.run(fetch())


def test_an_inline_edit_is_told_to_the_model_when_a_person_decides_the_rest_later(
    log: SQLiteExecutionLog,
) -> None:
    """The handler edits one call and leaves the other: the edited one runs now, and the
    turn answered after the person's decision still carries the note of the edit."""

    def handler(pending: PendingCall) -> Any:
        return Edit(arguments={"name": "a_old"}) if pending.name == "drop_table" else None

    held = _agent(log, [TWO_CALLS], on_approval=handler).run("clean up", session_id="s")
    assert [p.tool_call_id for p in held.pending] == ["c2"] and ran == [("drop_table", "a_old")]
    done = _agent(log, ["Done."]).run(session_id="s", approvals={"c2": Deny()})
    sent = json.dumps(done.all_messages)
    assert "A person edited the arguments" in sent and "a_old" in sent
    assert ran == [("drop_table", "a_old")]


@pytest.mark.parametrize(
    ("decision", "why"),
    [
        (Edit(arguments="name=x"), "an Edit's arguments are a dict, not str"),  # type: ignore[arg-type]
        ("yes", "str is not a decision"),
    ],
)
def test_a_resume_with_something_that_is_no_decision_is_refused(
    decision: Any, why: str, log: SQLiteExecutionLog
) -> None:
    _agent(log, [TWO_CALLS]).run("clean up", session_id="s")
    with pytest.raises(ValueError, match=why):
        _agent(log, ["x"]).run(session_id="s", approvals={"c1": decision, "c2": True})
    assert ran == [] and stored_decisions(log, "s") == {}

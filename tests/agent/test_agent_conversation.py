"""Conversations: a run continues a message history, and a session stored in the execution log
continues in another process, through the real SDK clients against the scripted server."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from agent_support import config, in_another_process

from llm_server import ScriptedLLM, Turn, tool_results
from toolrig import tool
from toolrig.agent import Agent
from toolrig.storage import (
    LogSessionStore,
    MemorySessionStore,
    SessionConflict,
    SessionState,
    open_log,
)
from toolrig.testing import FunctionModel


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _roles(request: dict[str, Any]) -> list[str]:
    return [m["role"] for m in request["messages"]]


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic"])
def test_a_run_continues_a_history(provider: str) -> None:
    def second(request: dict[str, Any]) -> Turn:
        messages = request.get("messages", request.get("input"))
        texts = [str(m.get("content", m.get("output"))) for m in messages]
        assert any("What is 2 + 3?" in t for t in texts), texts
        assert tool_results(request)["a1"] == ("5", False)
        assert "Now double it." in texts[-1], texts
        return Turn(text="10")

    script = [Turn(calls=[("add", {"a": 2, "b": 3}, "a1")]), Turn(text="5"), second]
    with ScriptedLLM(script) as server:
        agent = Agent("Calc", "You add.", config(provider, server), [add])
        first = agent.run("What is 2 + 3?")
        again = agent.run("Now double it.", history=first.all_messages)
    assert server.errors == [] and server.refusals == []
    assert first.output == "5" and again.output == "10"
    assert again.all_messages[: len(first.all_messages)] == first.all_messages
    assert len(again.new_messages) == 2  # the prompt and the answer
    assert again.new_messages == again.all_messages[len(first.all_messages) :]
    if provider == "openai":
        assert _roles(server.requests[2]) == [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
        ]
        assert server.requests[2]["messages"][2]["tool_calls"][0]["id"] == "a1"
    assert first.session_id != again.session_id  # a history starts a new session
    assert agent.sessions.load(first.session_id) is None  # unnamed and not held: not stored


CHILD = """
import json
from toolrig.agent import Agent, LLMConfig
from toolrig.storage import open_log

log = open_log(url)
llm = LLMConfig(provider="openai", model="scripted", base_url=base, api_key="k", max_retries=0)
agent = Agent("Helper", "You help.", llm, log=log)
result = agent.run("What is my name?", session_id=session)
print(json.dumps({"output": result.output, "all": len(result.all_messages),
                  "new": len(result.new_messages), "session": result.session_id}))
"""


def test_a_session_continues_in_another_process(log_url: str) -> None:
    def in_the_child(request: dict[str, Any]) -> Turn:
        contents = [m.get("content") for m in request["messages"]]
        assert contents[1:] == ["My name is Ann.", "Hello Ann.", "What is my name?"], contents
        return Turn(text="Ann.")

    session = f"s-{uuid.uuid4().hex[:8]}"
    log = open_log(log_url)
    with ScriptedLLM([Turn(text="Hello Ann."), in_the_child]) as server:
        agent = Agent("Helper", "You help.", config("openai", server), log=log)
        first = agent.run("My name is Ann.", session_id=session)
        child = in_another_process(CHILD, url=log_url, base=f"{server.url}/v1", session=session)
    assert server.errors == [] and server.refusals == []
    assert first.session_id == session
    assert child == {"output": "Ann.", "all": 4, "new": 2, "session": session}
    stored = LogSessionStore(log).load(session)
    assert stored is not None and stored.version == 2 and len(stored.messages) == 4
    assert stored.pending is None
    log.close()


@pytest.mark.parametrize("store", ["memory", "log"])
def test_two_runs_cannot_both_save_one_session_version(store: str, tmp_path: Any) -> None:
    log = open_log(str(tmp_path / "log.sqlite3"))
    sessions = MemorySessionStore() if store == "memory" else LogSessionStore(log)
    saved = sessions.save(SessionState(session_id="s", messages=[{"role": "user", "content": "a"}]))
    assert saved.version == 1
    with pytest.raises(SessionConflict, match="saved by another run"):
        sessions.save(SessionState(session_id="s", messages=[]))  # also believes it is new
    newer = sessions.save(
        SessionState(
            session_id="s", messages=[*saved.messages, {"role": "user", "content": "b"}], version=1
        )
    )
    assert newer.version == 2
    with pytest.raises(SessionConflict):
        sessions.save(SessionState(session_id="s", messages=[], version=1))  # a stale copy
    loaded = sessions.load("s")
    assert loaded is not None and [m["content"] for m in loaded.messages] == ["a", "b"]
    log.close()


def test_a_stored_session_and_a_history_do_not_mix() -> None:
    with ScriptedLLM([Turn(text="Hi.")]) as server:
        agent = Agent("Helper", "You help.", config("openai", server))
        first = agent.run("Hello.", session_id="kept")
        with pytest.raises(ValueError, match="already holds 2 messages"):
            agent.run("Again.", session_id="kept", history=first.all_messages)
        with pytest.raises(ValueError, match="give a prompt, a history or a session"):
            agent.run()
    assert len(server.requests) == 1


def test_two_runs_continuing_one_session_at_once_cannot_both_save() -> None:
    async def slow(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
        await asyncio.sleep(0.05)
        return f"answer to {messages[-1]['content']}"

    agent = Agent("Helper", "You help.", FunctionModel(slow))
    agent.run("first", session_id="shared")

    async def both() -> list[Any]:
        return await asyncio.gather(
            agent.arun("a", session_id="shared"),
            agent.arun("b", session_id="shared"),
            return_exceptions=True,
        )

    outcomes = asyncio.run(both())
    assert sum(isinstance(o, SessionConflict) for o in outcomes) == 1
    stored = agent.sessions.load("shared")
    assert stored is not None and len(stored.messages) == 4  # first, then exactly one of a / b


def test_an_older_log_gets_the_sessions_table_by_its_migration(tmp_path: Any) -> None:
    import sqlite3

    from toolrig.storage import SQLiteExecutionLog
    from toolrig.storage._sqlite import MIGRATIONS

    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)  # a log as the release before sessions left it
    for script in MIGRATIONS[:4]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version=4")
    conn.commit()
    conn.close()
    log = SQLiteExecutionLog(path)
    assert log.schema_version == len(MIGRATIONS) == 9
    LogSessionStore(log).save(SessionState(session_id="s", messages=[]))
    assert LogSessionStore(log).load("s") is not None
    log.close()

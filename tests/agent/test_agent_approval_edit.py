"""Edit on approve: a held call runs once with the arguments a person gave, validated like the
model's; the model's own turn is left as it sent it and its tool message starts with a note
of what ran (so every provider's history still passes that provider's SDK types); the log keeps
the proposed and the executed arguments and who edited; a refused edit runs nothing and the
model reads why; an edit raced by a Deny loses or wins whole."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from agent_support import config
from file_tools import delete_file, read_file
from pydantic import TypeAdapter

from llm_server import ScriptedLLM, Turn, tool_results
from toolrig import tool
from toolrig.agent import Agent, AlreadyDecided, ApprovalPolicy, Deny, Edit
from toolrig.agent._decided import noted
from toolrig.console._approvals import decide
from toolrig.core.result._result import success_result
from toolrig.providers import format_gemini_results
from toolrig.storage import SQLiteExecutionLog, open_log
from toolrig.storage._runs import stored_decisions


def _cleaner(server: ScriptedLLM, log: Any, provider: str = "openai") -> Agent:
    return Agent(
        "Cleaner",
        "You tidy folders.",
        config(provider, server),
        [read_file, delete_file],
        approval=ApprovalPolicy(destructive=True),
        log=log,
    )


def _history_type(provider: str) -> Any:
    """The SDK type of one input message of the provider's API."""
    if provider == "openai":
        from openai.types.chat import ChatCompletionMessageParam

        return ChatCompletionMessageParam
    if provider == "openai-responses":
        from openai.types.responses import ResponseInputItemParam

        return ResponseInputItemParam
    from anthropic.types import MessageParam

    return MessageParam


@pytest.mark.parametrize(
    ("provider", "backend"),
    [
        ("openai", "sqlite"),
        ("openai-responses", "sqlite"),
        ("anthropic", "sqlite"),
        ("openai", "postgres"),
    ],
)
def test_an_edited_call_runs_once_with_the_edited_arguments(
    provider: str, backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    wanted, other = tmp_path / "wanted.txt", tmp_path / "other.txt"
    wanted.write_text("w", encoding="utf-8")
    other.write_text("o", encoding="utf-8")
    seen: dict[str, tuple[str, bool]] = {}

    def after(request: dict[str, Any]) -> Turn:
        seen.update(tool_results(request))
        return Turn(text="Done.")

    script = [Turn(calls=[("delete_file", {"path": str(wanted)}, "d1")]), after]
    session = f"s-{uuid.uuid4().hex[:8]}"
    url = (
        str(tmp_path / "log.sqlite3")
        if backend == "sqlite"
        else str(request.getfixturevalue("postgres_dsn"))
    )
    log = open_log(url)
    with ScriptedLLM(script) as server:
        agent = _cleaner(server, log, provider)
        held = agent.run("Delete wanted.txt.", session_id=session)
        assert [p.arguments for p in held.pending] == [{"path": str(wanted)}]
        edit = Edit(arguments={"path": str(other)}, reason="that one is the stale copy")
        done = agent.run(session_id=session, approvals={"d1": edit})
        with pytest.raises(AlreadyDecided):  # the same edit again (a retried request)
            agent.run(session_id=session, approvals={"d1": edit})
    assert server.errors == [] and server.refusals == []  # every request passed the SDK types
    assert done.output == "Done."
    assert wanted.exists() and not other.exists()  # the edited arguments ran, the model's not
    text, is_error = seen["d1"]
    assert not is_error and text.endswith("deleted other.txt"), text
    assert "A person edited the arguments" in text and str(other) in text
    assert "that one is the stale copy" in text
    adapter: TypeAdapter[Any] = TypeAdapter(_history_type(provider))
    for message in done.all_messages:  # the stored history, as the next request sends it
        adapter.validate_python(message)
    # the model's own turn is unchanged: it still shows what the model proposed
    assert str(wanted) in str(done.all_messages[1]) and str(other) not in str(done.all_messages[1])
    # the log: the call ran once, with the edited arguments; the decision keeps both and who
    ran = [r for r in log.query(run_id=done.run_id) if r.tool_call_id == "d1"]
    assert [(r.status, r.input_data) for r in ran] == [("succeeded", {"path": str(other)})]
    kept = stored_decisions(log, session)["d1"]
    assert kept.kind == "edit" and kept.decided_by == f"run {done.run_id}"
    assert kept.output == {"arguments": {"path": str(other)}, "proposed": {"path": str(wanted)}}
    assert kept.reason == "that one is the stale copy"
    log.close()


def test_the_gemini_history_of_an_edited_call_passes_its_sdk_types() -> None:
    """The Gemini function response carrying the note (its output as text, and as data)."""
    from google.genai import types

    edit = Edit(arguments={"path": "b.txt"}, reason="b is stale")
    for output in ("deleted b.txt", {"deleted": "b.txt"}):
        result = noted(success_result(output, tool="delete_file", tool_call_id="g1"), edit)
        for content in format_gemini_results([result]):
            parsed = types.Content.model_validate(content)
            assert parsed.parts and parsed.parts[0].function_response is not None
            response = parsed.parts[0].function_response.response
            assert "A person edited the arguments" in str(response)


@pytest.mark.parametrize(
    "arguments",
    [
        {"path": 5, "force": True},  # a wrong type and an unknown argument
        {"rocket": "R1"},  # the arguments of another tool
        {},
    ],
)
def test_an_edit_the_tool_refuses_runs_nothing_and_the_model_reads_why(
    arguments: dict[str, Any], tmp_path: Path
) -> None:
    target = tmp_path / "t.txt"
    target.write_text("t", encoding="utf-8")
    seen: dict[str, tuple[str, bool]] = {}

    def after(request: dict[str, Any]) -> Turn:
        seen.update(tool_results(request))
        return Turn(text="Understood.")

    log = open_log(str(tmp_path / "log.sqlite3"))
    with ScriptedLLM([Turn(calls=[("delete_file", {"path": str(target)}, "d1")]), after]) as s:
        agent = _cleaner(s, log)
        held = agent.run("Delete t.txt.", session_id="s1")
        done = agent.run(session_id=held.session_id, approvals={"d1": Edit(arguments=arguments)})
    assert s.refusals == [] and s.errors == []
    assert target.exists()
    text, is_error = seen["d1"]
    assert is_error and "invalid_arguments" in text, text
    assert "they were refused, so the call did not run" in text
    assert done.steps[0].results[0].code == "invalid_arguments"
    log.close()


def test_an_edit_for_an_unknown_call_is_refused_before_anything(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("t", encoding="utf-8")
    log = open_log(str(tmp_path / "log.sqlite3"))
    with ScriptedLLM([Turn(calls=[("delete_file", {"path": str(target)}, "d1")])]) as server:
        agent = _cleaner(server, log)
        agent.run("Delete t.txt.", session_id="s1")
        with pytest.raises(ValueError, match=r"no held call\(s\) \['zz'\]"):
            agent.run(
                session_id="s1",
                approvals={"d1": True, "zz": Edit(arguments={"path": str(target)})},
            )
    assert target.exists() and stored_decisions(log, "s1") == {}
    log.close()


drops: list[str] = []


@tool
def drop_table(name: str) -> str:
    """Drop a table."""
    drops.append(name)
    return f"dropped {name}"


def _dba(log: SQLiteExecutionLog, *turns: Any) -> Agent:
    """The agent that asks to drop ``users`` (no ``turns``), or that answers ``turns``."""
    from toolrig.testing import ModelTurn, ScriptedModel

    script = list(turns) or [ModelTurn(calls=[("drop_table", {"name": "users"}, "c1")])]
    return Agent(
        "DBA", "db", ScriptedModel(script), [drop_table],
        approval=ApprovalPolicy(tools=["drop_table"]), log=log,
    )  # fmt: skip


def test_a_console_deny_recorded_first_beats_a_later_edit(tmp_path: Path) -> None:
    drops.clear()
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    assert _dba(log).run("drop", session_id="s").stop_reason == "approval"
    decide(log, "s", "c1", {"kind": "deny", "reason": "no"}, by="console:alice")
    with pytest.raises(AlreadyDecided, match="denied by console:alice"):
        _dba(log, "x").run(session_id="s", approvals={"c1": Edit(arguments={"name": "tmp"})})
    with pytest.raises(AlreadyDecided):  # and the console cannot decide it again either
        decide(log, "s", "c1", {"kind": "edit", "arguments": {"name": "tmp"}})
    assert drops == []
    log.close()


def _race(path: Path, session: str) -> list[str]:
    """Two resumes with an Edit and a console Deny of ``session``'s held call, at once; how
    each ended."""
    outcomes: list[str] = []
    barrier = threading.Barrier(3)

    def resume() -> None:
        log = SQLiteExecutionLog(path)
        agent = _dba(log, "done")
        barrier.wait()
        try:
            agent.run(session_id=session, approvals={"c1": Edit(arguments={"name": "tmp"})})
            outcomes.append("edit")
        except AlreadyDecided:
            outcomes.append("lost")
        finally:
            log.close()

    def deny() -> None:
        log = SQLiteExecutionLog(path)
        barrier.wait()
        try:
            decide(log, session, "c1", {"kind": "deny", "reason": "no"})
            outcomes.append("deny")
        except AlreadyDecided:
            outcomes.append("lost")
        finally:
            log.close()

    threads = [threading.Thread(target=f) for f in (resume, resume, deny)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return outcomes


def test_an_edit_and_a_deny_at_once_one_wins_and_the_call_runs_at_most_once(
    tmp_path: Path,
) -> None:
    """Many rounds of a resume with an Edit racing a console Deny (and a second resume): the
    call runs once when the edit won, never when the deny did, and every loser is told."""
    path = tmp_path / "log.sqlite3"
    setup = SQLiteExecutionLog(path)
    for round_ in range(12):
        drops.clear()
        session = f"s{round_}"
        assert _dba(setup).run("drop", session_id=session).stop_reason == "approval"
        outcomes = _race(path, session)
        assert sorted(outcomes) in (["edit", "lost", "lost"], ["deny", "lost", "lost"]), outcomes
        assert drops == (["tmp"] if "edit" in outcomes else []), (outcomes, drops)
        kept = stored_decisions(setup, session)["c1"]
        assert kept.kind == ("edit" if "edit" in outcomes else "deny")
    setup.close()


def test_the_console_records_an_edit_with_the_proposed_arguments(tmp_path: Path) -> None:
    drops.clear()
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    _dba(log).run("drop", session_id="s")
    with pytest.raises(ValueError, match="JSON object"):
        decide(log, "s", "c1", {"kind": "edit", "arguments": ["tmp"]})
    decide(log, "s", "c1", {"kind": "edit", "arguments": {"name": "tmp"}}, by="console:bob")
    from toolrig.console import stored_decisions as decisions_for
    from toolrig.storage import LogSessionStore

    found = decisions_for(log, LogSessionStore(log).load("s"))
    assert found == {"c1": Edit(arguments={"name": "tmp"})}
    with pytest.raises(AlreadyDecided, match="edited by console:bob"):  # another edit loses
        _dba(log, "x").run(session_id="s", approvals={"c1": Edit(arguments={"name": "logs"})})
    done = _dba(log, "dropped tmp").run(session_id="s", approvals=found)
    assert done.output == "dropped tmp" and drops == ["tmp"]
    kept = stored_decisions(log, "s")["c1"]
    assert kept.output == {"arguments": {"name": "tmp"}, "proposed": {"name": "users"}}
    assert kept.decided_by == "console:bob"
    assert Deny() != found["c1"]
    log.close()


def test_an_edited_call_meets_the_agents_guardrails_like_the_models(tmp_path: Path) -> None:
    """The edit goes through the same pipeline: an input guardrail refusing the edited
    arguments keeps the call from running, and the model reads both the refusal and the note."""
    from toolrig.runtime import InputGuardrail, Verdict
    from toolrig.testing import ModelTurn, ScriptedModel

    drops.clear()

    def no_system_tables(call: Any) -> Verdict:
        if str(call.arguments.get("name", "")).startswith("sys"):
            return Verdict.reject("system tables are never dropped")
        return Verdict.allow()

    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")

    def agent(*turns: Any) -> Agent:
        script = list(turns) or [ModelTurn(calls=[("drop_table", {"name": "users"}, "c1")])]
        return Agent(
            "DBA", "db", ScriptedModel(script), [drop_table],
            approval=ApprovalPolicy(tools=["drop_table"]), log=log,
            guardrails=[InputGuardrail(no_system_tables)],
        )  # fmt: skip

    agent().run("drop", session_id="s")
    done = agent("ok").run(session_id="s", approvals={"c1": Edit(arguments={"name": "sys_a"})})
    assert drops == []
    result = done.steps[0].results[0]
    assert result.code == "guardrail" and "system tables" in result.to_text()
    sent = str(done.all_messages)
    assert "A person edited the arguments" in sent and "system tables" in sent
    assert "it ran with" not in sent  # it did not run
    log.close()

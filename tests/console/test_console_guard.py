"""The console's rules, through the ASGI app (no socket): Host and Origin checks, the token on
a non-default bind, the form token on every POST, read-only mode, and decisions as an atomic
claim (of many deciding at once, one wins)."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from console_tools import tools

from toolrig.agent import Agent, AlreadyDecided, Answer, ApprovalPolicy, Deny
from toolrig.console import UnsafeConsoleBind, _approvals, app, stored_decisions
from toolrig.console._approvals import decide
from toolrig.storage import LogSessionStore, SessionState, SQLiteExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel


def client(log: SQLiteExecutionLog, **options: object) -> httpx.AsyncClient:
    asgi = app(log=log, catalog=tools, **options)  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi), base_url="http://127.0.0.1")


def held(log: SQLiteExecutionLog, session: str) -> None:
    model = ScriptedModel([ModelTurn(calls=[("drop_table", {"name": "logs"}, "c1")]), "done"])
    agent = Agent("DBA", "db", model, tools, approval=ApprovalPolicy(destructive=True), log=log)
    assert agent.run("drop logs", session_id=session).stop_reason == "approval"


def csrf_of(page: str) -> str:
    found = re.search(r'<meta name="csrf" content="([^"]+)">', page)
    assert found is not None
    return found.group(1)


@pytest.fixture
def log(tmp_path: Path) -> SQLiteExecutionLog:
    opened = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    yield opened  # type: ignore[misc]
    opened.close()


def test_a_non_default_bind_needs_a_token(log: SQLiteExecutionLog) -> None:
    for host in ("0.0.0.0", "127.0.0.2", "192.168.1.10"):
        with pytest.raises(UnsafeConsoleBind, match="without a token"):
            app(log=log, host=host)


async def test_with_a_token_every_request_carries_it(log: SQLiteExecutionLog) -> None:
    async with client(log, host="0.0.0.0", token="t0ken") as http:
        assert (await http.get("/runs")).status_code == 401
        assert (
            await http.get("/runs", headers={"authorization": "Bearer nope"})
        ).status_code == 401
        ok = await http.get("/runs", headers={"authorization": "Bearer t0ken"})
        assert ok.status_code == 200
        entered = await http.get("/runs?token=t0ken&status=failed")
        assert entered.status_code == 303
        assert entered.headers["location"] == "/runs?status=failed"
        assert "toolrig_console=t0ken" in entered.headers["set-cookie"]
        assert "HttpOnly" in entered.headers["set-cookie"]
        assert (
            await http.get("/runs", headers={"cookie": "toolrig_console=t0ken"})
        ).status_code == 200


async def test_host_and_origin_are_checked_on_the_default_bind(log: SQLiteExecutionLog) -> None:
    async with client(log) as http:
        assert (await http.get("/runs")).status_code == 200
        assert (await http.get("/runs", headers={"host": "localhost:8765"})).status_code == 200
        rebound = await http.get("/runs", headers={"host": "attacker.example:8765"})
        assert rebound.status_code == 421
        foreign = await http.post(
            "/approvals/decide", headers={"origin": "http://attacker.example"}, data={}
        )
        assert foreign.status_code == 403


async def test_an_origin_on_another_port_of_this_host_is_refused(log: SQLiteExecutionLog) -> None:
    """An origin is scheme, host and port: a page another program serves on this machine (on
    another port) is another origin, though its host is the console's."""
    async with client(log) as http:
        here = {"host": "127.0.0.1:8765"}
        same = await http.get("/runs", headers={**here, "origin": "http://127.0.0.1:8765"})
        assert same.status_code == 200
        other = await http.get("/runs", headers={**here, "origin": "http://127.0.0.1:9999"})
        assert other.status_code == 403
        portless = await http.get("/runs", headers={**here, "origin": "http://127.0.0.1"})
        assert portless.status_code == 403


async def test_a_wrong_token_is_refused_in_each_place_it_can_be_given(
    log: SQLiteExecutionLog,
) -> None:
    """The header, the cookie and the query parameter each compare the token: a wrong one in
    the cookie is not let in, and a wrong one in the query sets no cookie."""
    async with client(log, host="0.0.0.0", token="t0ken") as http:
        cookie = await http.get("/runs", headers={"cookie": "toolrig_console=nope"})
        assert cookie.status_code == 401
        query = await http.get("/runs?token=nope")
        assert query.status_code == 401 and "set-cookie" not in query.headers
        empty = await http.get("/runs?token=", headers={"cookie": "toolrig_console="})
        assert empty.status_code == 401


async def test_every_post_needs_the_form_token(log: SQLiteExecutionLog) -> None:
    held(log, "s1")
    async with client(log) as http:
        form = {"session": "s1", "call": "c1", "kind": "allow"}
        refused = await http.post("/approvals/decide", data=form)
        assert refused.status_code == 403
        assert stored_decisions(log, LogSessionStore(log).load("s1")) is None
        tried = await http.post("/catalog/add", data={"a": "1", "b": "2", "csrf": "guess"})
        assert tried.status_code == 403
        token = csrf_of((await http.get("/approvals")).text)
        accepted = await http.post("/approvals/decide", data={**form, "csrf": token})
        assert accepted.status_code == 303
        assert stored_decisions(log, LogSessionStore(log).load("s1")) == {"c1": True}


async def test_read_only_hides_and_refuses_decisions_and_try_it(log: SQLiteExecutionLog) -> None:
    held(log, "s2")
    async with client(log, read_only=True) as http:
        page = (await http.get("/approvals")).text
        assert "drop_table" in page and "Approve</button>" not in page
        assert "Call add</button>" not in (await http.get("/catalog/add")).text
        token = csrf_of(page)
        form = {"session": "s2", "call": "c1", "kind": "allow", "csrf": token}
        assert (await http.post("/approvals/decide", data=form)).status_code == 403
        tried = await http.post("/catalog/add", data={"a": "1", "b": "2", "csrf": token})
        assert tried.status_code == 403
    assert stored_decisions(log, LogSessionStore(log).load("s2")) is None


def test_of_many_deciding_at_once_exactly_one_wins(
    log: SQLiteExecutionLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    held(log, "s3")
    deciders = 8
    all_read = threading.Barrier(deciders, timeout=10)

    class ReadTogether(LogSessionStore):
        """Every decider has read the undecided session before any of them writes."""

        def load(self, session_id: str) -> SessionState | None:
            state = super().load(session_id)
            all_read.wait()
            return state

    monkeypatch.setattr(_approvals, "LogSessionStore", ReadTogether)
    outcomes: list[str] = []

    def one(kind: str) -> None:
        try:
            decide(log, "s3", "c1", {"kind": kind, "reason": kind})
            outcomes.append(kind)
        except AlreadyDecided:
            outcomes.append("refused")

    threads = [threading.Thread(target=one, args=(k,)) for k in ["allow", "deny"] * 4]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [o for o in outcomes if o != "refused"]
    assert len(outcomes) == deciders and len(winners) == 1, outcomes
    decided = stored_decisions(log, LogSessionStore(log).load("s3"))
    assert decided is not None and (decided["c1"] is True) == (winners[0] == "allow")


async def test_secret_arguments_are_never_shown(log: SQLiteExecutionLog) -> None:
    model = ScriptedModel(
        [ModelTurn(calls=[("login", {"user": "ada", "password": "hunter2"})]), "in"]
    )
    Agent("a", "b", model, tools, log=log).run("sign in", run_id="secret-run")
    turn, call = log.get_run("secret-run")[:2]
    assert call.input_data["password"] == "**********"  # the call's record keeps it masked
    assert turn.output["tool_calls"][0]["arguments"]["password"] == "[redacted]"  # the turn's
    assert "hunter2" not in str([r.input_data for r in log.get_run("secret-run")])
    async with client(log) as http:
        page = (await http.get("/runs/secret-run")).text
        assert "ada" in page and "hunter2" not in page and "••••••" in page
        form = (await http.get("/catalog/login")).text
        assert 'name="password" type="password"' in form


async def test_a_session_shows_its_conversation_turn_by_turn(log: SQLiteExecutionLog) -> None:
    held(log, "s4")
    async with client(log) as http:
        page = (await http.get("/sessions/s4")).text
        roles = re.findall(r'<li class="card message (\w+)">', page)
        assert roles[:2] == ["system", "user"] or roles[:1] == ["user"], roles
        assert "drop logs" in page and "→ drop_table" in page
        assert "1 call awaiting a decision" in page
        assert (await http.get("/sessions/nope")).status_code == 404


async def test_deny_with_a_reason_and_answer_by_hand_reach_the_agent(
    log: SQLiteExecutionLog,
) -> None:
    held(log, "s5")
    held(log, "s6")
    async with client(log) as http:
        token = csrf_of((await http.get("/approvals")).text)
        for form in (
            {"session": "s5", "kind": "deny", "reason": "logs is still in use"},
            {"session": "s6", "kind": "answer", "output": '{"dropped": false}'},
        ):
            sent = await http.post("/approvals/decide", data={**form, "call": "c1", "csrf": token})
            assert sent.status_code == 303
        again = await http.post(
            "/approvals/decide",
            data={"session": "s5", "call": "c1", "kind": "allow", "csrf": token},
        )
        assert again.status_code == 409 and "already decided" in again.text
    store = LogSessionStore(log)
    assert stored_decisions(log, store.load("s5")) == {"c1": Deny(reason="logs is still in use")}
    assert stored_decisions(log, store.load("s6")) == {"c1": Answer(output={"dropped": False})}
    model = ScriptedModel(["Kept it."])
    agent = Agent("DBA", "db", model, tools, approval=ApprovalPolicy(destructive=True), log=log)
    done = agent.run(session_id="s5", approvals=stored_decisions(log, store.load("s5")))
    assert done.steps[0].results[0].to_text() == (
        "Error [permission_denied]: The call was denied: logs is still in use"
    )


async def test_the_catalogue_page_lists_hot_reloads(
    log: SQLiteExecutionLog, tmp_path: Path
) -> None:
    from toolrig.registry import Registry

    folder = tmp_path / "catalog"
    folder.mkdir()
    registry = Registry()
    asgi = app(log=log, catalog=registry)
    registry.watch(folder, debounce=0.01)
    # written whole, then moved in: the watcher sees one complete file, not an empty one first
    draft = tmp_path / "greet.yaml.draft"
    draft.write_text(
        "name: greet\ndescription: Say hello.\nversion: 1.2.0\nexecutor: builtins:print\n"
    )
    draft.rename(folder / "greet.yaml")
    transport = httpx.ASGITransport(app=asgi)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        for _ in range(200):  # the watcher's thread reloads within its debounce
            page = (await http.get("/catalog")).text
            if "since the console started" in page:
                break
            await asyncio.sleep(0.1)
        assert "1 change since the console started" in page
        assert re.search(r"added</span></td><td class=\"mono\">greet</td><td>1.2.0", page), page
    registry.close()


async def test_a_try_it_call_is_recorded_as_a_run_of_its_own(log: SQLiteExecutionLog) -> None:
    async with client(log) as http:
        token = csrf_of((await http.get("/catalog/add")).text)
        tried = await http.post("/catalog/add", data={"a": "40", "b": "2", "csrf": token})
        assert tried.status_code == 200
        assert re.search(r'<pre class="output">42</pre>', tried.text)
        runs = (await http.get("/runs")).text
    [record] = log.query(tool="add")
    assert record.run_id.startswith("console-") and record.output == 42
    assert f">{record.run_id}</a>" in runs and '<span class="kind console">console</span>' in runs
    info = log.run_info(record.run_id)
    assert info is not None and (info.kind, info.status) == ("console", "succeeded")


def test_waiting_on_a_session_that_holds_nothing_fails_at_once(log: SQLiteExecutionLog) -> None:
    from toolrig.console import wait_for_decisions

    with pytest.raises(LookupError, match="holds no calls"):
        wait_for_decisions(log, "never-stored", timeout=30)
    held(log, "s7")
    with pytest.raises(TimeoutError, match="no decision on session 's7'"):
        wait_for_decisions(log, "s7", timeout=0.3, poll=0.05)
    decide(log, "s7", "c1", {"kind": "allow"})
    assert wait_for_decisions(log, "s7", timeout=5) == {"c1": True}


async def test_a_turn_a_run_has_claimed_cannot_be_decided_again(log: SQLiteExecutionLog) -> None:
    from dataclasses import replace

    held(log, "s8")
    store = LogSessionStore(log)
    state = store.load("s8")
    assert state is not None and state.pending is not None
    claim = {"run_id": "run-elsewhere", "at": 0.0, "decisions": {"c1": "approved"}}
    store.save(replace(state, pending={**state.pending, "claim": claim}))
    async with client(log) as http:
        page = (await http.get("/approvals")).text
        assert "Decided: approved — run run-elsewhere is carrying it out" in page
        form = {"session": "s8", "call": "c1", "kind": "deny", "csrf": csrf_of(page)}
        refused = await http.post("/approvals/decide", data=form)
        assert refused.status_code == 409 and "by run &#39;run-elsewhere&#39;" in refused.text
    with pytest.raises(AlreadyDecided):
        decide(log, "s8", "c1", {"kind": "allow"})


async def test_every_response_forbids_framing(log: SQLiteExecutionLog) -> None:
    async with client(log) as http:
        for path in ("/runs", "/runs/none", "/catalog", "/health", "/approvals"):
            response = await http.get(path)
            assert response.headers["x-frame-options"] == "DENY", path
            assert response.headers["content-security-policy"] == "frame-ancestors 'none'"
        refused = await http.get("/runs", headers={"host": "evil.example"})
        assert refused.status_code == 421 and refused.headers["x-frame-options"] == "DENY"


async def test_a_host_header_is_a_name_and_a_port_and_nothing_else(
    log: SQLiteExecutionLog,
) -> None:
    async with client(log) as http:
        assert (await http.get("/runs", headers={"host": "127.0.0.1:8765"})).status_code == 200
        assert (await http.get("/runs", headers={"host": "[::1]:8765"})).status_code == 200
        for bad in ("user@127.0.0.1", "127.0.0.1/x", "127.0.0.1 :80", "127.0.0.1:80:80", ""):
            response = await http.get("/runs", headers={"host": bad})
            assert response.status_code == 400, bad


async def test_a_body_over_the_limit_is_refused_before_it_is_read(
    log: SQLiteExecutionLog,
) -> None:
    from toolrig.console._guard import MAX_BODY_BYTES

    async with client(log) as http:
        page = (await http.get("/catalog/echo")).text
        big = {"csrf": csrf_of(page), "text": "x" * (MAX_BODY_BYTES + 1)}
        response = await http.post("/catalog/echo", data=big)
        assert response.status_code == 413
        # a body that does not say its length is refused too (the limit could not hold)

        async def chunks() -> AsyncIterator[bytes]:
            yield b"csrf=x"

        streamed = await http.post("/catalog/echo", content=chunks())
        assert streamed.status_code == 411
    assert log.query() == []  # nothing ran


async def test_the_token_is_taken_only_as_documented(log: SQLiteExecutionLog) -> None:
    async with client(log, host="0.0.0.0", token="s3cret-token") as http:
        good = await http.get("/runs", headers={"authorization": "Bearer s3cret-token"})
        assert good.is_success
        for header in ("s3cret-token", "Basic s3cret-token", "bearer s3cret-token"):
            response = await http.get("/runs", headers={"authorization": header})
            assert response.status_code == 401, header

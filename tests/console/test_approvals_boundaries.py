"""The approvals inbox and its decisions, boundary by boundary, as a hostile caller sends them
(docs/console.md, "Approvals" and "Security"; ``console._approvals``), through the console's
real ASGI app over a real SQLite log, and PostgreSQL where the rows say both.

The promises: a decision is recorded once per held call, for that call of that session only,
and the first one stands (the same decision twice, Allow after Deny, racing clicks: one wins,
the others 409); a call no longer held (already run, claimed by a run, never held) is refused
and nothing is written; the form refuses what it cannot read with 400, never a 500 and never a
decision, and an absent note gets the documented default; a read-only console refuses every
decision and shows no form to make one; the inbox is newest first; a session's page shows its
held calls however old it is; masked arguments stay masked in an edit too.

| promise | boundary | test |
|---|---|---|
| read-only refuses | each kind, none, `bogus` × right, wrong, no token: 403 | `..._read_only_*` |
| read-only hides | no decide form on any of several cards, nor a session | `..._read_only_*` |
| an absent note | deny: no or an empty reason: "Denied in the console." | `test_the_form` |
| an absent note | edit: an empty reason is none; answer: no output is `""` | `test_the_form` |
| answer output | `42`, an object, text, JSON nested 100,000 deep: kept, or text | `test_the_form` |
| edit arguments | none, `[1]`, not JSON, 100,000 deep, refused by the tool: 400 | `test_the_form` |
| the kind | none, `ALLOW`, `allow ` (a space): 400, nothing written | `test_the_form` |
| wrong types | each field a file upload: 400, 403 or 409, never a 500 | `..._a_file_*` |
| scope: the call | A's `c1` decided: A's `c2` and B's `c1` stay undecided (both) | `..._its_call` |
| scope: the session | B with A's call id: 409, nothing written (both) | `..._its_call` |
| a turn of two | `stored_decisions` is `None` until both calls are decided | `..._its_call` |
| first stands | each kind, then the same again or another: 409 (both) | `..._repeated_*` |
| racing | six different clicks at once: one 303, five 409 (both) | `test_racing_*` |
| already run | the resumed call, each kind: 409; the next held call: 303 | `..._already_run_*` |
| unknown ids | a session never stored; a call the session never held: 409 | `..._already_run_*` |
| claimed | each claim word shown, styled as what it decided; each kind: 409 | `..._claimed_*` |
| for the session | A allowed: B still held, a new session C holds (both) | `..._its_session` |
| unwritable | the log locked by another writer: 503, nothing written; retry 303 | `..._written_*` |
| newest first | 201 holding sessions: the 200 newest, newest first (both) | `..._one_page` |
| past one page | the oldest: its session page names its held call; decide: 303 | `..._one_page` |
| the notice | call ids `c&x#y`, `50%25`, `a b`, `é?=1`: "Recorded: allow:ID" | `..._notice_*` |
| secrets | a held password and an edit's new one (code, a crafted form): masked | `..._secrets_*` |
| the card | each kind, ± a reason, ± an author: all it holds shown, no other part | `..._card_*` |
| the refusal | a second decision names the first: `denied by alice`, `denied` | `..._second_*` |
| odd rows | a turn stored as a list, `null`, no calls; a call with no arguments | `..._reads_*` |
| approved | each kind: runs the call or not; `by` defaults to `console` | `..._approved_*` |
| from code | no kind, `Allow`, an edit of none or `[...]`, refused by a catalog | `..._not_a_*` |
| nothing held | a session with no turn, one never stored: refused, none written | `..._nothing` |
| not yet | no state or turn, `{}`, no calls, undecided: `None`; claimed: raises | `..._until_*` |
| waiting | decided meanwhile: returned; not in time: `TimeoutError`, its words | `..._until_*` |
| nothing to wait for | never stored, no turn, no calls: `LookupError` at once | `..._nothing` |
| a legacy edit | recorded without its arguments object: shown without them | `..._legacy*` |

("both": SQLite and PostgreSQL.)

Found by this table and fixed: JSON nested deeper than the parser goes (a 100,000-deep
``[[[...]]]`` in a 200 KB form) raised ``RecursionError``, not ``ValueError``, so an answer's
output or an edit's arguments got a 500; an answer now takes it as text, an edit is refused
with 400. The session page looked for its held calls among the inbox's newest 200 sessions,
so an older session holding calls said it held none; it now reads its own. A turn a run had
claimed with an approval (``approved``, ``approved for the session``, ``edited``) was styled
as a failure, the style asking for the decision kinds only. An edit's arguments were shown
unmasked, so a secret parameter given in an edit (a crafted form, or ``decide()`` from code)
was in the inbox in clear, read-only consoles included; they are masked like the held call's.
Waiting for the decisions of a session whose stored turn holds no calls (an object
without them) waited out its whole timeout; it is a `LookupError` at once, as for no turn.
A decided card said only the kind and the reason: who decided, when, and an answer's output
were recorded but shown nowhere; the card shows them now.
The redirect after a decision put the call id in its query unquoted: an id with ``&``, ``#``
or ``%25`` came back as another id in the notice (``c``, ``50%``); it is quoted now.

Breaks tried (each made the named test fail, then was undone): the read-only check dropped
from ``decide_call`` (``..._read_only_*[*-right]``); the answer's and the edit's parse back to
``except ValueError`` (``test_the_form[answer-deep]``, ``test_the_form[edit-deep]``); the deny
default reason dropped (``test_the_form[deny-*]``); ``decide``'s "not held by this session"
check dropped (``..._its_call``); ``insert_decision``'s result ignored in ``decide``
(``..._repeated_*`` on both backends, ``test_racing_*``); ``decide``'s claim check dropped
(``..._claimed_*``); the held-calls order as ``ASC`` (``..._one_page``); the session page back
to the inbox's list (``..._one_page``); the template's style back to the kinds alone
(``..._claimed_*[allow|allow_session|edit]``); the edit's arguments shown unmasked
(``..._secrets_*``); the notice unquoted (``..._notice_*[c&x#y]``, ``[50%25]``).
"""

from __future__ import annotations

import asyncio
import html
import importlib
import json
import re
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from console_tools import tools

from toolrig.agent import Agent, Answer, ApprovalPolicy, Deny
from toolrig.agent._claim import PAST, AlreadyDecided
from toolrig.console import app, stored_decisions, wait_for_decisions
from toolrig.console._approvals import decide, held_calls
from toolrig.runtime import ToolExecutor
from toolrig.storage import LogSessionStore, SQLiteExecutionLog, open_log
from toolrig.storage import _runs as runs
from toolrig.storage._log import ExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel

_postgres: Any = importlib.import_module("postgres_db")  # tests/: the suite's PostgreSQL helper
TOOLS: list[Any] = list(tools)

KINDS = ["allow", "allow_session", "deny", "answer", "edit"]
DEEP = "[" * 100_000 + "]" * 100_000
"""JSON nested past any parser's recursion (200 KB, well under the 1 MiB body limit)."""

Call = tuple[str, dict[str, Any], str]


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SQLiteExecutionLog]:
    opened = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """A scratch database on the local PostgreSQL server for this module."""
    with _postgres.scratch_database("toolrig_approvals") as dsn:
        yield dsn


@pytest.fixture(params=["sqlite", "postgres"])
def any_log(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ExecutionLog]:
    """A log on each backend (the PostgreSQL database is the module's: sessions are named
    apart)."""
    if request.param == "sqlite":
        url = str(tmp_path / "log.sqlite3")
    else:
        url = str(request.getfixturevalue("postgres_url"))
    opened = open_log(url)
    yield opened
    opened.close()


def _id(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def _agent(log: ExecutionLog, script: list[Any]) -> Agent:
    policy = ApprovalPolicy(destructive=True, tools=("login",))
    return Agent("DBA", "db", ScriptedModel(script), TOOLS, approval=policy, log=log)


def hold(log: ExecutionLog, session: str, *calls: Call, then: list[Any] | None = None) -> Agent:
    """A real agent run on ``session`` that stops holding ``calls`` (one turn); the agent,
    whose script goes on with ``then``."""
    turn = calls or (("drop_table", {"name": "logs"}, "c1"),)
    agent = _agent(log, [ModelTurn(calls=list(turn)), *(then or ["done"])])
    assert agent.run("drop it", session_id=session).stop_reason == "approval"
    return agent


def client(log: ExecutionLog, **options: Any) -> httpx.AsyncClient:
    asgi = app(log=log, catalog=ToolExecutor(TOOLS), **options)
    transport = httpx.ASGITransport(app=asgi, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


def csrf_of(page: str) -> str:
    found = re.search(r'<meta name="csrf" content="([^"]+)">', page)
    assert found is not None
    return found.group(1)


async def token(http: httpx.AsyncClient) -> str:
    return csrf_of((await http.get("/approvals")).text)


def recorded(log: ExecutionLog, session: str) -> dict[str, runs.StoredDecision]:
    return runs.stored_decisions(log, session)


def cards(page: str) -> list[tuple[str, str, str]]:
    """The inbox's cards in page order: (session, call, decision kind or "")."""
    keys = re.findall(r'<article class="card held" id="[^"]*" data-key="([^"]*)"', page)
    return [tuple(html.unescape(k).split("/", 2)) for k in keys]  # type: ignore[misc]


async def send(http: httpx.AsyncClient, session: str, call: str, **fields: Any) -> httpx.Response:
    data = {"session": session, "call": call, "csrf": await token(http), **fields}
    return await http.post("/approvals/decide", data=data)


# -- read-only --------------------------------------------------------------------------------
@pytest.mark.parametrize("given", ["right", "wrong", "none"])
@pytest.mark.parametrize("kind", [*KINDS, "bogus", None])
async def test_a_read_only_console_refuses_every_decision(
    log: SQLiteExecutionLog, kind: str | None, given: str
) -> None:
    hold(log, "ro-1", ("drop_table", {"name": "a"}, "c1"), ("drop_table", {"name": "b"}, "c2"))
    hold(log, "ro-2")
    async with client(log, read_only=True) as http:
        page = (await http.get("/approvals")).text
        assert len(cards(page)) == 3
        assert 'action="/approvals/decide"' not in page and "Approve</button>" not in page
        assert (await http.get("/sessions/ro-1")).text.count("<form") == 0
        form: dict[str, str] = {"session": "ro-1", "call": "c1", "arguments": '{"name": "x"}'}
        if kind is not None:
            form["kind"] = kind
        if given != "none":
            form["csrf"] = csrf_of(page) if given == "right" else "guess"
        refused = await http.post("/approvals/decide", data=form)
        assert refused.status_code == 403 and "read-only" in refused.text
    assert recorded(log, "ro-1") == {} and recorded(log, "ro-2") == {}


# -- the form ---------------------------------------------------------------------------------
FORMS: dict[str, tuple[dict[str, str], int, dict[str, Any] | None]] = {
    # name: (fields besides session, call and csrf; status; what is recorded, or nothing)
    "deny-no-reason": ({"kind": "deny"}, 303, {"reason": "Denied in the console."}),
    "deny-empty-reason": (
        {"kind": "deny", "reason": ""},
        303,
        {"reason": "Denied in the console."},
    ),
    "deny-reason": ({"kind": "deny", "reason": "logs stay"}, 303, {"reason": "logs stay"}),
    "allow": ({"kind": "allow", "reason": "ignored"}, 303, {"reason": None, "output": None}),
    "answer-no-output": ({"kind": "answer"}, 303, {"output": ""}),
    "answer-number": ({"kind": "answer", "output": "42"}, 303, {"output": 42}),
    "answer-object": ({"kind": "answer", "output": '{"rows": 0}'}, 303, {"output": {"rows": 0}}),
    "answer-text": ({"kind": "answer", "output": "not now"}, 303, {"output": "not now"}),
    "answer-deep": ({"kind": "answer", "output": DEEP}, 303, {"output": DEEP}),
    "edit": (
        {"kind": "edit", "arguments": '{"name": "tmp"}', "reason": ""},
        303,
        {"reason": None, "output": {"arguments": {"name": "tmp"}, "proposed": {"name": "logs"}}},
    ),
    "edit-no-arguments": ({"kind": "edit"}, 400, None),
    "edit-array": ({"kind": "edit", "arguments": "[1]"}, 400, None),
    "edit-not-json": ({"kind": "edit", "arguments": "{name: tmp}"}, 400, None),
    "edit-deep": ({"kind": "edit", "arguments": '{"name": ' + DEEP + "}"}, 400, None),
    "edit-refused": ({"kind": "edit", "arguments": '{"name": 5}'}, 400, None),
    "no-kind": ({}, 400, None),
    "kind-upper": ({"kind": "ALLOW"}, 400, None),
    "kind-space": ({"kind": "allow "}, 400, None),
}


@pytest.mark.parametrize("name", FORMS)
async def test_the_form(log: SQLiteExecutionLog, name: str) -> None:
    fields, status, stored = FORMS[name]
    hold(log, "form")
    async with client(log) as http:
        response = await send(http, "form", "c1", **fields)
        assert response.status_code == status, response.text[-400:]
        page = (await http.get("/approvals")).text
    decided = recorded(log, "form")
    if stored is None:
        assert decided == {} and cards(page) == [("form", "c1", "")]
        return
    assert decided["c1"].kind == fields["kind"] and decided["c1"].decided_by == "console"
    for key, value in stored.items():
        assert getattr(decided["c1"], key) == value, key
    assert cards(page) == [("form", "c1", fields["kind"])]


# -- what a decided card shows ----------------------------------------------------------------
SHOWN: dict[str, tuple[dict[str, Any], str, str | None, str | None]] = {
    # kind: (the decision from code; the card's line after the kind; its answer; its edit)
    "allow": ({}, "", None, None),
    "allow_session": ({"reason": "trusted"}, " — trusted", None, None),
    "deny": ({"reason": "logs stay"}, " — logs stay", None, None),
    "answer": ({"output": {"rows": 0}, "reason": "dry run"}, " — dry run", '"rows": 0', None),
    "answer-text": ({"output": "not now"}, "", "not now", None),
    "edit": ({"arguments": {"name": "tmp"}}, "", None, '"name": "tmp"'),
}


@pytest.mark.parametrize("by", ["alice", ""])
@pytest.mark.parametrize("name", SHOWN)
async def test_a_decided_card_shows_the_decision_its_author_and_time(
    log: SQLiteExecutionLog, name: str, by: str
) -> None:
    """Each kind, with and without a reason, by someone or by no one named: the card says
    what was decided, why, by whom and when, an answer's output and an edit's arguments, and
    nothing of the other kinds."""
    kind = name.split("-")[0]
    decision, line, answer, edit = SHOWN[name]
    hold(log, "shown")
    decide(log, "shown", "c1", {"kind": kind, **decision}, by=by)
    (held,) = held_calls(log)
    assert held.decision is not None and held.decision["kind"] == kind
    async with client(log) as http:
        page = (await http.get("/approvals")).text
    author = f' · by <span class="decided-by">{by}</span>' if by else ""
    pattern = (
        f"Decided: {re.escape(html.escape(kind + line))}{re.escape(author)} · "
        f'<time datetime="[^"]+">[^<]+ UTC</time> · waiting for the agent to resume</p>'
    )
    assert re.search(pattern, page), page[page.find("Decided") :][:300]
    assert ('class="decided-by"' in page) == bool(by)
    if answer is None:
        assert "<h3>Answer</h3>" not in page and 'class="answered"' not in page
    else:
        shown = re.search(r'<pre class="answered">(.*?)</pre>', page, re.S)
        assert shown is not None and answer in html.unescape(shown.group(1))
    assert ('class="edited"' in page) == (edit is not None)
    if edit is not None:
        assert edit in html.unescape(page)


@pytest.mark.parametrize("by", ["alice", ""])
def test_a_second_decision_names_the_first_and_its_author(log: SQLiteExecutionLog, by: str) -> None:
    hold(log, "detail")
    decide(log, "detail", "c1", {"kind": "deny", "reason": "no"}, by=by)
    with pytest.raises(AlreadyDecided) as refused:
        decide(log, "detail", "c1", {"kind": "allow"})
    assert refused.value.claimed_by is None and refused.value.call_ids == ["c1"]
    expected = "(denied by alice)" if by else "(denied)"
    assert str(refused.value).startswith(
        f"call(s) c1 of session 'detail' were already decided {expected}; nothing ran"
    ), str(refused.value)


async def test_a_file_in_place_of_any_field_is_never_a_500(log: SQLiteExecutionLog) -> None:
    hold(log, "files")
    async with client(log) as http:
        csrf = await token(http)
        base = {"session": "files", "call": "c1", "csrf": csrf, "kind": "edit"}
        for field in ("csrf", "session", "call", "kind", "arguments", "reason"):
            data = {k: v for k, v in base.items() if k != field}
            files = {field: ("f.txt", b'{"name": "x"}')}
            response = await http.post("/approvals/decide", data=data, files=files)
            assert response.status_code in (400, 403, 409), field
    assert recorded(log, "files") == {}


# -- scope ------------------------------------------------------------------------------------
async def test_a_decision_touches_only_its_call(any_log: ExecutionLog) -> None:
    a, b = _id("scope-a"), _id("scope-b")
    hold(any_log, a, ("drop_table", {"name": "x"}, "c1"), ("drop_table", {"name": "y"}, "c2"))
    hold(any_log, b)  # the same call id, another session
    store = LogSessionStore(any_log)
    async with client(any_log) as http:
        assert (await send(http, a, "c1", kind="allow")).status_code == 303
        assert set(recorded(any_log, a)) == {"c1"} and recorded(any_log, b) == {}
        assert stored_decisions(any_log, store.load(a)) is None  # c2 is still undecided
        shown = [c for c in cards((await http.get("/approvals")).text) if c[0] in (a, b)]
        assert sorted(shown) == sorted([(a, "c1", "allow"), (a, "c2", ""), (b, "c1", "")])
        crossed = await send(http, b, "c2", kind="deny")  # a's call, sent as b's
        assert crossed.status_code == 409 and recorded(any_log, b) == {}
        assert (await send(http, a, "c2", kind="deny", reason="no")).status_code == 303
    assert stored_decisions(any_log, store.load(a)) == {"c1": True, "c2": Deny(reason="no")}
    assert stored_decisions(any_log, store.load(b)) is None


FIRST_FIELDS = {
    "allow": {},
    "allow_session": {},
    "deny": {"reason": "no"},
    "answer": {"output": "42"},
    "edit": {"arguments": '{"name": "tmp"}'},
}


@pytest.mark.parametrize("second", ["same", "other"])
@pytest.mark.parametrize("first", KINDS)
async def test_a_repeated_decision_is_refused_and_the_first_stands(
    any_log: ExecutionLog, first: str, second: str
) -> None:
    session = _id("again")
    hold(any_log, session)
    again = first if second == "same" else ("allow" if first == "deny" else "deny")
    async with client(any_log) as http:
        assert (
            await send(http, session, "c1", kind=first, **FIRST_FIELDS[first])
        ).status_code == 303
        refused = await send(http, session, "c1", kind=again, **FIRST_FIELDS[again])
        assert refused.status_code == 409
        assert f"already decided ({html.escape(PAST[first])} by console)" in refused.text
    assert recorded(any_log, session)["c1"].kind == first


async def test_racing_decisions_one_wins(any_log: ExecutionLog) -> None:
    session = _id("race")
    hold(any_log, session)
    async with client(any_log) as http:
        csrf = await token(http)
        clicks = [*KINDS, "deny"]
        forms = [
            {"session": session, "call": "c1", "csrf": csrf, "kind": k, **FIRST_FIELDS[k]}
            for k in clicks
        ]
        sent = await asyncio.gather(*(http.post("/approvals/decide", data=f) for f in forms))
    statuses = sorted(r.status_code for r in sent)
    assert statuses == [303, 409, 409, 409, 409, 409]
    winner = clicks[[r.status_code for r in sent].index(303)]
    assert recorded(any_log, session)["c1"].kind == winner


# -- calls no longer held ---------------------------------------------------------------------
async def test_a_call_already_run_cannot_be_decided(log: SQLiteExecutionLog) -> None:
    then = [ModelTurn(calls=[("drop_table", {"name": "more"}, "c2")]), "done"]
    agent = hold(log, "ran", then=then)
    async with client(log) as http:
        assert (await send(http, "ran", "c1", kind="allow")).status_code == 303
        decisions = stored_decisions(log, LogSessionStore(log).load("ran"))
        resumed = agent.run(session_id="ran", approvals=decisions)
        assert resumed.stop_reason == "approval"  # c1 ran, and c2 is held now
        for kind in KINDS:
            late = await send(http, "ran", "c1", kind=kind, **FIRST_FIELDS[kind])
            assert late.status_code == 409, kind
        assert cards((await http.get("/approvals")).text) == [("ran", "c2", "")]
        assert (await send(http, "ran", "c2", kind="deny")).status_code == 303
        for session, call in (("never-stored", "c1"), ("ran", "c9")):
            assert (await send(http, session, call, kind="allow")).status_code == 409
    assert set(recorded(log, "ran")) == {"c1", "c2"} and recorded(log, "never-stored") == {}


@pytest.mark.parametrize("kind", KINDS)
async def test_a_claimed_turn_shows_its_decision_and_refuses_another(
    log: SQLiteExecutionLog, kind: str
) -> None:
    """A run that claimed the turn (and may have died since: the claim stays) decides it."""
    hold(log, "claimed")
    store = LogSessionStore(log)
    state = store.load("claimed")
    assert state is not None and state.pending is not None
    claim = {"run_id": "run-gone", "at": 0.0, "decisions": {"c1": PAST[kind]}}
    store.save(replace(state, pending={**state.pending, "claim": claim}))
    async with client(log) as http:
        page = (await http.get("/approvals")).text
        style = "succeeded" if kind in ("allow", "allow_session", "edit") else "failed"
        shown = f'<p class="status {style} decided">Decided: {html.escape(PAST[kind])} — run '
        assert shown + "run-gone is carrying it out" in page
        for other in KINDS:
            refused = await send(http, "claimed", "c1", kind=other, **FIRST_FIELDS[other])
            assert refused.status_code == 409 and "run-gone" in refused.text
            told = "call(s) c1 of session &#39;claimed&#39; were already decided by run"
            assert told in refused.text
    assert recorded(log, "claimed") == {}


async def test_allow_for_the_session_stays_in_its_session(any_log: ExecutionLog) -> None:
    a, b, c = _id("standing-a"), _id("standing-b"), _id("standing-c")
    then = [ModelTurn(calls=[("drop_table", {"name": "more"}, "c2")]), "all gone"]
    agent = hold(any_log, a, then=then)
    hold(any_log, b)
    store = LogSessionStore(any_log)
    async with client(any_log) as http:
        assert (await send(http, a, "c1", kind="allow_session")).status_code == 303
        done = agent.run(session_id=a, approvals=stored_decisions(any_log, store.load(a)))
        assert done.output == "all gone"  # c2 passed the gate: allowed for the session
        assert "Standing rules" in (await http.get(f"/sessions/{a}")).text
        assert "Standing rules" not in (await http.get(f"/sessions/{b}")).text
        hold(any_log, c)  # a new session's own run still holds the tool
        shown = [s for s, _, k in cards((await http.get("/approvals")).text) if not k]
        assert b in shown and c in shown and a not in shown
    assert recorded(any_log, b) == {} and recorded(any_log, c) == {}


# -- the failure path -------------------------------------------------------------------------
async def test_a_decision_that_cannot_be_written_is_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite3"
    log = SQLiteExecutionLog(path, busy_timeout=0.2)
    try:
        hold(log, "locked")
        async with client(log) as http:
            csrf = await token(http)
            other = sqlite3.connect(path, isolation_level=None)
            other.execute("BEGIN IMMEDIATE")  # another writer holds the log
            try:
                form = {"session": "locked", "call": "c1", "kind": "allow", "csrf": csrf}
                refused = await http.post("/approvals/decide", data=form)
            finally:
                other.execute("ROLLBACK")
                other.close()
            assert refused.status_code == 503 and "database is locked" in refused.text
            assert "Traceback" not in refused.text
            assert recorded(log, "locked") == {}
            retried = await http.post("/approvals/decide", data=form)
            assert retried.status_code == 303  # nothing half-written stands in its way
        assert recorded(log, "locked")["c1"].kind == "allow"
    finally:
        log.close()


# -- order and pages --------------------------------------------------------------------------
async def test_newest_first_and_past_one_page(any_log: ExecutionLog) -> None:
    prefix = _id("page")
    oldest = f"{prefix}-old"
    hold(any_log, oldest)
    store = LogSessionStore(any_log)
    state = store.load(oldest)
    assert state is not None
    newer = [f"{prefix}-{n:03}" for n in range(200)]
    for session in newer:  # each saved after the one before it
        store.save(replace(state, session_id=session, version=0))
    async with client(any_log) as http:
        page = (await http.get("/approvals")).text
        shown = [s for s, _, _ in cards(page)]
        assert shown == newer[::-1]  # the 200 newest holding sessions, newest first
        held = held_calls(any_log)
        assert [c.held_at for c in held] == sorted((c.held_at for c in held), reverse=True)
        own = (await http.get(f"/sessions/{oldest}")).text
        assert "1 call awaiting a decision" in own and "#held-c1" in own
        assert (await send(http, oldest, "c1", kind="allow")).status_code == 303
    assert [c.decision is not None for c in held_calls(any_log, session_id=oldest)] == [True]


@pytest.mark.parametrize("call", ["c&x#y", "50%25", "a b", "é?=1"])
async def test_the_notice_names_the_call_as_sent(log: SQLiteExecutionLog, call: str) -> None:
    hold(log, "notice", ("drop_table", {"name": "logs"}, call))
    async with client(log) as http:
        sent = await send(http, "notice", call, kind="allow")
        assert sent.status_code == 303
        page = (await http.get(sent.headers["location"])).text
    assert f"Recorded: {html.escape(f'allow:{call}', quote=False)}</p>" in page
    assert recorded(log, "notice")[call].kind == "allow"


# -- secrets ----------------------------------------------------------------------------------
@pytest.mark.parametrize("door", ["decide", "form"])
async def test_secrets_stay_masked_in_an_edit(log: SQLiteExecutionLog, door: str) -> None:
    hold(log, "secret", ("login", {"user": "bob", "password": "hunter2"}, "L1"))
    edited = {"user": "bob", "password": "n3w-s3cret"}
    async with client(log) as http:
        first = (await http.get("/approvals")).text
        assert "hunter2" not in first and "Run edited</button>" not in first  # not editable
        if door == "decide":
            decide(log, "secret", "L1", {"kind": "edit", "arguments": edited}, by="script")
        else:  # a crafted form: the page offers none for a masked call
            sent = await send(http, "secret", "L1", kind="edit", arguments=json.dumps(edited))
            assert sent.status_code == 303
        pages = [(await http.get("/approvals")).text, (await http.get("/sessions/secret")).text]
    async with client(log, read_only=True) as viewer:
        pages.append((await viewer.get("/approvals")).text)
    assert cards(pages[0]) == [("secret", "L1", "edit")]
    for page in pages:
        assert "hunter2" not in page and "n3w-s3cret" not in page
    assert 'class="edited"' in pages[0] and "bob" in pages[0]


# -- from code: absent and odd values ---------------------------------------------------------
def _set_pending(log: ExecutionLog, session: str, raw: str | None) -> None:
    """Write a session's stored pending turn as-is (what an older or a hand-edited row holds)."""
    table, mark = LogSessionStore(log).table, log.placeholder
    sql = f"UPDATE {table} SET pending = {mark} WHERE session_id = {mark}"
    log._conn().execute(sql, [raw, session])


def test_held_calls_reads_what_each_session_holds_and_skips_what_it_cannot(
    log: SQLiteExecutionLog,
) -> None:
    """The odd rows are the newest, so a skip that stopped the listing would lose the rest."""
    for session in ("good", "bare", "claimed", "no-turn", "empty", "null", "list"):
        hold(log, session)  # saved in this order: "list" is the newest
    _set_pending(log, "list", '[{"id": "c1"}]')  # not an object: nothing to show
    _set_pending(log, "null", "null")
    _set_pending(log, "empty", "")
    _set_pending(log, "no-turn", '{"reason": "approval"}')  # an object without its calls
    bare = [{"id": "b1", "name": "drop_table", "tool": "drop_table"}]  # no arguments at all
    _set_pending(log, "bare", json.dumps({"pending": bare}))
    claimed = {"pending": bare, "claim": {"run_id": "run-z"}}  # a claim that names no decision
    _set_pending(log, "claimed", json.dumps(claimed))
    held = held_calls(log)
    assert [(c.session_id, c.tool_call_id) for c in held] == [
        ("claimed", "b1"),
        ("bare", "b1"),
        ("good", "c1"),
    ]
    assert held[2].arguments == {"name": "logs"} and held[1].arguments == {}
    assert held[1].arguments_json == "{}" and held[1].decision is None
    assert held[0].decision is None and not held[1].approved
    assert [c.session_id for c in held_calls(log, limit=5)] == ["claimed"]
    assert held_calls(log, limit=4) == []  # the newest four rows hold nothing readable
    assert [c.session_id for c in held_calls(log, limit=1, session_id="good")] == ["good"]
    assert held_calls(log, session_id="list") == []


def test_a_legacy_edit_without_its_arguments_is_shown_without_them(
    log: SQLiteExecutionLog,
) -> None:
    """A decision row written by another version (an edit whose output is not an object)."""
    hold(log, "legacy")
    odd = runs.StoredDecision(
        session_id="legacy", tool_call_id="c1", kind="edit", reason=None, output="tmp"
    )
    assert runs.insert_decision(log, odd)
    (held,) = held_calls(log)
    assert held.decision is not None and held.decision["kind"] == "edit"
    assert "arguments" not in held.decision and held.approved


@pytest.mark.parametrize("kind", KINDS)
def test_approved_is_what_lets_the_call_run(log: SQLiteExecutionLog, kind: str) -> None:
    hold(log, "approved")
    decide(log, "approved", "c1", {"kind": kind, **FIRST_FIELDS_CODE[kind]})
    (held,) = held_calls(log)
    assert held.approved is (kind in ("allow", "allow_session", "edit"))
    assert held.decision is not None and held.decision["by"] == "console"  # the default


FIRST_FIELDS_CODE: dict[str, dict[str, Any]] = {
    **FIRST_FIELDS,
    "answer": {"output": 42},
    "edit": {"arguments": {"name": "tmp"}},
}


def test_decide_refuses_what_is_not_a_decision(log: SQLiteExecutionLog) -> None:
    hold(log, "odd")
    catalog = ToolExecutor(TOOLS).catalog
    kinds = "a decision is one of allow, allow_session, deny, answer, edit, not"
    edit = "an edit gives the call's arguments as a JSON object"
    for decision, says in (
        ({}, f"{kinds} 'None'"),
        ({"kind": "Allow"}, f"{kinds} 'Allow'"),
        ({"kind": "edit"}, edit),
        ({"kind": "edit", "arguments": [["name", "x"]]}, edit),
    ):
        with pytest.raises(ValueError, match=re.escape(says)) as refused:
            decide(log, "odd", "c1", decision, catalog=catalog)
        assert str(refused.value) == says
    with pytest.raises(ValueError, match="The edited arguments were refused"):
        decide(log, "odd", "c1", {"kind": "edit", "arguments": {"name": 5}}, catalog=catalog)
    assert recorded(log, "odd") == {}
    decide(log, "odd", "c1", {"kind": "edit", "arguments": {"name": 5}})  # no catalog: taken
    stored = recorded(log, "odd")["c1"]
    assert stored.output == {"arguments": {"name": 5}, "proposed": {"name": "logs"}}


def test_decide_refuses_a_session_that_holds_nothing(log: SQLiteExecutionLog) -> None:
    agent = _agent(log, ["nothing to do"])
    assert agent.run("hello", session_id="idle").stop_reason != "approval"
    state = LogSessionStore(log).load("idle")
    assert state is not None and state.pending is None  # stored, holding no turn
    hold(log, "no-turn")
    _set_pending(log, "no-turn", '{"reason": "approval"}')  # an object without its calls
    for session in ("idle", "never-stored", "no-turn"):
        with pytest.raises(AlreadyDecided) as refused:
            decide(log, session, "c1", {"kind": "allow"})
        assert refused.value.claimed_by is None and refused.value.call_ids == ["c1"]
        assert str(refused.value).startswith(f"call(s) c1 of session {session!r} were already")
    assert recorded(log, "idle") == {} and recorded(log, "no-turn") == {}
    for session in ("idle", "never-stored", "no-turn"):
        with pytest.raises(LookupError) as nothing:
            wait_for_decisions(log, session, timeout=5)
        assert str(nothing.value) == (
            f"session {session!r} holds no calls awaiting a decision (never stored, or already "
            "being resumed by another run)"
        )


def test_stored_decisions_is_none_until_a_held_turn_is_decided(log: SQLiteExecutionLog) -> None:
    store = LogSessionStore(log)
    assert stored_decisions(log, None) is None
    hold(log, "turn")
    state = store.load("turn")
    assert state is not None and state.pending is not None
    assert stored_decisions(log, replace(state, pending=None)) is None
    assert stored_decisions(log, replace(state, pending={})) is None
    assert stored_decisions(log, replace(state, pending={"pending": []})) is None  # no calls
    assert stored_decisions(log, replace(state, pending={"reason": "approval"})) is None
    assert stored_decisions(log, state) is None
    with pytest.raises(TimeoutError) as late:
        wait_for_decisions(log, "turn", timeout=0.05, poll=0.01)
    assert str(late.value) == "no decision on session 'turn' in 0.05 s"
    later = threading.Timer(0.3, decide, (log, "turn", "c1", {"kind": "answer", "output": 7}))
    later.start()  # decided while the wait goes on
    try:
        assert wait_for_decisions(log, "turn", timeout=60, poll=0.02) == {"c1": Answer(output=7)}
    finally:
        later.join()
    assert stored_decisions(log, state) == {"c1": Answer(output=7)}
    assert wait_for_decisions(log, "turn", timeout=5) == {"c1": Answer(output=7)}
    claim = {"run_id": "run-x", "at": 0.0, "decisions": {"c1": "answered"}}
    store.save(replace(state, pending={**state.pending, "claim": claim}))
    with pytest.raises(LookupError, match="already being resumed"):
        wait_for_decisions(log, "turn", timeout=5)

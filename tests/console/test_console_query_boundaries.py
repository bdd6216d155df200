"""The console's query strings and forms, boundary by boundary, as a hostile caller sends them
(docs/console.md, "Runs", "Approvals" and "Live pages").

The promises: the runs list takes any ``before``, ``status``, ``since`` and ``until`` and
answers a page (a value it cannot use is ignored, never a 500), on each of its three walks
(the record id, ``(executor, started_at)`` with a tool, the runs table alone with a status);
the decide form refuses what it cannot act on (no or a stale token: 403; no known kind: 400;
no such pending call: 409), never a 500 and never a decision; ``/events`` opens its stream
whatever the topic, and what it echoes of the topic never adds a field to the stream.

| promise | boundary | test |
|---|---|---|
| a cursor | `nan`, `inf`, `-inf`, `1e400`, `1e300`, `2**63`, `-1`, `0`, `abc`, `` | `..._cursor` |
| every walk | unfiltered; `tool=add`; `status=succeeded`; `status=failed` | `..._cursor` |
| a page, not an error | 200 with the page; garbage (`abc`): the first page itself | `..._cursor` |
| filters | `status=bogus`, `since=nan`, `until=inf`, `since=9999-99-99`, a NUL | `..._filters` |
| decide: the token | none; a file in its place; a JSON body: 403 | `..._decide` |
| decide: the kind | none; `bogus`: 400 | `..._decide` |
| decide: the call | none; unknown; 10,000 characters; a NUL: 409, nothing decided | `..._decide` |
| `/events` | `runs`, `run` (with and without `run`), `approvals`, `bogus`, empty | `..._events` |
| one field a line | a topic with `\\n`, `\\r\\n`: the first event is `hello` alone | `..._events` |

Found by this table and fixed: a status filter's cursor went through ``int()`` (``nan`` raised
``ValueError``, ``inf`` and ``-inf`` ``OverflowError``, ``1e300`` and ``2**63`` overflowed
SQLite's integer: each a 500); it is now compared as the float it is. ``/events?topic=``
echoed the topic in its first event, so a newline in it wrote further SSE fields (an
``event: changed``); an unknown topic now reads as ``runs``, which it meant already.

Breaks tried (each made the named test fail, then was undone): the ``int()`` put back
(``..._cursor[*-status=*]`` for `nan`, `inf`, `-inf`, `1e400`, `1e300`, `2**63`); the topic
echoed as sent (``..._events[injected]``); the decide form's kind check dropped, so any kind
was sent on (``..._decide``: a 409, not the 400).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from console_tools import tools

from asgi_server import serve_asgi
from toolrig.console import app
from toolrig.console._live import signature
from toolrig.storage import SQLiteExecutionLog

HOSTILE = ["nan", "inf", "-inf", "1e400", "1e300", str(2**63), "-1", "0", "abc", ""]
WALKS = ["", "tool=add", "status=succeeded", "status=failed"]


@pytest.fixture
def log(filled_log: Path) -> Iterator[SQLiteExecutionLog]:
    opened = SQLiteExecutionLog(filled_log)
    yield opened
    opened.close()


@pytest.fixture
async def client(log: SQLiteExecutionLog) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app(log=log, catalog=tools), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as made:
        yield made


def _runs(page: str) -> list[str]:
    return sorted(set(re.findall(r'href="/runs/(run-\d+)"', page)))


@pytest.mark.parametrize("walk", WALKS, ids=lambda w: w or "all")
@pytest.mark.parametrize("before", HOSTILE)
async def test_any_cursor_answers_a_page(client: httpx.AsyncClient, walk: str, before: str) -> None:
    first = await client.get(f"/runs?{walk}")
    response = await client.get(f"/runs?{walk}&before={before}")
    assert response.status_code == 200
    if before in ("abc", ""):  # not a number: ignored
        assert _runs(response.text) == _runs(first.text)
    if walk == "":
        assert _runs(first.text) == ["run-1", "run-2", "run-3"]


@pytest.mark.parametrize(
    "query",
    ["status=bogus", "since=nan", "until=inf", "since=9999-99-99", "tool=%00", "tool=x%27--"],
)
async def test_other_filters(client: httpx.AsyncClient, query: str) -> None:
    response = await client.get(f"/runs?{query}")
    assert response.status_code == 200
    if query in ("status=bogus", "since=9999-99-99"):  # not a status, not a time: ignored
        assert _runs(response.text) == ["run-1", "run-2", "run-3"]


async def test_decide_refuses_what_it_cannot_act_on(
    client: httpx.AsyncClient, log: SQLiteExecutionLog
) -> None:
    page = (await client.get("/approvals")).text
    found = re.search(r'name="csrf" content="([^"]+)"', page)
    assert found is not None
    csrf = found.group(1)
    post = client.post
    assert (await post("/approvals/decide", data={"kind": "allow"})).status_code == 403
    as_file = await post("/approvals/decide", files={"csrf": ("t", csrf.encode())})
    assert as_file.status_code == 403
    as_json = await post(
        "/approvals/decide",
        content=f'{{"csrf": "{csrf}", "kind": "allow"}}'.encode(),
        headers={"content-type": "application/json"},
    )
    assert as_json.status_code == 403
    for kind in (None, "bogus"):
        data = {"csrf": csrf, "session": "s", "call": "c"}
        if kind is not None:
            data["kind"] = kind
        assert (await post("/approvals/decide", data=data)).status_code == 400
    decided = signature(log, "approvals")
    for session, call in (("", ""), ("nope", "nope"), ("x" * 10_000, "c"), ("s", "\x00")):
        for kind in ("allow", "deny", "answer"):
            data = {"csrf": csrf, "kind": kind, "session": session, "call": call}
            answer = await post("/approvals/decide", data={**data, "output": "{bad"})
            assert answer.status_code == 409, (kind, session[:10], call)
    assert signature(log, "approvals") == decided


TOPICS = {
    "runs": "topic=runs",
    "run": "topic=run&run=run-1",
    "run-alone": "topic=run",
    "approvals": "topic=approvals",
    "bogus": "topic=bogus",
    "empty": "topic=",
    "injected": "topic=runs%0Aevent:%20changed%0Adata:%20x%0D%0Aid:%201",
}


@pytest.mark.parametrize("query", TOPICS.values(), ids=TOPICS.keys())
def test_events_open_whatever_the_topic(log: SQLiteExecutionLog, query: str) -> None:
    with (
        serve_asgi(app(log=log, catalog=tools)) as base,
        httpx.stream("GET", f"{base}/events?{query}", timeout=20) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        text = ""
        for chunk in response.iter_text():
            text += chunk
            if text.count("\n\n") >= 2:
                break
    first = text.split("\n\n", 1)[0].replace("\r\n", "\n").replace("\r", "\n").split("\n")
    assert first[:2] == ["retry: 2000", "event: hello"]
    assert len(first) == 3 and first[2].startswith("data: ")

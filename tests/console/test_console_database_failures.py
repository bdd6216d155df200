"""A log whose database fails under a page or a decision, on each backend (docs/console.md,
"Following the log"; ``console._follow``, ``console._pages.decide_call``,
``storage._unavailable``), through the console's real ASGI app over a real SQLite file locked
by a real second connection and a real PostgreSQL scratch database locked, or cut off, from
another connection.

The promises: a page whose reads fail gets the one-line 503 page, never a 500, on SQLite and on
PostgreSQL alike, naming the log (a PostgreSQL log by its URL, never its password); a decision
that cannot be written says it could not be written, with status 503, and nothing is recorded,
so trying again once the database answers is recorded; the console goes on working once the
database is back; a console over a SQLite log never loads psycopg.

| promise | boundary | test |
|---|---|---|
| write wording | SQLite locked by a writer: 503 "could not be written" | `..._sqlite_decision_*` |
| nothing recorded | none stored; released, the same form: 303, stored | `..._sqlite_decision_*` |
| read wording | SQLite, sessions table renamed away: 503 "cannot be read" | `..._sqlite_read_*` |
| read past check | PostgreSQL, sessions locked past `lock_timeout`: 503 | `..._postgres_read_*` |
| only what fails | the same lock: `/runs` 200; released: the inbox 200 | `..._postgres_read_*` |
| no password | URL `:s3cret@…?options=`: `postgresql://USER@HOST:PORT/DB` | `..._postgres_read_*` |
| write wording | PostgreSQL decisions locked: "could not be written" | `..._postgres_decision_*` |
| nothing recorded | none stored; released, the same form: 303, stored | `..._postgres_decision_*` |
| no password | keyword DSN `password=s3cret options=…`: the same URL | `..._postgres_decision_*` |
| server gone | backends ended, connections refused: pages 503, named | `..._server_gone_*` |
| server gone | a decision, the check due: 503 "Nothing was done", none kept | `..._server_gone_*` |
| no resending | a form's 503 is "Not done", not the reloading card | `*_decision_*`, `*_gone_*` |
| back again | 200 within a bounded number of looks, and stays 200 | `..._server_gone_*` |
| back again | the inbox shows the held call; a decision: 303, stored | `..._server_gone_*` |
| psycopg lazy | new interpreter, SQLite, a locked decision: no psycopg | `..._never_loads_*` |

Found by this table and fixed: on PostgreSQL a failing query or write escaped the console's
middleware (it caught ``sqlite3.DatabaseError`` only) and became a generic 500; and the check's
own message on PostgreSQL did not name the database. A decision that could not be written was
told as "The log file … cannot be read (database is locked); waiting for a readable one.",
on SQLite, and as a 500 on PostgreSQL; and on SQLite it came on the page that reloads itself
once the log is readable, which after a POST sends the form again.

Breaks tried (each made the named test fail, then was undone): ``FollowLog`` back to
``except sqlite3.DatabaseError`` (``..._postgres_read_*``, ``..._server_gone_*``);
``database_errors`` without psycopg's class (``..._postgres_read_*``,
``..._postgres_decision_*``, ``..._server_gone_*``); ``decide_call``'s catch of the database's
errors dropped (``..._sqlite_decision_*``, ``..._postgres_decision_*``); the decision's message
back to the read wording (the same two); ``log_name`` giving the DSN as it is, and the address
keeping the password (``..._postgres_read_*``, ``..._postgres_decision_*``,
``..._server_gone_*``); the check's message on PostgreSQL back to "The log cannot be read: …"
(``..._server_gone_*``); the "Nothing was done" of a form stopped by the check dropped
(``..._server_gone_*``); ``storage._unavailable`` importing psycopg at the top
(``..._never_loads_*``); the decision's failure on the self-reloading ``unavailable`` page
(``..._sqlite_decision_*``, ``..._postgres_decision_*``); a form stopped by the check on that
page too (``..._server_gone_*``).
"""

from __future__ import annotations

import asyncio
import html
import importlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
from console_tools import tools

from toolrig.agent import Agent, ApprovalPolicy
from toolrig.console import app
from toolrig.console._watch import _EVERY
from toolrig.runtime import ToolExecutor
from toolrig.storage import PostgresExecutionLog, SQLiteExecutionLog
from toolrig.storage import _runs as runs
from toolrig.storage._log import ExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel

if TYPE_CHECKING:
    import psycopg

_postgres: Any = importlib.import_module("postgres_db")  # tests/: the suite's PostgreSQL helper
TOOLS: list[Any] = list(tools)
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SECRET = "s3cret"
LOCK_TIMEOUT = "-c lock_timeout=300"
"""The console's sessions wait this long for a table lock (a realistic server setting)."""


# -- what the tests share ---------------------------------------------------------------------
def hold(log: ExecutionLog, session: str) -> None:
    """A real agent run on ``session`` that stops holding one destructive call, ``c1``."""
    script: list[Any] = [ModelTurn(calls=[("drop_table", {"name": "logs"}, "c1")]), "done"]
    agent = Agent(
        "DBA",
        "db",
        ScriptedModel(script),
        TOOLS,
        approval=ApprovalPolicy(destructive=True),
        log=log,
    )
    assert agent.run("drop it", session_id=session).stop_reason == "approval"


def client(log: ExecutionLog) -> httpx.AsyncClient:
    asgi = app(log=log, catalog=ToolExecutor(TOOLS))
    transport = httpx.ASGITransport(app=asgi, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


async def token(http: httpx.AsyncClient) -> str:
    page = await http.get("/approvals")
    assert page.status_code == 200, page.text[-400:]
    found = re.search(r'<meta name="csrf" content="([^"]+)">', page.text)
    assert found is not None
    return found.group(1)


def line(response: httpx.Response) -> str:
    """The one line a 503 page over a read says (the ``unavailable`` card, which reloads
    itself once the log is back)."""
    assert response.status_code == 503, (response.status_code, response.text[-600:])
    assert "Traceback" not in response.text
    card = response.text.split('id="unavailable"', 1)[1].split("</section>", 1)[0]
    said = re.search(r"<p>(.*?)</p>", card, re.S)
    assert said is not None
    return html.unescape(said.group(1)).strip()


def not_done(response: httpx.Response) -> str:
    """The one line a 503 answer to a form says: a "Not done" card, never the self-reloading
    ``unavailable`` one (reloading the answer to a POST would send the form again)."""
    assert response.status_code == 503, (response.status_code, response.text[-600:])
    assert "Traceback" not in response.text and 'id="unavailable"' not in response.text
    card = response.text.split("<h1>Not done</h1>", 1)[1].split("</section>", 1)[0]
    said = re.search(r"<p>(.*?)</p>", card, re.S)
    assert said is not None
    return html.unescape(said.group(1)).strip()


def form(csrf: str, session: str) -> dict[str, str]:
    return {"session": session, "call": "c1", "kind": "allow", "csrf": csrf}


def decided(url: str, session: str) -> dict[str, runs.StoredDecision]:
    """The decisions recorded for ``session``, read on a connection of its own."""
    log = SQLiteExecutionLog(url) if not url.startswith("postgresql") else PostgresExecutionLog(url)
    try:
        return runs.stored_decisions(log, session)
    finally:
        log.close()


def with_password(dsn: str) -> str:
    """``dsn`` (a URL) with a password and a lock timeout (trust: the server ignores the
    password, the console must never show it)."""
    parts = urlsplit(dsn)
    netloc = parts.netloc.replace("@", f":{SECRET}@", 1)
    options = "options=" + LOCK_TIMEOUT.replace(" ", "%20").replace("=", "%3D")
    return urlunsplit(parts._replace(netloc=netloc, query=options))


def shown(dsn: str) -> str:
    """How the console names the database of ``dsn``: its URL without password or options."""
    parts = urlsplit(dsn)
    return f"postgresql://postgres@{parts.hostname}:{parts.port}{parts.path}"


@pytest.fixture
def database() -> Iterator[str]:
    """A scratch database of its own for each test (its DSN, without a password)."""
    with _postgres.scratch_database("toolrig_console_fail") as dsn:
        yield dsn


@pytest.fixture
def admin(database: str) -> Iterator[psycopg.Connection[Any]]:
    """Another connection to the scratch database (autocommit), as another writer or a DBA."""
    import psycopg

    with psycopg.connect(database, autocommit=True, connect_timeout=5) as conn:
        yield conn


# -- SQLite -----------------------------------------------------------------------------------
async def test_sqlite_decision_not_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log.sqlite3"
    log = SQLiteExecutionLog(path, busy_timeout=0.2)
    try:
        hold(log, "locked")
        async with client(log) as http:
            csrf = await token(http)
            other = sqlite3.connect(path, isolation_level=None)
            other.execute("BEGIN IMMEDIATE")  # another writer holds the log
            try:
                refused = await http.post("/approvals/decide", data=form(csrf, "locked"))
            finally:
                other.execute("ROLLBACK")
                other.close()
            said = not_done(refused)
            assert said == (
                f"The decision could not be written to the log file {path}: database is locked; "
                "nothing was recorded, try again."
            )
            assert "cannot be read" not in refused.text
            assert decided(str(path), "locked") == {}
            retried = await http.post("/approvals/decide", data=form(csrf, "locked"))
            assert retried.status_code == 303, retried.text[-400:]
        assert decided(str(path), "locked")["c1"].kind == "allow"
    finally:
        log.close()


async def test_sqlite_read_wording_kept(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log.sqlite3"
    log = SQLiteExecutionLog(path, busy_timeout=0.2)
    try:
        hold(log, "read")
        async with client(log) as http:
            assert (await http.get("/approvals")).status_code == 200
            other = sqlite3.connect(path, isolation_level=None)
            try:  # maintenance moves the sessions table aside (the check reads no session)
                other.execute("ALTER TABLE agent_sessions RENAME TO agent_sessions_kept")
                pages = [await http.get(url) for url in ("/approvals", "/sessions/read")]
                runs_page = await http.get("/runs")
            finally:
                other.execute("ALTER TABLE agent_sessions_kept RENAME TO agent_sessions")
                other.close()
            for page in pages:
                assert line(page) == (
                    f"The log file {path} cannot be read (no such table: agent_sessions); "
                    "waiting for a readable one."
                )
            assert runs_page.status_code == 200
            back = await http.get("/approvals")
            assert back.status_code == 200 and 'data-key="read/c1/' in back.text
    finally:
        log.close()


# -- PostgreSQL -------------------------------------------------------------------------------
async def test_postgres_read_fails_after_the_check(
    database: str, admin: psycopg.Connection[Any]
) -> None:
    url = with_password(database)
    log = PostgresExecutionLog(url)
    try:
        hold(log, "read")
        async with client(log) as http:
            assert (await http.get("/approvals")).status_code == 200
            with admin.transaction():  # a migration, say, holds the sessions table
                admin.execute("LOCK TABLE toolrig_agent_sessions IN ACCESS EXCLUSIVE MODE")
                pages = [await http.get(u) for u in ("/approvals", "/sessions/read")]
                runs_page = await http.get("/runs")  # reads no session: unaffected
            for page in pages:
                said = line(page)
                assert said == (
                    f"The log database {shown(database)} cannot be read "
                    "(canceling statement due to lock timeout); waiting for it to answer."
                )
                assert SECRET not in page.text and "lock_timeout" not in page.text
            assert runs_page.status_code == 200
            back = await http.get("/approvals")
            assert back.status_code == 200 and 'data-key="read/c1/' in back.text
    finally:
        log.close()


async def test_postgres_decision_not_written(database: str, admin: psycopg.Connection[Any]) -> None:
    parts = urlsplit(database)
    keywords = (
        f"host={parts.hostname} port={parts.port} dbname={parts.path.lstrip('/')} "
        f"user=postgres password={SECRET} options='{LOCK_TIMEOUT}'"
    )
    log = PostgresExecutionLog(keywords)
    try:
        hold(log, "locked")
        async with client(log) as http:
            csrf = await token(http)
            with admin.transaction():  # another writer holds the decisions (reads go on)
                admin.execute("LOCK TABLE toolrig_decisions IN EXCLUSIVE MODE")
                refused = await http.post("/approvals/decide", data=form(csrf, "locked"))
            said = not_done(refused)
            assert said == (
                f"The decision could not be written to the log database {shown(database)}: "
                "canceling statement due to lock timeout; nothing was recorded, try again."
            )
            assert SECRET not in refused.text and "cannot be read" not in refused.text
            assert decided(database, "locked") == {}
            retried = await http.post("/approvals/decide", data=form(csrf, "locked"))
            assert retried.status_code == 303, retried.text[-400:]
        assert decided(database, "locked")["c1"].kind == "allow"
    finally:
        log.close()


async def test_postgres_server_gone_then_back(
    database: str, admin: psycopg.Connection[Any]
) -> None:
    import psycopg

    name = urlsplit(database).path.lstrip("/")
    log = PostgresExecutionLog(with_password(database))
    try:
        hold(log, "gone")
        async with client(log) as http:
            csrf = await token(http)
            assert (await http.get("/runs")).status_code == 200
            with psycopg.connect(_postgres.ADMIN_DSN, autocommit=True) as server:
                # as a restart does: every connection closed, none taken until it is back
                server.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
                try:
                    server.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = %s AND pid <> pg_backend_pid()",
                        (name,),
                    )
                    pages = [await http.get(u) for u in ("/runs", "/approvals", "/runs")]
                    await asyncio.sleep(_EVERY * 2)  # the check's last answer is stale: it asks
                    refused = await http.post("/approvals/decide", data=form(csrf, "gone"))
                finally:
                    server.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            for page in pages:
                said = line(page)
                assert said.startswith(f"The log database {shown(database)} cannot be read ("), said
                assert SECRET not in page.text
            said = not_done(refused)
            assert said.startswith(f"The log database {shown(database)} cannot be read (")
            assert said.endswith("Nothing was done: try again once it is back."), said
            assert decided(database, "gone") == {}
            # back: each thread's connection the server closed fails once, then reopens
            statuses = []
            for _ in range(40):
                page = await http.get("/runs")
                statuses.append(page.status_code)
                if page.status_code == 200:
                    break
                line(page)  # meanwhile: the one line, never a 500
                await asyncio.sleep(_EVERY)  # the check's answer is kept this long
            assert statuses[-1] == 200, statuses
            for _ in range(5):  # and it stays back
                assert (await http.get("/runs")).status_code == 200
            inbox = await http.get("/approvals")
            assert inbox.status_code == 200 and 'data-key="gone/c1/' in inbox.text
            accepted = await http.post("/approvals/decide", data=form(csrf, "gone"))
            assert accepted.status_code == 303, accepted.text[-400:]
        assert decided(database, "gone")["c1"].kind == "allow"
    finally:
        log.close()


# -- psycopg stays unloaded ---------------------------------------------------------------------
def test_sqlite_console_never_loads_psycopg(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite3"
    log = SQLiteExecutionLog(path)
    hold(log, "lazy")
    log.close()
    code = textwrap.dedent(
        f"""
        import asyncio, json, re, sqlite3, sys
        import httpx
        from console_tools import tools
        from toolrig.console import app
        from toolrig.runtime import ToolExecutor
        from toolrig.storage import SQLiteExecutionLog

        PATH = {str(path)!r}

        async def main():
            log = SQLiteExecutionLog(PATH, busy_timeout=0.2)
            asgi = app(log=log, catalog=ToolExecutor(list(tools)))
            transport = httpx.ASGITransport(app=asgi, raise_app_exceptions=False)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as h:
                page = (await h.get("/approvals")).text
                csrf = re.search(r'<meta name="csrf" content="([^"]+)">', page).group(1)
                other = sqlite3.connect(PATH, isolation_level=None)
                other.execute("BEGIN IMMEDIATE")
                data = {{"session": "lazy", "call": "c1", "kind": "allow", "csrf": csrf}}
                refused = await h.post("/approvals/decide", data=data)
                other.execute("ROLLBACK")
            log.close()
            return refused.status_code

        status = asyncio.run(main())
        loaded = [m for m in ("psycopg", "toolrig.storage._postgres") if m in sys.modules]
        print(json.dumps({{"status": status, "loaded": loaded}}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(HERE)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"status": 503, "loaded": []}

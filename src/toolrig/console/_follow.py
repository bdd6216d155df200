"""The middleware that keeps pages off a log that cannot be read: while the log file is
deleted, or cannot be read, every page is the one-line message `LogWatch` gives (status 503)
instead of stale data or a traceback; a page whose queries fail on a file that broke since
the last check gets the same line."""

from __future__ import annotations

import sqlite3

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolrig.console._state import Console
from toolrig.console._watch import unreadable

__all__ = ["FollowLog"]

_OPEN = ("/static/", "/events")
"""Paths served whatever the log's state (the event stream reports it itself)."""


class FollowLog:
    """Serve the log's one-line problem instead of a page while there is one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(_OPEN):
            await self.app(scope, receive, send)
            return
        console: Console = scope["app"].state.console
        pulse = console.watch.recent()
        if pulse is None:  # a look at the database is due: off the event loop
            pulse = await run_in_threadpool(console.watch.check)
        if pulse.problem is not None:
            await self._message(console, scope, receive, send, pulse.problem)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except sqlite3.DatabaseError as exc:  # the file broke after the check
            if started:
                raise
            where = console.watch.path or "of the console"
            await self._message(console, scope, receive, send, unreadable(where, exc))

    async def _message(
        self, console: Console, scope: Scope, receive: Receive, send: Send, text: str
    ) -> None:
        response = console.page(Request(scope, receive), "unavailable.html", 503, message=text)
        await response(scope, receive, send)

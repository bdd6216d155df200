"""The middleware that keeps pages off a log that cannot be read: while the log file is
deleted, or cannot be read, or its database does not answer, every page is the one-line
message `LogWatch` gives (status 503) instead of stale data or a traceback; a page whose
queries fail since the last check (a file that broke, a PostgreSQL server restarted or gone, a
connection it closed, a lock timeout) gets the same kind of line. A form sent meanwhile is
told that nothing was done, on a page that does not reload itself (it would send the form
again); a decision that fails while it is written says so itself (see ``decide_call``)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolrig.console._state import Console
from toolrig.console._watch import cannot_read
from toolrig.storage._unavailable import database_errors

__all__ = ["FollowLog"]

_OPEN = ("/static/", "/events")
"""Paths served whatever the log's state (the event stream reports it itself)."""

_READS = ("GET", "HEAD")
"""Methods that only show: any other was sent to change something, and is told it did not."""


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
            text = pulse.problem
            if scope["method"] not in _READS:  # stopped before its route: nothing was done
                text += " Nothing was done: try again once it is back."
            await self._message(console, scope, receive, send, text)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except database_errors() as exc:  # the file broke, or the server went, after the check
            if started:
                raise
            await self._message(console, scope, receive, send, cannot_read(console.log, exc))

    async def _message(
        self, console: Console, scope: Scope, receive: Receive, send: Send, text: str
    ) -> None:
        # a page reloads itself once the log is back; a form's answer must not (it would send
        # the form again): it says the request was not done
        page = "unavailable.html" if scope["method"] in _READS else "refused.html"
        response = console.page(Request(scope, receive), page, 503, message=text)
        await response(scope, receive, send)

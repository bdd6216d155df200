"""``app(log=..., catalog=...)``: the console as a Starlette ASGI application.

Pages are rendered on the server from Jinja2 templates; the few scripts and the stylesheet
ship in the package (``static/``), so nothing is fetched from elsewhere.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from toolrig.console._follow import FollowLog
from toolrig.console._guard import ConsoleGuard, check_console_bind, new_token
from toolrig.console._results_view import result
from toolrig.console._state import HERE, Console, templates
from toolrig.console._watch import LogWatch
from toolrig.registry._catalog import Catalog
from toolrig.runtime._executor import ToolExecutor
from toolrig.storage._log import ExecutionLog

__all__ = ["app"]


def app(
    *,
    log: ExecutionLog,
    catalog: Catalog | ToolExecutor | None = None,
    host: str = "127.0.0.1",
    token: str | None = None,
    read_only: bool = False,
) -> Starlette:
    """The console over ``log`` and ``catalog`` (a catalogue, a registry or an executor whose
    pipeline try-it calls go through).

    ``host`` is where it will be served: any bind but ``127.0.0.1``/``localhost``/``::1``
    needs a ``token``, and with a token every request must carry it. ``read_only`` hides and
    refuses decisions and try-it calls.

    The console follows a SQLite log's file: a deleted, replaced or unreadable file is
    noticed on the next page or tick (see ``console._watch``)."""
    from toolrig.console import _pages

    if isinstance(catalog, ToolExecutor):
        executor = catalog
    else:
        executor = ToolExecutor(catalog if catalog is not None else Catalog())
    check_console_bind(host, token)  # before anything is served
    csrf = token if token is not None else new_token()
    routes = [
        Route("/", _pages.home),
        Route("/runs", _pages.runs),
        Route("/events", _pages.events),
        Route("/runs/{run_id:path}", _pages.run),
        Route("/sessions/{session_id:path}", _pages.session),
        Route("/approvals", _pages.approvals),
        Route("/approvals/decide", _pages.decide_call, methods=["POST"]),
        Route("/catalog", _pages.catalog),
        Route("/catalog/{name}", _pages.tool, methods=["GET", "POST"]),
        Route("/health", _pages.health_page),
        Route("/results/{handle}", result),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    guard = Middleware(ConsoleGuard, host=host, token=token, csrf=csrf)
    console = Starlette(routes=routes, middleware=[guard, Middleware(FollowLog)])
    console.state.console = state = Console(
        log=log,
        watch=LogWatch(log),
        catalog=executor.catalog,
        executor=executor,
        csrf=csrf,
        read_only=read_only,
        templates=templates(),
    )
    executor.catalog.add_change_listener(state.note_change)
    return console

"""``/results/<handle>``: the whole output of a result cut to its budget, as the log keeps
it (``?raw=1``: the exact text, ``text/plain``)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from toolrig.console._state import Console

__all__ = ["result"]


async def result(request: Request) -> Response:
    """One kept output, whole."""
    console: Console = request.app.state.console
    handle = request.path_params["handle"]
    text = await run_in_threadpool(console.log.read_result, handle)
    if text is None:
        return console.page(
            request, "refused.html", status=404, message=f"No result is kept as {handle!r}."
        )
    if request.query_params.get("raw"):
        return PlainTextResponse(text, headers={"Content-Disposition": "inline"})
    return console.page(request, "result.html", handle=handle, text=text, chars=len(text))

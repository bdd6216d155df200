"""The console's page handlers: each reads the request, asks one module for its data and
renders one template. State changes (decisions, try-it calls) check the form's token first."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse

from toolrig.agent._claim import AlreadyDecided
from toolrig.agent._session_policy import standing_allows
from toolrig.console._approvals import HeldCall, decide, held_calls
from toolrig.console._catalog_view import action_views, redact, search_catalog, secret_names
from toolrig.console._charts import bars, meter
from toolrig.console._guard import same_token
from toolrig.console._health import health
from toolrig.console._live import signature
from toolrig.console._run_view import run_view
from toolrig.console._runs import STATUSES, RunFilters, runs_page
from toolrig.console._session_view import message_view
from toolrig.console._state import Console
from toolrig.console._tryit import arguments_from_form, fields_of
from toolrig.console._watch import not_written
from toolrig.core.context._recording import recording
from toolrig.storage._runs import RunStatus, session_runs
from toolrig.storage._sessions import LogSessionStore
from toolrig.storage._unavailable import database_errors

__all__ = [
    "approvals",
    "catalog",
    "decide_call",
    "events",
    "health_page",
    "home",
    "run",
    "runs",
    "session",
    "tool",
]

_TICK = 0.5
"""Seconds between two looks at the log in an event stream."""


def _console(request: Request) -> Console:
    console: Console = request.app.state.console
    return console


def _refused(console: Console, request: Request, message: str, status: int = 403) -> Response:
    return console.page(request, "refused.html", status=status, message=message)


async def home(request: Request) -> Response:
    return RedirectResponse("/runs", status_code=302)


def _epoch(text: str | None) -> float | None:
    """A ``datetime-local`` value (or epoch seconds) as epoch seconds; ``None`` when empty."""
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


def _number(text: str | None) -> float | None:
    try:
        return None if not text else float(text)
    except ValueError:
        return None


def _filters(request: Request) -> RunFilters:
    q = request.query_params
    status = q.get("status") or None
    return RunFilters(
        tool=q.get("tool") or None,
        status=status if status in STATUSES else None,
        since=_epoch(q.get("since")),
        until=_epoch(q.get("until")),
    )


async def runs(request: Request) -> Response:
    console = _console(request)
    filters = _filters(request)
    before = _number(request.query_params.get("before"))
    newest = await run_in_threadpool(signature, console.log, "runs")  # before the rows:
    rows, cursor = await run_in_threadpool(runs_page, console.log, filters, before=before)
    args = {k: v for k, v in request.query_params.items() if k not in ("before", "partial")}
    template = "runs_rows.html" if request.query_params.get("partial") else "runs.html"
    return console.page(
        request,
        template,
        runs=rows,
        cursor=cursor,
        filters=filters,
        query=args,
        newest=newest,
        first_page=before is None,
        tools=sorted(console.catalog.names()),
        statuses=STATUSES,
    )


async def events(request: Request) -> Response:
    """Server-sent events for an open page (``topic``: ``runs``, ``run`` with ``run``, or
    ``approvals``): ``changed`` when what the page shows may have changed, ``log`` with a
    one-line message when the log cannot be read (empty when it can again). Each tick asks
    the log once whether anything was written (see ``console._watch``) and only then reads the
    page's signature (``console._live``)."""
    console = _console(request)
    q = request.query_params
    topic = q.get("topic", "runs")
    if topic not in ("run", "approvals"):  # echoed below: never a caller's other text
        topic = "runs"
    run_id = q.get("run")
    since = q.get("after")

    async def stream() -> AsyncIterator[str]:
        last: str | None = since  # the page's own signature: nothing to say until it moves
        version: str | None = None
        problem: str | None = "?"  # the first tick always says how the log stands
        yield f"retry: 2000\nevent: hello\ndata: {topic}\n\n"
        while not await request.is_disconnected():
            pulse = await run_in_threadpool(console.watch.check)
            if pulse.problem != problem:
                problem = pulse.problem
                yield f"event: log\ndata: {problem or ''}\n\n"
            said = False
            if problem is None and (pulse.version != version or console.watch.path is None):
                version = pulse.version
                try:
                    now: str | None = await run_in_threadpool(signature, console.log, topic, run_id)
                except Exception:  # the log broke between the look and the read
                    now = last
                if now != last:
                    if last is not None:
                        yield f"event: changed\ndata: {now}\n\n"
                        said = True
                    last = now
            if not said:
                yield ": idle\n\n"
            await asyncio.sleep(_TICK)

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


async def run(request: Request) -> Response:
    console = _console(request)
    secrets = secret_names(console.catalog)
    run_id = request.path_params["run_id"]
    live = await run_in_threadpool(signature, console.log, "run", run_id)  # a write after
    view = await run_in_threadpool(run_view, console.log, run_id, secrets)  # it is told
    if not view.spans and view.info is None:
        return _refused(console, request, "No records for this run.", 404)
    session_id = view.info.session_id if view.info is not None else None
    siblings = (
        [] if session_id is None else await run_in_threadpool(session_runs, console.log, session_id)
    )
    template = "run_body.html" if request.query_params.get("partial") else "run.html"
    return console.page(request, template, view=view, live=live, siblings=siblings)


async def session(request: Request) -> Response:
    """A stored conversation, turn by turn, and the calls it holds."""
    console = _console(request)
    session_id = request.path_params["session_id"]
    state = await run_in_threadpool(LogSessionStore(console.log).load, session_id)
    if state is None:
        return _refused(console, request, f"No stored session {session_id!r}.", 404)
    secrets = secret_names(console.catalog)
    held = await run_in_threadpool(partial(held_calls, console.log, session_id=session_id))
    held = [_masked(c, secrets.get(c.name)) for c in held]
    messages = [message_view(m, secrets) for m in state.messages]
    runs = await run_in_threadpool(session_runs, console.log, session_id)
    allowed = standing_allows(state.policy)
    return console.page(
        request,
        "session.html",
        state=state,
        messages=messages,
        held=held,
        runs=runs,
        allowed=allowed,
    )


async def approvals(request: Request) -> Response:
    console = _console(request)
    live = await run_in_threadpool(signature, console.log, "approvals")  # before the calls
    held = await run_in_threadpool(held_calls, console.log)
    secrets = secret_names(console.catalog)
    held = [_masked(c, secrets.get(c.name)) for c in held]
    destructive = {}
    editable = {c.tool_call_id: not secrets.get(c.name) for c in held}  # masked: not editable
    for call in held:
        entry = console.catalog.entry(call.name)
        destructive[call.tool_call_id] = bool(
            entry is not None and entry[0].spec.action_annotations(entry[1].name).destructive
        )
    notice = request.query_params.get("notice", "")
    return console.page(
        request,
        "approvals.html",
        held=held,
        destructive=destructive,
        editable=editable,
        notice=notice,
        live=live,
    )


def _masked(call: HeldCall, hidden: set[str] | None) -> HeldCall:
    """``call`` as a page shows it: the ``hidden`` (secret) parameters masked in its arguments
    and in the arguments an edit decided on."""
    decision = call.decision
    if decision is not None and "arguments" in decision:
        decision = {**decision, "arguments": redact(decision["arguments"], hidden)}
    return replace(call, arguments=redact(call.arguments, hidden), decision=decision)


async def decide_call(request: Request) -> Response:
    console = _console(request)
    form = await request.form()
    if console.read_only:
        return _refused(console, request, "This console is read-only: decisions are off.")
    if not same_token(_text(form.get("csrf")), console.csrf):
        return _refused(console, request, "The form's token is missing or stale: reload.")
    kind = _text(form.get("kind"))
    decision: dict[str, Any] = {"kind": kind}
    if kind == "deny":
        decision["reason"] = _text(form.get("reason")) or "Denied in the console."
    elif kind == "answer":
        raw = _text(form.get("output")) or ""
        try:
            decision["output"] = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON (or nested past the parser): text
            decision["output"] = raw
    elif kind == "edit":
        refusal = _edited(console, form, decision)
        if refusal is not None:
            return _refused(console, request, refusal, 400)
    elif kind not in ("allow", "allow_session"):
        return _refused(console, request, "Unknown decision.", 400)
    session, call = _text(form.get("session")) or "", _text(form.get("call")) or ""
    try:
        await run_in_threadpool(
            partial(decide, catalog=console.catalog), console.log, session, call, decision
        )
    except AlreadyDecided as exc:
        return console.page(request, "refused.html", status=409, message=str(exc))
    except ValueError as exc:
        return _refused(console, request, str(exc), 400)
    except database_errors() as exc:  # locked, gone, timed out: each statement its own commit
        text = not_written("The decision", console.log, exc)  # no self-reload: not sent again
        return _refused(console, request, text, 503)
    notice = quote(f"{kind}:{call}", safe=":")  # a call id is the caller's text: `&`, `#`
    return RedirectResponse(f"/approvals?notice={notice}", status_code=303)


def _edited(console: Console, form: Any, decision: dict[str, Any]) -> str | None:
    """Fill ``decision`` with the edit the form gives; why it is refused, if it is not a JSON
    object (`decide` checks it against the held call's tool)."""
    try:
        arguments = json.loads(_text(form.get("arguments")) or "")
    except (ValueError, RecursionError) as exc:  # nested past the parser: not JSON it reads
        return f"The edited arguments are not JSON: {exc}."
    if not isinstance(arguments, dict):
        return "The edited arguments must be a JSON object."
    decision["arguments"] = arguments
    decision["reason"] = _text(form.get("reason")) or None
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


async def catalog(request: Request) -> Response:
    console = _console(request)
    query = request.query_params.get("q", "").strip()
    views = action_views(console.catalog)
    if query:
        try:
            order = search_catalog(console.catalog, query)
        except ValueError as exc:  # a query search refuses (too long): say so, not a 500
            return _refused(console, request, f"Cannot search the catalogue: {exc}.", 400)
        by_name = {v.name: v for v in views}
        views = [by_name[n] for n in order if n in by_name]
    changes = list(reversed(console.changes))
    return console.page(request, "catalog.html", actions=views, query=query, changes=changes)


async def tool(request: Request) -> Response:
    console = _console(request)
    name = request.path_params["name"]
    view = next((v for v in action_views(console.catalog) if v.name == name), None)
    if view is None:
        return _refused(console, request, console.catalog.missing_message(name), 404)
    fields = fields_of(view.parameters)
    result: dict[str, Any] | None = None
    typed: dict[str, str] = {}
    if request.method == "POST":
        form = await request.form()
        if console.read_only:
            return _refused(console, request, "This console is read-only: try-it is off.")
        if not same_token(_text(form.get("csrf")), console.csrf):
            return _refused(console, request, "The form's token is missing or stale: reload.")
        typed = {k: v for k, v in form.items() if isinstance(v, str)}
        if view.destructive and typed.get("confirm") != "yes":
            return _refused(console, request, f"{name} is destructive: tick the confirmation.")
        arguments = arguments_from_form(fields, typed)
        call_id = f"console-{uuid.uuid4().hex[:12]}"
        log = console.log  # the call is a run of its own: the run id is the call id
        scope = await run_in_threadpool(log.start_run, call_id, "console", name="try-it")
        with recording(scope):
            outcome = await console.executor.execute(name, arguments, tool_call_id=call_id)
        status = RunStatus.SUCCEEDED if outcome.success else RunStatus.FAILED
        await run_in_threadpool(log.finish_run, call_id, status)
        result = outcome.to_dict()
        typed = {f.name: typed.get(f.name, "") for f in fields if not f.secret}
    return console.page(
        request, "tool.html", action=view, fields=fields, result=result, typed=typed
    )


async def health_page(request: Request) -> Response:
    console = _console(request)
    figures = await run_in_threadpool(health, console.log)
    chart = bars([c for _, c in figures.per_minute], label="calls per minute, last hour")
    meters = {t.tool: meter(t.error_rate) for t in figures.tools}
    return console.page(request, "health.html", h=figures, chart=chart, meters=meters)

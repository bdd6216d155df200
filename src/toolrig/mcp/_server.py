"""``ToolServer``: a catalogue's tools as an MCP server (``tools/list`` and ``tools/call``).

Built on the SDK's low-level ``Server``, whose handlers read the tool set at request time, so
a catalogue that changes under hot reload needs no re-registration. Calls run through a
toolrig executor (validation, timeouts, retries); a failed call is a result with ``isError``,
its text for the model and the structured error under ``_meta["toolrig/error"]``; an unknown
tool is the protocol's error (-32602) with the catalogue's not-found message. Connected
clients are told ``tools/list_changed`` when the catalogue changes; a client's
``notifications/cancelled`` cancels the running call.

A tool's context speaks to the caller (see ``_client_hooks``): progress, logs at the level
the client set with ``logging/setLevel``, elicitation and sampling. ``completion/complete``
completes tool arguments, and a mounted MCP server answers resources and prompts (see
``_features``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.streamable_http import EventStore
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolrig.core.context._interaction import tool_interaction
from toolrig.core.context._recording import Recording, current_recording, recording
from toolrig.core.result._result import ToolResult, to_jsonable
from toolrig.mcp._client_hooks import ClientHooks
from toolrig.mcp._event_store import InMemoryEventStore
from toolrig.mcp._features import Completer, LogLevels, complete_tool_argument, mount
from toolrig.mcp._results import serve_results
from toolrig.mcp._rounds import InputRounds, RoundHooks, UntilAnswered
from toolrig.mcp._scopes import ScopeCheck
from toolrig.mcp._task_listen import TaskListen
from toolrig.mcp._tasks import ServerTasks, TaskPolicy
from toolrig.providers._mcp_format import ERROR_META_KEY, format_mcp_result, to_mcp_tools
from toolrig.providers._names import ExportedAction, NameMap
from toolrig.registry._catalog import Catalog
from toolrig.registry._events import ChangeEvent, ChangeKind
from toolrig.runtime._budget import DEFAULT_RESULT_CHARS, result_budget
from toolrig.runtime._executor import ToolExecutor

if TYPE_CHECKING:
    from mcp.server.context import CallNext

__all__ = ["ToolServer"]

logger = logging.getLogger("toolrig.mcp")


@dataclass(frozen=True, slots=True)
class _Listing:
    """The exported tools at one moment: keyed by the identity of the catalogue's tools."""

    key: tuple[int, ...]
    names: NameMap
    listing: dict[str, Any]


class _Server(Server[Any]):
    """The low-level server, advertising ``tools.listChanged`` on every transport."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


class ToolServer:
    """Serves the tools of a `Catalog` (such as a ``Registry``) over
    MCP; run it with `serve` (or ``serve_stdio`` / ``serve_http``).

    Calls run through ``executor``: give one over the same catalogue to choose its policy
    (time limits, retries, middleware); without one, ``ToolExecutor(catalog)`` is built here
    and closed with the server. An executor given alone is served through its catalogue.
    Changes to the catalogue (hot reload, ``add``, ``remove``) reach connected clients as
    ``notifications/tools/list_changed``; `notify_tools_changed` tells them explicitly.

    ``resources``: an MCP server (``mcp.server.MCPServer``) whose resources, prompts and
    completions are served here too. ``completers``: ``{tool: {argument: completer}}`` for
    ``completion/complete`` on tool arguments (arguments with an ``enum`` need none).
    ``max_result_chars``: each call's result budget (``None``: none; see docs/context.md).
    ``input_rounds``: how 2026-07-28 calls ask for input (the sealing key, the state's
    lifetime); by default a key made for this server (give one shared key to several workers).
    ``tasks``: which tools are called as MCP tasks (see ``_tasks``; by default those placed in
    child processes or on queues).
    """

    def __init__(
        self,
        catalog: Catalog | ToolExecutor,
        executor: ToolExecutor | None = None,
        *,
        name: str = "toolrig",
        version: str | None = None,
        instructions: str | None = None,
        resources: Any = None,
        completers: Mapping[str, Mapping[str, Completer]] | None = None,
        input_rounds: InputRounds | None = None,
        tasks: TaskPolicy | None = None,
        max_result_chars: int | None = DEFAULT_RESULT_CHARS,
    ) -> None:
        from toolrig import __version__

        if isinstance(catalog, ToolExecutor):
            if executor is not None:
                raise TypeError("give a catalogue and an executor, or an executor alone")
            executor, catalog = catalog, catalog.catalog
        self.catalog: Catalog = catalog
        """The tools served."""
        self._owns_executor = executor is None
        self.executor: ToolExecutor = executor if executor is not None else ToolExecutor(catalog)
        """What runs the calls."""
        self._listing: _Listing | None = None
        self._sessions: dict[int, ServerSession] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._notify_pending = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._bus = InMemorySubscriptionBus()
        self.tasks = ServerTasks(tasks or TaskPolicy())
        """The calls run as MCP tasks (the ``io.modelcontextprotocol/tasks`` extension)."""
        self.server: Server[Any] = _Server(
            name,
            version=version or __version__,
            instructions=instructions,
            on_subscriptions_listen=TaskListen(self._bus, self.tasks),
        )
        self.server.add_request_handler(
            "tools/list", mcp_types.PaginatedRequestParams, self._list_tools
        )
        self.server.add_request_handler(
            "tools/call", mcp_types.CallToolRequestParams, self._call_tool
        )
        self._log_levels = LogLevels()
        self.server.add_request_handler(
            "logging/setLevel", mcp_types.SetLevelRequestParams, self._log_levels.set_level
        )
        self.event_store: EventStore | None = InMemoryEventStore()
        """Over HTTP: the events of each SSE stream, so a client reconnecting with
        ``Last-Event-ID`` gets the rest of a call (``None``: streams are not resumable)."""
        self.retry_interval_ms: int | None = 1000
        """Over HTTP: the reconnection delay suggested to clients (the SSE ``retry`` field)."""
        self._completers = dict(completers or {})
        self._mounted_completion = None if resources is None else mount(self.server, resources)
        serve_results(self.server, lambda: self.recording or current_recording(), modern)
        self.max_result_chars = max_result_chars
        """Each call's result budget (a tool's own ``max_result_chars`` wins): a cut result
        carries a ``resource_link`` to the whole, readable through ``resources/read``."""
        self.server.add_request_handler(
            "completion/complete", mcp_types.CompleteRequestParams, self._complete
        )
        self.server.middleware.append(self._track_session)
        self.input_rounds: InputRounds = input_rounds or InputRounds()
        """Input-required rounds of 2026-07-28 calls (see ``_rounds``)."""
        self.server.middleware.append(self.input_rounds.boundary(name))
        self.tasks.install(self.server)
        self.recording: Recording | None = None
        """Where the calls served are recorded (an execution log's run, ``log.start_run``);
        ``None``: in the run open where the server runs, if any."""
        self.scopes = ScopeCheck()  # OAuth scopes checked on listing and calls (see _auth)
        self.tasks.reaches = lambda ctx, call: self.scopes.reaches(self._current().names, call, ctx)
        self._listener = self._on_change  # one bound method, to remove the same object later
        self.catalog.add_change_listener(self._listener)
        self._closed = False

    def close(self) -> None:
        """Stop following the catalogue (which stays open, as does an executor given here)."""
        if self._closed:
            return
        self._closed = True
        self.catalog.remove_change_listener(self._listener)
        if self._owns_executor:
            self.executor.close()

    # -- the tool set ------------------------------------------------------------------------
    def _current(self) -> _Listing:
        tools = self.catalog.tools()
        key = tuple(id(t) for t in tools)
        listing = self._listing
        if listing is None or listing.key != key:
            names = NameMap.from_tools(tools)
            listing = self._listing = _Listing(
                key=key, names=names, listing={"tools": to_mcp_tools(names)}
            )
        return listing

    def list_tools(self) -> list[mcp_types.Tool]:
        """The MCP tool definitions currently served."""
        return [mcp_types.Tool.model_validate(t) for t in self._current().listing["tools"]]

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams
    ) -> HandlerResult:
        listing = self._current()  # a caller sees only what it may call:
        tools = self.scopes.visible(list(listing.listing["tools"]), listing.names, ctx)
        return modern({"tools": tools}, ctx, cacheable=True)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> HandlerResult:
        listing = self.scopes.admit(params.name, self._current(), ctx)  # FORBIDDEN, or shrunk
        entry = _listed(params.name, listing)
        spec = entry.tool
        if self.tasks.route(
            ctx, self.tasks.policy.support(spec.name, spec.isolation, spec.runs_on)
        ):
            return await self.tasks.start(
                ctx,
                params,
                call_name=entry.call_name,
                executor=self.executor,
                scope=self.recording or current_recording(),
                rounds=self.input_rounds,
                answer=lambda result: call_result(result, listing.names),
                budget=self.max_result_chars,
            )
        hooks = ClientHooks(ctx, self._log_levels.of(ctx))
        keywords = vars_of(hooks)
        rounds: RoundHooks | None = None
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:  # questions become results
            answers = self.input_rounds.resume(params)
            rounds = RoundHooks(answers, ctx.session.client_capabilities, hooks.interaction())
            keywords.update(elicitor=rounds.elicit, sampler=rounds.sample, roots=rounds.roots)
        scope, kept = self.recording or current_recording(), None
        if rounds is not None and scope is not None:
            kept = UntilAnswered(scope.sink)
            scope = scope.narrowed(sink=kept)
        try:
            with (
                tool_interaction(**keywords),
                recording(scope),
                result_budget(self.max_result_chars),
            ):
                result = await self.executor.execute(
                    entry.call_name, params.arguments or {}, progress=hooks.progress
                )
        except BaseException:
            hooks.relay.abandon()
            raise
        finally:
            if kept is not None:  # a round that stopped at a question is not the call's end
                kept.flush(asked=rounds is not None and bool(rounds.open))
        await hooks.relay.flush()
        if rounds is not None and rounds.open:
            return self.input_rounds.ask(rounds)
        if rounds is not None and rounds.missing and result.error is not None:
            raise self.input_rounds.missing_capability(rounds)
        with recording(scope):  # a cut result's whole is read where it was kept
            return modern(call_result(result, listing.names), ctx)

    async def call_without_channel(
        self, name: str, arguments: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """The ``CallToolResult`` of one call whose client cannot be spoken to during it (the
        stateless JSON path: no progress, logs, elicitation or sampling reach it). Raises
        `MCPError` (-32602) for an unknown tool, like ``tools/call``."""
        listing = self.scopes.admit(name, self._current())  # the caller: the SDK's auth context
        entry = _listed(name, listing)
        with (
            recording(self.recording or current_recording()),
            result_budget(self.max_result_chars),
        ):
            result = await self.executor.execute(entry.call_name, arguments or {})
            return call_result(result, listing.names)

    async def _complete(
        self, ctx: ServerRequestContext[Any], params: mcp_types.CompleteRequestParams
    ) -> HandlerResult:
        ref, argument = params.ref, params.argument
        listing = self.scopes.narrowed(self._current(), ctx)  # hidden tools are not completed
        if isinstance(ref, mcp_types.PromptReference) and _is_listed(ref.name, listing):
            others = params.context.arguments or {} if params.context is not None else {}
            values = complete_tool_argument(
                listing.names, ref.name, argument.name, argument.value, others, self._completers
            )
            completion = {"values": values, "total": len(values), "hasMore": False}
            return modern({"completion": completion}, ctx)
        if self._mounted_completion is not None:
            answer: HandlerResult = await self._mounted_completion(ctx, params)
            return answer
        return modern({"completion": {"values": [], "hasMore": False}}, ctx)

    # -- change notifications ----------------------------------------------------------------
    async def _track_session(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Remember each handshake-era connection once it is initialized, to notify it later;
        2026-era clients subscribe through ``subscriptions/listen`` instead (the loop is kept
        on every request, so a server only they reach still publishes changes)."""
        self._loop = asyncio.get_running_loop()
        result = await call_next(ctx)
        if ctx.method != "initialize" and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            connection = getattr(ctx.session, "_connection", None)  # no public accessor in 2.3
            key = id(connection if connection is not None else ctx.session)
            if key not in self._sessions:
                self._sessions[key] = ctx.session
                if connection is not None:
                    connection.exit_stack.callback(self._sessions.pop, key, None)
        return result

    def _on_change(self, event: ChangeEvent) -> None:
        if event.kind is not ChangeKind.FAILED:
            self.notify_tools_changed()

    def notify_tools_changed(self) -> None:
        """Tell every connected client the tool list changed (callable from any thread;
        a burst of changes is sent as one notification)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._schedule_notify)

    def _schedule_notify(self) -> None:
        if self._notify_pending:
            return
        self._notify_pending = True
        task = asyncio.get_running_loop().create_task(self._send_list_changed())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send_list_changed(self) -> None:
        self._notify_pending = False
        for key, session in list(self._sessions.items()):
            try:
                await session.send_tool_list_changed()
            except Exception:
                logger.debug("dropping an MCP connection that cannot be notified", exc_info=True)
                self._sessions.pop(key, None)
        await self._bus.publish(ToolsListChanged())


def _is_listed(name: str, listing: _Listing) -> bool:
    entry = listing.names.lookup(name)
    return entry is not None and entry.provider_name == name


def _listed(name: str, listing: _Listing) -> ExportedAction:
    """The action ``tools/list`` shows as ``name``; any other name (the catalogue's own
    ``todo.add`` for the listed ``todo__add`` too) is the protocol's error (-32602), so a
    client calls only what it was shown."""
    entry = listing.names.lookup(name)
    if entry is not None and entry.provider_name == name:
        return entry
    raise MCPError(code=mcp_types.INVALID_PARAMS, message=_missing(name, listing))


def _missing(name: str, listing: _Listing) -> str:
    """Why ``name`` names no tool, in the names MCP clients see (``todo__add``, not the
    catalogue's ``todo.add``): what they sent and the closest names they can send."""
    from toolrig.core.model._suggest import closest

    other = listing.names.lookup(name)
    if other is not None:  # the catalogue's call name of a listed action
        return (
            f"Tool {name!r} is not listed: MCP clients call it by its listed name "
            f"{other.provider_name!r}."
        )
    names = sorted(entry.provider_name for entry in listing.names)
    message = f"Tool {name!r} not found."
    near = closest(name, names)
    if near:
        message += f" Did you mean {' or '.join(repr(n) for n in near)}?"
    more = f" and {len(names) - 50} more" if len(names) > 50 else ""
    return f"{message} Available: {', '.join(names[:50]) or '(none)'}{more}."


def call_result(result: ToolResult, names: NameMap) -> dict[str, Any]:
    """The ``CallToolResult`` of ``result``: `format_mcp_result` plus, for a failure, the
    structured error under ``_meta["toolrig/error"]`` (not ``structuredContent``, which clients
    may check against the tool's output schema)."""
    data = format_mcp_result(result, tools=names)
    if result.error is not None:
        data["_meta"] = {ERROR_META_KEY: to_jsonable(result.error.to_dict(drop_empty=True))}
    return data


def modern(
    result: dict[str, Any], ctx: ServerRequestContext[Any], *, cacheable: bool = False
) -> dict[str, Any]:
    """``result`` with the fields the 2026-07-28 protocol requires (``resultType``, and for
    cacheable results ``ttlMs`` and ``cacheScope``: never cached, private), on sessions of that
    era; older sessions get it unchanged."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return result
    extra: dict[str, Any] = {"resultType": "complete"}
    if cacheable:
        extra.update(ttlMs=0, cacheScope="private")
    return {**extra, **result}


def vars_of(hooks: ClientHooks) -> dict[str, Any]:
    """The keywords of `tool_interaction` for ``hooks``."""
    return {
        "elicitor": hooks.elicit,
        "sampler": hooks.sample,
        "log": hooks.log,
        "roots": hooks.roots,
    }

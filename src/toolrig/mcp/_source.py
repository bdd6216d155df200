"""Remote MCP servers as tool sources: ``add_mcp_server(catalog, prefix=..., command | url)``.

An `MCPToolSource` lists a server's tools over its connection to it and keeps them in
a catalogue as ``prefix__name``, where any executor over the catalogue runs them like any
tool: arguments validated locally, timeouts (a timed-out call is cancelled remotely too),
retries and structured errors, with the server's progress reported to the call's context.
The list follows the server's ``notifications/tools/list_changed``. A server that dies fails
the call with ``execution_error`` naming the cause (retryable); the next call reconnects.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Unpack

import mcp_types
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolrig.core.context._context import ToolContext
from toolrig.core.context._interaction import Interaction, current_interaction
from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ErrorCode, ToolDefinitionError, ToolError
from toolrig.mcp._connection import Connection, first_error
from toolrig.mcp._input_loop import call_answering
from toolrig.mcp._params import ServerKeywords, ServerParams
from toolrig.mcp._remote import build_remote_tool, local_name, validate_prefix
from toolrig.providers._mcp_format import ERROR_META_KEY
from toolrig.registry._catalog import Catalog

__all__ = ["MCPToolSource", "add_mcp_server", "add_mcp_server_async"]

logger = logging.getLogger("toolrig.mcp")


class MCPToolSource:
    """One remote MCP server whose tools live in a catalogue (such as a ``Registry``, or an
    executor's ``executor.catalog``) under ``prefix``.

    Describe the server with ``params`` (a `ServerParams`), with its
    fields as keywords, or both (the keywords replace those fields): ``command`` (a program,
    or ``[program, *args]``) for stdio, or ``url`` for streamable HTTP (``token`` adds
    ``Authorization: Bearer``). Start it with `start` (blocking) or `astart`;
    `close` disconnects and removes its tools. A name already taken by a tool the source
    did not add is left alone (the remote tool is skipped, see `skipped`).
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        prefix: str,
        params: ServerParams | None = None,
        **keywords: Unpack[ServerKeywords],
    ) -> None:
        params = ServerParams(**keywords) if params is None else replace(params, **keywords)
        self.prefix = validate_prefix(prefix)
        self.catalog = catalog
        """Where the remote tools are added."""
        self.params = params
        """The server, as described when the source was made."""
        self.label = params.label
        self.url = params.url
        self.timeout = params.timeout
        self.max_retries = params.max_retries
        self.tools: dict[str, str] = {}
        """Local name in the catalogue → remote tool name."""
        self._added: dict[str, BaseTool] = {}
        self.skipped: dict[str, str] = {}
        """Remote tools that could not be imported → why."""
        self._active: list[ToolContext] = []  # calls in flight, latest last
        self._started_in = current_interaction()
        self._connection = Connection(
            params, name=prefix, on_tools_changed=self._tools_changed, hooks=self._hooks
        )
        self._refreshing: asyncio.Task[None] | None = None
        self._swap_lock = threading.Lock()
        self._closed = False

    @property
    def connect_timeout(self) -> float:
        """Seconds to connect and initialize the session."""
        return self._connection.connect_timeout

    @connect_timeout.setter
    def connect_timeout(self, seconds: float) -> None:
        self._connection.connect_timeout = seconds

    @property
    def protocol_version(self) -> str | None:
        """The protocol version spoken with the server (``None`` before connecting): a
        2025 revision after the ``initialize`` handshake, or ``2026-07-28``."""
        return self._connection.protocol_version

    @property
    def _thread(self) -> threading.Thread:
        """The connection's loop thread (alive until `close`)."""
        return self._connection.thread

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> MCPToolSource:
        """Connect, list the remote tools and add them to the catalogue (blocking)."""
        self._connection.run(self._refresh())
        return self

    async def astart(self) -> MCPToolSource:
        """Async `start`."""
        await self._connection.call(self._refresh())
        return self

    def refresh(self) -> None:
        """List the remote tools again and bring those in the catalogue up to date (blocking)."""
        self._connection.run(self._refresh())

    def close(self, *, remove_tools: bool = True) -> None:
        """Disconnect (stopping a stdio server) and, unless told otherwise, remove the tools."""
        if self._closed:
            return
        self._closed = True
        if remove_tools:
            self._apply({})
        self._connection.close()

    def __enter__(self) -> MCPToolSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<MCPToolSource {self.prefix!r} {self.label!r} tools={len(self.tools)}>"

    # -- the list of tools (runs on the connection's loop) -----------------------------------
    def _tools_changed(self) -> None:
        if not self._closed and (self._refreshing is None or self._refreshing.done()):
            self._refresh_in_background()

    def _refresh_in_background(self) -> None:
        self._refreshing = asyncio.get_running_loop().create_task(self._refresh_quietly())

    async def _refresh_quietly(self) -> None:
        try:
            await self._refresh()
        except Exception:
            logger.warning("refreshing the tools of %s failed", self.label, exc_info=True)

    async def _list(self) -> list[mcp_types.Tool]:
        session = await self._connection.session()
        tools: list[mcp_types.Tool] = []
        cursor: str | None = None
        seen: set[str] = set()  # a cursor given twice would make the list endless
        try:
            while True:
                params = None if cursor is None else mcp_types.PaginatedRequestParams(cursor=cursor)
                page = await session.list_tools(params=params)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    return tools
                if cursor in seen:
                    raise ToolError(
                        f"the MCP server {self.label} gave the cursor {cursor!r} of its tool "
                        f"list twice (after {len(seen) + 1} pages): its list never ends",
                        code=ErrorCode.EXECUTION_ERROR,
                    )
                seen.add(cursor)
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                self._connection.drop(session)
            raise

    async def _refresh(self) -> None:
        remote = await self._list()
        built: dict[str, BaseTool] = {}
        names: dict[str, str] = {}
        skipped: dict[str, str] = {}
        for item in remote:
            name = local_name(self.prefix, item.name)
            if name in names:
                skipped[item.name] = f"its name collides with `{names[name]}` as {name!r}"
                continue
            try:
                built[name] = build_remote_tool(
                    item,
                    name=name,
                    call=self._call,
                    source=self.label,
                    timeout=self.timeout,
                    max_retries=self.max_retries,
                )
            except ToolDefinitionError as exc:
                skipped[item.name] = str(exc)
                continue
            names[name] = item.name
        for remote_name, why in skipped.items():
            logger.warning("skipping MCP tool %r of %s: %s", remote_name, self.label, why)
        refused = self._apply(built)
        for name, why in refused.items():
            skipped[names.pop(name)] = why
        self.tools, self.skipped = names, skipped

    def _apply(self, tools: Mapping[str, BaseTool]) -> dict[str, str]:
        """Make ``tools`` this source's tools in the catalogue, in one swap: the new ones in,
        its others out. Returns the names it could not add, with why."""
        catalog = self.catalog
        with self._swap_lock:
            ours = {n: t for n, t in self._added.items() if catalog.find(n) is t}
            refused: dict[str, str] = {}
            add: dict[str, BaseTool] = {}
            for name, tool in tools.items():
                if name in catalog and name not in ours:
                    refused[name] = f"the name {name!r} is taken by another tool"
                else:
                    add[name] = tool
            remove = set(ours) - set(add)
            try:
                catalog.swap(add=list(add.values()), remove=remove)
            except ToolDefinitionError:  # one of them collides: add those that do not
                catalog.swap(remove=remove)
                for name, tool in list(add.items()):
                    try:
                        catalog.swap(add=[tool])
                    except ToolDefinitionError as exc:
                        refused[name] = str(exc)
                        del add[name]
            self._added = add
        for name, why in refused.items():
            logger.warning("cannot add MCP tool %r: %s", name, why)
        return refused

    # -- calls -------------------------------------------------------------------------------
    async def _call(
        self, remote_name: str, arguments: dict[str, Any], ctx: ToolContext | None
    ) -> mcp_types.CallToolResult:
        if ctx is not None:
            self._active.append(ctx)
        try:
            return await self._connection.call(self._call_here(remote_name, arguments, ctx))
        finally:
            if ctx is not None:
                self._active.remove(ctx)

    def _hooks(self) -> Interaction:
        """Who answers the server's elicitation and sampling requests and takes its logs: the
        hooks given with the server, else those of the latest call in flight, else those in
        effect when the source was made."""
        start = self._started_in
        active = self._active[-1].interaction if self._active else start
        return replace(
            active,
            elicitor=self.params.elicitor or active.elicitor or start.elicitor,
            sampler=self.params.sampler or active.sampler or start.sampler,
        )

    async def _call_here(
        self, remote_name: str, arguments: dict[str, Any], ctx: ToolContext | None
    ) -> mcp_types.CallToolResult:
        try:
            session = await self._connection.session()
        except Exception as exc:  # includes TimeoutError
            raise self._unavailable(exc) from None

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            if ctx is not None:
                ctx.report_progress(progress, total, message)

        try:
            if session.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                result = await session.call_tool(remote_name, arguments, progress_callback=progress)
            else:
                result = await call_answering(
                    session,
                    remote_name,
                    arguments,
                    progress=progress,
                    max_rounds=self.params.max_input_rounds,
                    timeout=self.params.input_timeout,
                    label=self.label,
                )
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED or not self._connection.holds(session):
                self._connection.drop(session)  # lost, or no longer known to the server
                raise self._unavailable(exc) from None
            if exc.code == mcp_types.INVALID_PARAMS and _names_no_tool(exc.message):
                self._refresh_in_background()
                raise ToolError(
                    f"the MCP server {self.label} no longer has the tool `{remote_name}`: "
                    f"{exc.message}",
                    code=ErrorCode.NOT_FOUND,
                ) from None
            raise ToolError(
                f"the MCP server {self.label} refused the call to `{remote_name}`: {exc.message}"
            ) from None
        except (OSError, RuntimeError) as exc:
            self._connection.drop(session)
            raise self._unavailable(exc) from None
        if _answers_no_tool(result, remote_name):  # the SDK's MCPServer says so in the result
            self._refresh_in_background()
            raise ToolError(
                f"the MCP server {self.label} no longer has the tool `{remote_name}`: "
                f"Unknown tool: {remote_name}",
                code=ErrorCode.NOT_FOUND,
            )
        return result

    def _unavailable(self, exc: BaseException) -> ToolError:
        cause = first_error(exc)
        detail = str(cause) or type(cause).__name__
        return ToolError(
            f"the MCP server {self.label} is unavailable: {type(cause).__name__}: {detail}",
            code=ErrorCode.EXECUTION_ERROR,
            hint="The connection was lost; the next call reconnects.",
            retryable=True,
        )


def _names_no_tool(message: str) -> bool:
    """Whether an invalid-params error says the tool does not exist (toolrig servers answer
    "Tool 'x' not found", others "Unknown tool: x"), rather than something the arguments
    name ("Issue 42 not found")."""
    lowered = message.lower()
    return "unknown tool" in lowered or ("tool" in lowered and "not found" in lowered)


def _answers_no_tool(result: mcp_types.CallToolResult, remote_name: str) -> bool:
    """Whether ``result`` is the error the ``mcp`` SDK's ``MCPServer`` answers for a tool it
    does not have: ``isError`` with the one text ``Unknown tool: <name>`` (no toolrig error)."""
    if not result.is_error or ERROR_META_KEY in (result.meta or {}):
        return False
    texts = [b.text for b in result.content if isinstance(b, mcp_types.TextContent)]
    return len(texts) == len(result.content) and "".join(texts) == f"Unknown tool: {remote_name}"


def add_mcp_server(
    catalog: Catalog,
    *,
    prefix: str,
    params: ServerParams | None = None,
    **keywords: Unpack[ServerKeywords],
) -> MCPToolSource:
    """Connect to an MCP server (``command`` for stdio, ``url`` for streamable HTTP, given as
    keywords or as ``params``: see `ServerParams`) and add its tools to
    ``catalog`` (such as a ``Registry``) as ``prefix__name``; returns the running source
    (``.close()``). A registry closes the source when it closes itself.

    ``timeout`` and ``max_retries`` apply to each imported tool. Blocks while connecting; in
    async code use `add_mcp_server_async`.
    """
    source = MCPToolSource(catalog, prefix=prefix, params=params, **keywords)
    try:
        source.start()
    except BaseException:
        source.close()
        raise
    return _owned(catalog, source)


async def add_mcp_server_async(
    catalog: Catalog,
    *,
    prefix: str,
    params: ServerParams | None = None,
    **keywords: Unpack[ServerKeywords],
) -> MCPToolSource:
    """Async `add_mcp_server`."""
    source = MCPToolSource(catalog, prefix=prefix, params=params, **keywords)
    try:
        await source.astart()
    except BaseException:
        await asyncio.to_thread(source.close)
        raise
    return _owned(catalog, source)


def _owned(catalog: Catalog, source: MCPToolSource) -> MCPToolSource:
    """``source``, handed to ``catalog`` to close when it closes (when it can: a ``Registry``)."""
    own = getattr(catalog, "own", None)
    if callable(own):
        own(source.close)
    return source

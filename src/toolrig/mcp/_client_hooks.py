"""A tool's context, served over MCP: its progress, logs, elicitation and sampling go to the
client that made the call.

`ClientHooks` is the `Interaction` of one
``tools/call``: logs become ``notifications/message`` at or above the level the client chose
(``logging/setLevel``; on 2026-07-28 sessions, the level the request opted into), elicitation
an ``elicitation/create`` request and sampling a ``sampling/createMessage`` request, both tied
to the call (on 2025-era sessions; 2026-07-28 calls ask through input-required rounds
instead, see ``_rounds``). A client that did not declare the capability answers nothing, so
the tool gets ``permission_denied`` (elicitation) or ``not_supported`` (sampling) at once
instead of waiting.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, TypeVar

import mcp_types
from mcp.server.connection import allowed_log_levels
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolrig.core.context._interaction import (
    LOG_LEVELS,
    Elicitation,
    Interaction,
    LogLevel,
    Root,
    SampleMessage,
)
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.mcp._relay import Relay

__all__ = ["ClientHooks", "check_form", "nested_fields"]

T = TypeVar("T")


class ClientHooks:
    """Progress, logs, elicitation and sampling of one call, sent to the calling client."""

    def __init__(self, ctx: ServerRequestContext[Any], min_level: LogLevel) -> None:
        self._session = ctx.session
        self._request_id = ctx.request_id
        self._loop = asyncio.get_running_loop()
        allowed = allowed_log_levels(ctx.protocol_version, ctx.meta)
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS  # the request chose its level
        floor = 0 if modern else LOG_LEVELS.index(min_level)
        self._levels = frozenset(lvl for lvl in LOG_LEVELS[floor:] if lvl in allowed)
        self.relay = Relay()
        """Ordered sends of this call's notifications (flushed before its result)."""

    def interaction(self) -> Interaction:
        """The hooks to run the call with."""
        return Interaction(
            elicitor=self.elicit, sampler=self.sample, log=self.log, roots=self.roots
        )

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Relay a progress report (a no-op for callers that sent no progress token)."""
        value, whole = float(progress), None if total is None else float(total)
        self.relay.send(lambda: self._session.report_progress(value, whole, message))

    def log(self, level: LogLevel, data: Any, logger: str | None) -> None:
        """Relay a log message when the client wants that level."""
        if level not in self._levels:
            return
        notification = mcp_types.LoggingMessageNotification(
            params=mcp_types.LoggingMessageNotificationParams(
                level=level, data=data if _is_json(data) else str(data), logger=logger
            )
        )
        self.relay.send(
            lambda: self._session.send_notification(
                notification, related_request_id=self._request_id
            )
        )

    async def _on_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        if asyncio.get_running_loop() is self._loop:
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    def _capabilities(self) -> mcp_types.ClientCapabilities | None:
        return self._session.client_capabilities

    async def _elicit(self, message: str, schema: dict[str, Any]) -> mcp_types.ElicitResult:
        await self.relay.flush()  # what the tool logged first arrives first
        return await self._session.elicit_form(message, schema, self._request_id)

    async def _sample(
        self, wire: list[mcp_types.SamplingMessage], system: str | None, max_tokens: int
    ) -> mcp_types.CreateMessageResult | mcp_types.CreateMessageResultWithTools:
        await self.relay.flush()
        with warnings.catch_warnings():  # deprecated only from 2026-07-28 on
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            request = self._session.create_message(
                wire,
                max_tokens=max_tokens,
                system_prompt=system,
                related_request_id=self._request_id,
            )
        return await request

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicitation:
        """Ask the client's user (``elicitation/create``, form mode)."""
        check_form(self._capabilities(), message, schema)
        try:
            answer = await self._on_loop(self._elicit(message, dict(schema)))
        except MCPError as exc:
            raise ToolError(f"the MCP client did not answer the elicitation: {exc}") from exc
        content = None if answer.content is None else dict(answer.content)
        return Elicitation(action=answer.action, content=content)

    async def sample(
        self, messages: Sequence[SampleMessage], system: str | None, max_tokens: int
    ) -> str:
        """Ask the client's model (``sampling/createMessage``) and return its text."""
        caps = self._capabilities()
        if caps is None or caps.sampling is None:
            raise ToolError(
                "the MCP client offers no language model (no sampling capability)",
                code=ErrorCode.NOT_SUPPORTED,
                hint="use a client that supports sampling",
            )
        wire = [
            mcp_types.SamplingMessage(
                role="assistant" if m.get("role") == "assistant" else "user",
                content=mcp_types.TextContent(type="text", text=str(m.get("content", ""))),
            )
            for m in messages
        ]
        try:
            answer = await self._on_loop(self._sample(wire, system, max_tokens))
        except MCPError as exc:
            raise ToolError(f"the MCP client did not answer the sampling request: {exc}") from exc
        blocks = answer.content if isinstance(answer.content, list) else [answer.content]
        return "\n".join(
            b.text if isinstance(b, mcp_types.TextContent) else f"[{b.type} answer]" for b in blocks
        )

    async def roots(self) -> list[Root]:
        """The client's roots (``roots/list``)."""
        caps = self._capabilities()
        if caps is None or caps.roots is None:
            raise ToolError(
                "the MCP client offers no roots (no roots capability)",
                code=ErrorCode.NOT_SUPPORTED,
                hint="use a client that supports roots",
            )
        try:
            with warnings.catch_warnings():  # deprecated only from 2026-07-28 on
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                answer = await self._on_loop(self._session.list_roots())
        except MCPError as exc:
            raise ToolError(f"the MCP client did not list its roots: {exc}") from exc
        return [root.model_dump(mode="json", exclude_none=True) for root in answer.roots]


def check_form(caps: Any, message: str, schema: Mapping[str, Any]) -> None:
    """Raise the `ToolError` a tool gets when its question cannot be asked as an MCP form:
    the client (``caps``, its capabilities) cannot elicit, or the schema is not flat."""
    if caps is None or caps.elicitation is None:
        raise ToolError(
            f"the MCP client cannot ask its user for input ({message})",
            code=ErrorCode.PERMISSION_DENIED,
            hint="use a client that supports elicitation",
        )
    nested = nested_fields(schema)
    if nested:
        raise ToolError(
            f"the elicitation schema is not flat: {', '.join(nested)} "
            "(MCP forms hold strings, numbers, booleans and enums only)",
            hint="a fault of the tool: ask for nested data in several questions",
        )


def nested_fields(schema: Mapping[str, Any]) -> list[str]:
    """What keeps ``schema`` from being an MCP form: not an object, or fields holding objects."""
    if schema.get("type") != "object" or not isinstance(schema.get("properties", {}), Mapping):
        return ["the schema itself (it must be an object with properties)"]
    return [
        f"`{name}`"
        for name, field in schema.get("properties", {}).items()
        if not isinstance(field, Mapping) or field.get("type") == "object" or "properties" in field
    ]


def _is_json(data: Any) -> bool:
    return data is None or isinstance(data, str | int | float | bool | list | dict)

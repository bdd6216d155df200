"""The protocol around the tools: ``logging/setLevel``, ``completion/complete``, and the
resources and prompts of a mounted MCP server.

- Log levels are kept per connection (the default, ``info``, until the client chooses).
- Completion answers a tool argument from its ``enum`` (or ``const`` / boolean) values or from
  a completer given to the server. The protocol (up to 2026-07-28) can only reference prompts
  and resource templates, and the SDK refuses any other reference, so a tool is referenced as
  ``{"type": "ref/prompt", "name": <tool>}``; other prompt and resource-template references go
  to the mounted server's completion handler, and are otherwise answered with no values.
- A mounted server (an ``mcp.server.MCPServer`` or a low-level ``Server``) answers
  ``resources/*`` and ``prompts/*`` requests: toolrig serves tools, and lets the SDK's own
  decorators describe resources and prompts. Subscriptions are accepted and remembered.
"""

from __future__ import annotations

import contextlib
import json
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import mcp_types
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server

from toolrig.core.context._interaction import LogLevel
from toolrig.providers._names import NameMap

__all__ = ["MAX_COMPLETIONS", "Completer", "LogLevels", "complete_tool_argument", "mount"]

MAX_COMPLETIONS: Final = 100
"""The protocol's cap on values in one completion answer."""

DEFAULT_LEVEL: Final[LogLevel] = "info"

Completer = Callable[[str, Mapping[str, str]], Sequence[str]]
"""``completer(partial_value, other_arguments)``: candidate values for one tool argument."""

MOUNTED: Final = (
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
)


class LogLevels:
    """The log level each connection chose with ``logging/setLevel``."""

    def __init__(self) -> None:
        self._levels: weakref.WeakKeyDictionary[Any, LogLevel] = weakref.WeakKeyDictionary()

    @staticmethod
    def _key(ctx: ServerRequestContext[Any]) -> Any:
        return getattr(ctx.session, "_connection", None) or ctx.session  # no public accessor

    def of(self, ctx: ServerRequestContext[Any]) -> LogLevel:
        """The level of the connection making this request."""
        try:
            return self._levels.get(self._key(ctx), DEFAULT_LEVEL)
        except TypeError:
            return DEFAULT_LEVEL

    async def set_level(
        self, ctx: ServerRequestContext[Any], params: mcp_types.SetLevelRequestParams
    ) -> HandlerResult:
        """``logging/setLevel``: remember the level for this connection."""
        with contextlib.suppress(TypeError):  # a connection that cannot be weakly referenced
            self._levels[self._key(ctx)] = params.level
        return {}


def complete_tool_argument(
    names: NameMap,
    tool: str,
    argument: str,
    value: str,
    others: Mapping[str, str],
    completers: Mapping[str, Mapping[str, Completer]],
) -> list[str]:
    """Candidate values of ``argument`` of ``tool`` starting with ``value``: from the server's
    completer for it, else from the parameter's ``enum`` / ``const`` / boolean type."""
    entry = names.lookup(tool)
    if entry is None:
        return []
    completer = completers.get(entry.call_name, completers.get(tool, {})).get(argument)
    if completer is not None:
        values = [str(v) for v in completer(value, others)]
    else:
        prop = entry.action.parameters.get("properties", {}).get(argument, {})
        values = _schema_values(prop if isinstance(prop, dict) else {})
    return [v for v in values if v.startswith(value)][:MAX_COMPLETIONS]


def _schema_values(prop: Mapping[str, Any]) -> list[str]:
    if isinstance(prop.get("enum"), list):
        return [v if isinstance(v, str) else _json(v) for v in prop["enum"]]
    if "const" in prop:
        return [prop["const"] if isinstance(prop["const"], str) else _json(prop["const"])]
    if prop.get("type") == "boolean":
        return ["true", "false"]
    for key in ("anyOf", "oneOf"):
        if isinstance(prop.get(key), list):
            options = [o for o in prop[key] if isinstance(o, dict)]
            return [v for option in options for v in _schema_values(option)]
    items = prop.get("items")
    return _schema_values(items) if isinstance(items, dict) else []


def _json(value: Any) -> str:
    return json.dumps(value)


def mount(server: Server[Any], source: Any) -> Callable[..., Any] | None:
    """Make ``server`` answer the resource and prompt requests of ``source`` (an ``MCPServer``
    or a low-level ``Server``); returns the source's completion handler, if it has one."""
    lowlevel: Server[Any] = getattr(source, "_lowlevel_server", source)  # MCPServer wraps one
    if not isinstance(lowlevel, Server):
        raise TypeError(f"cannot mount {source!r}: give an mcp MCPServer or a low-level Server")
    for method in MOUNTED:
        entry = lowlevel.get_request_handler(method)
        if entry is not None:
            server.add_request_handler(method, entry.params_type, entry.handler)
    if lowlevel.get_request_handler("resources/list") is not None:
        subscribed: set[str] = set()

        async def subscribe(
            ctx: ServerRequestContext[Any], params: mcp_types.SubscribeRequestParams
        ) -> HandlerResult:
            subscribed.add(str(params.uri))
            return {}

        async def unsubscribe(
            ctx: ServerRequestContext[Any], params: mcp_types.UnsubscribeRequestParams
        ) -> HandlerResult:
            subscribed.discard(str(params.uri))
            return {}

        if lowlevel.get_request_handler("resources/subscribe") is None:
            server.add_request_handler(
                "resources/subscribe", mcp_types.SubscribeRequestParams, subscribe
            )
            server.add_request_handler(
                "resources/unsubscribe", mcp_types.UnsubscribeRequestParams, unsubscribe
            )
        else:
            for method in ("resources/subscribe", "resources/unsubscribe"):
                entry = lowlevel.get_request_handler(method)
                if entry is not None:
                    server.add_request_handler(method, entry.params_type, entry.handler)
    completion = lowlevel.get_request_handler("completion/complete")
    return None if completion is None else completion.handler

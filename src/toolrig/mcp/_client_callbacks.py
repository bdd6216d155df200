"""What an imported MCP server may ask of toolrig while one of its tools runs.

A remote tool behaves as a local one: when the server asks for input (``elicitation/create``),
for a model completion (``sampling/createMessage``) or sends a log message, the request goes
to the same hooks a local tool's context reaches (`Interaction`): the
elicitor given with the server (``ServerParams.elicitor``), else that of the call in flight.
Defaults the requested schema declares fill the fields an answer leaves out (SEP-1034). Where
nothing can answer, elicitation is declined and sampling refused with an error, at once.

URL-mode elicitation (the server asks the user to visit a page: a sign-in, a payment) goes to
the ``url_consent`` hook given with the server, which shows the message and the whole URL to
the user and says whether they agreed (and opened it); without one, or for a URL that is not
``https`` (``http`` on a loopback host aside), it is declined, and no URL is ever opened here.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import mcp_types
from mcp.client.session import ClientRequestContext

from toolrig.core.context._interaction import LOG_LEVELS, Interaction, LogLevel
from toolrig.mcp._params import UrlConsent

__all__ = ["ClientCallbacks", "apply_defaults", "url_is_safe"]


def url_is_safe(url: str) -> bool:
    """Whether a URL-mode request's ``url`` may be shown at all: ``https``, or ``http`` on a
    loopback host, with a host and no credentials in it."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return False
    if not host or parts.username is not None or parts.password is not None:
        return False
    if parts.scheme == "https":
        return True
    if parts.scheme != "http":
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


logger = logging.getLogger("toolrig.mcp")


def apply_defaults(schema: Mapping[str, Any], content: Mapping[str, Any] | None) -> dict[str, Any]:
    """``content`` with every property it leaves out that has a ``default`` in ``schema``."""
    filled = dict(content or {})
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, prop in properties.items():
            if name not in filled and isinstance(prop, Mapping) and "default" in prop:
                filled[name] = prop["default"]
    return filled


class ClientCallbacks:
    """The session callbacks of one connection, answering through ``hooks()`` (the hooks of
    the call in flight, or those given with the server)."""

    def __init__(
        self, hooks: Callable[[], Interaction], label: str, url_consent: UrlConsent | None = None
    ) -> None:
        self._hooks = hooks
        self._label = label
        self._url_consent = url_consent

    async def elicit(
        self, context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        """``elicitation/create``: form mode through the elicitor, URL mode through the
        ``url_consent`` hook (declined without one)."""
        if isinstance(params, mcp_types.ElicitRequestURLParams):
            consent = self._url_consent
            if consent is None or not url_is_safe(params.url):
                return mcp_types.ElicitResult(action="decline")
            agreed = await consent(params.message, params.url)
            return mcp_types.ElicitResult(action="accept" if agreed is True else "decline")
        elicitor = self._hooks().elicitor
        if not isinstance(params, mcp_types.ElicitRequestFormParams) or elicitor is None:
            return mcp_types.ElicitResult(action="decline")
        schema = dict(params.requested_schema)
        answer = await elicitor(params.message, schema)
        if answer.action != "accept":
            return mcp_types.ElicitResult(action=answer.action)
        return mcp_types.ElicitResult(
            action="accept", content=apply_defaults(schema, answer.content)
        )

    async def sample(
        self, context: ClientRequestContext, params: mcp_types.CreateMessageRequestParams
    ) -> mcp_types.CreateMessageResult | mcp_types.ErrorData:
        """``sampling/createMessage`` through the sampler (text messages)."""
        sampler = self._hooks().sampler
        if sampler is None:
            return mcp_types.ErrorData(
                code=mcp_types.INVALID_REQUEST,
                message="no language model is available to this client",
            )
        messages = []
        for message in params.messages:
            blocks = message.content if isinstance(message.content, list) else [message.content]
            text = "\n".join(
                b.text if isinstance(b, mcp_types.TextContent) else f"[{b.type}]" for b in blocks
            )
            messages.append({"role": message.role, "content": text})
        text = await sampler(messages, params.system_prompt, params.max_tokens)
        return mcp_types.CreateMessageResult(
            role="assistant",
            content=mcp_types.TextContent(type="text", text=text),
            model="toolrig",
            stop_reason="endTurn",
        )

    async def log(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        """A server's log message, to the log hook (named after the server)."""
        level: LogLevel = params.level if params.level in LOG_LEVELS else "info"
        try:
            self._hooks().log(level, params.data, params.logger or f"mcp:{self._label}")
        except Exception:
            logger.debug("a log hook failed", exc_info=True)

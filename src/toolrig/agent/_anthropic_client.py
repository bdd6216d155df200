"""Anthropic Messages through the official ``anthropic`` SDK.

Streaming uses the SDK's ``messages.stream`` helper: its ``text`` events are the deltas and
its final message (tool_use blocks put together from their JSON pieces) is the turn.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Sequence
from typing import Any

from toolrig.agent._client import Conversation, LLMClient, LLMTurn, StreamEvent, TextDelta, Usage
from toolrig.agent._config import LLMConfig, LLMConfigError
from toolrig.agent._sdk_request import checked_settings, import_sdk, with_tools
from toolrig.core.result._result import ToolResult
from toolrig.providers._anthropic import (
    format_anthropic_results,
    parse_anthropic_calls,
    to_anthropic_tools,
)
from toolrig.providers._names import NameMap, ToolSource
from toolrig.providers._turns import assistant_turn

__all__ = ["AnthropicClient"]

_OWN = {"model", "messages", "system", "tools", "stream", "max_tokens"}


class AnthropicClient(LLMClient):
    """Messages API; tool results go back as ``tool_result`` blocks with ``is_error``."""

    provider = "anthropic"

    def __init__(self, config: LLMConfig) -> None:
        super().__init__(config)
        anthropic = import_sdk("anthropic", "Anthropic")
        self._sdk = anthropic.AsyncAnthropic(
            api_key=config.api_key,
            base_url=config.base_url,
            timeout=config.timeout,
            max_retries=config.max_retries,
        )
        create = self._sdk.messages.create
        self._settings = checked_settings(create, config.settings, "Messages", own=_OWN)
        if (
            config.temperature is not None
            and "temperature" not in inspect.signature(create).parameters
        ):
            raise LLMConfigError(
                "this anthropic SDK takes no temperature; leave temperature unset, or pass "
                "settings={'extra_body': {'temperature': ...}} for a server that takes it"
            )

    def _request(
        self, conversation: Conversation, tools: ToolSource | None
    ) -> tuple[dict[str, Any], NameMap | None]:
        request: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "messages": conversation.messages,
        }
        if conversation.system:
            request["system"] = conversation.system
        return with_tools(request, self.config, self._settings, tools, to_anthropic_tools)

    async def complete(self, conversation: Conversation, tools: ToolSource | None) -> LLMTurn:
        request, names = self._request(conversation, tools)
        return _turn(await self._sdk.messages.create(**request), names)

    async def stream(
        self, conversation: Conversation, tools: ToolSource | None
    ) -> AsyncIterator[StreamEvent]:
        request, names = self._request(conversation, tools)
        async with self._sdk.messages.stream(**request) as stream:
            async for event in stream:
                if event.type == "text" and event.text:
                    yield TextDelta(text=event.text)
            message = await stream.get_final_message()
        yield _turn(message, names)

    def add_turn(self, conversation: Conversation, turn: LLMTurn) -> None:
        conversation.messages.extend(assistant_turn(turn.raw, provider="anthropic"))

    def add_results(
        self, conversation: Conversation, turn: LLMTurn, results: Sequence[ToolResult]
    ) -> None:
        conversation.messages.extend(format_anthropic_results(results))

    async def aclose(self) -> None:
        await self._sdk.close()


def _turn(response: Any, names: NameMap | None) -> LLMTurn:
    text = "".join(b.text for b in response.content if getattr(b, "type", None) == "text")
    return LLMTurn(
        text=text or None,
        calls=parse_anthropic_calls(response, names) if names else [],
        usage=Usage(
            input_tokens=response.usage.input_tokens or 0,
            output_tokens=response.usage.output_tokens or 0,
        ),
        stop_reason=response.stop_reason,
        raw=response,
    )

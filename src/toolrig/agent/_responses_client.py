"""The OpenAI Responses API: a client of its own (``provider="openai-responses"``).

The history is a list of input items: the user's messages, the model's output items as it
returned them (messages, reasoning, ``function_call``), and one ``function_call_output`` per
call. The system prompt goes in ``instructions`` and the output limit in
``max_output_tokens``. Streaming reads the SDK's typed events: text from
``response.output_text.delta``, the whole response from ``response.completed``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from toolrig.agent._client import Conversation, LLMClient, LLMTurn, StreamEvent, TextDelta, Usage
from toolrig.agent._config import LLMConfig
from toolrig.agent._sdk_request import checked_settings, openai_sdk, with_tools
from toolrig.core.result._result import ToolResult
from toolrig.providers._names import NameMap, ToolSource
from toolrig.providers._openai import (
    format_openai_responses_results,
    parse_openai_responses_calls,
    to_openai_responses_tools,
)
from toolrig.providers._turns import assistant_turn

__all__ = ["OpenAIResponsesClient", "ResponseFailedError"]

_OWN = {"model", "input", "instructions", "tools", "stream", "max_output_tokens"}


class ResponseFailedError(RuntimeError):
    """The Responses API ended a streamed response with an error instead of a response."""


class OpenAIResponsesClient(LLMClient):
    """The Responses API through the official ``openai`` SDK."""

    provider = "openai-responses"

    def __init__(self, config: LLMConfig) -> None:
        super().__init__(config)
        self._sdk = openai_sdk(config, "OpenAI Responses")
        self._settings = checked_settings(
            self._sdk.responses.create, config.settings, "Responses", own=_OWN
        )

    def _request(
        self, conversation: Conversation, tools: ToolSource | None
    ) -> tuple[dict[str, Any], NameMap | None]:
        request: dict[str, Any] = {
            "model": self.config.model,
            "input": list(conversation.messages),
            "max_output_tokens": self.config.max_tokens,
        }
        if conversation.system:
            request["instructions"] = conversation.system
        return with_tools(request, self.config, self._settings, tools, to_openai_responses_tools)

    async def complete(self, conversation: Conversation, tools: ToolSource | None) -> LLMTurn:
        request, names = self._request(conversation, tools)
        return _turn(await self._sdk.responses.create(**request), names)

    async def stream(
        self, conversation: Conversation, tools: ToolSource | None
    ) -> AsyncIterator[StreamEvent]:
        request, names = self._request(conversation, tools)
        request["stream"] = True
        final = None
        stream = await self._sdk.responses.create(**request)
        async with stream:
            async for event in stream:
                kind = event.type
                if kind == "response.output_text.delta" and event.delta:
                    yield TextDelta(text=event.delta)
                elif kind in ("response.completed", "response.incomplete"):
                    final = event.response
                elif kind in ("response.failed", "error"):
                    raise ResponseFailedError(_failure(event))
        if final is None:
            raise ResponseFailedError("the response stream ended before the response completed")
        yield _turn(final, names)

    def add_turn(self, conversation: Conversation, turn: LLMTurn) -> None:
        conversation.messages.extend(assistant_turn(turn.raw, provider="openai-responses"))

    def add_results(
        self, conversation: Conversation, turn: LLMTurn, results: Sequence[ToolResult]
    ) -> None:
        conversation.messages.extend(format_openai_responses_results(results))

    async def aclose(self) -> None:
        await self._sdk.close()


def _failure(event: Any) -> str:
    error = getattr(getattr(event, "response", None), "error", None) or event
    code = getattr(error, "code", None)
    message = getattr(error, "message", None) or "no message"
    return f"the response failed ({code or 'no code'}): {message}"


def _turn(response: Any, names: NameMap | None) -> LLMTurn:
    calls = parse_openai_responses_calls(response, names) if names else []
    incomplete = getattr(response, "incomplete_details", None)
    reason = getattr(incomplete, "reason", None)
    usage = response.usage
    return LLMTurn(
        text=response.output_text or None,
        calls=calls,
        usage=Usage(
            input_tokens=getattr(usage, "input_tokens", 0) or 0,
            output_tokens=getattr(usage, "output_tokens", 0) or 0,
        ),
        stop_reason="tool_calls" if calls else (reason or response.status),
        raw=response,
    )

"""OpenAI Chat Completions, and every server that speaks it (Ollama, vLLM, llama.cpp, LM Studio).

The output limit goes out as ``max_completion_tokens`` for reasoning models (o1, o3, o4,
gpt-5), which refuse ``max_tokens``, and as ``max_tokens`` otherwise, because many compatible
servers know only that one (``LLMConfig.token_limit`` overrides the choice). Streaming uses
the SDK's ``stream=True`` and its own chunk accumulator, so tool calls that arrive in pieces
are put together the way the SDK does it.
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
    format_openai_chat_results,
    parse_openai_chat_calls,
    to_openai_chat_tools,
)
from toolrig.providers._turns import assistant_turn

__all__ = ["OpenAIClient"]

_OWN = {"model", "messages", "tools", "stream", "max_tokens", "max_completion_tokens"}


class OpenAIClient(LLMClient):
    """Chat Completions through the official ``openai`` SDK (``base_url`` for other servers)."""

    provider = "openai"

    def __init__(self, config: LLMConfig) -> None:
        super().__init__(config)
        self._sdk = openai_sdk(config, "OpenAI")
        self._settings = checked_settings(
            self._sdk.chat.completions.create, config.settings, "Chat Completions", own=_OWN
        )

    def _request(
        self, conversation: Conversation, tools: ToolSource | None
    ) -> tuple[dict[str, Any], NameMap | None]:
        messages = list(conversation.messages)
        if conversation.system:
            messages.insert(0, {"role": "system", "content": conversation.system})
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": messages,
            self.config.token_limit_name: self.config.max_tokens,
        }
        return with_tools(request, self.config, self._settings, tools, to_openai_chat_tools)

    async def complete(self, conversation: Conversation, tools: ToolSource | None) -> LLMTurn:
        request, names = self._request(conversation, tools)
        response = await self._sdk.chat.completions.create(**request)
        return _turn(response, response.usage, names)

    async def stream(
        self, conversation: Conversation, tools: ToolSource | None
    ) -> AsyncIterator[StreamEvent]:
        from openai.lib.streaming.chat import ChatCompletionStreamState

        request, names = self._request(conversation, tools)
        request["stream"] = True
        request.setdefault("stream_options", {"include_usage": True})
        state: Any = ChatCompletionStreamState()
        usage = None
        chunks = 0
        stream = await self._sdk.chat.completions.create(**request)
        async with stream:
            async for chunk in stream:
                chunks += 1
                state.handle_chunk(chunk)
                usage = chunk.usage or usage  # the last chunk, with no choices, carries it
                for choice in chunk.choices[:1]:
                    if choice.delta.content:
                        yield TextDelta(text=choice.delta.content)
        if not chunks:
            raise RuntimeError("the Chat Completions stream ended without a chunk")
        yield _turn(state.current_completion_snapshot, usage, names)

    def add_turn(self, conversation: Conversation, turn: LLMTurn) -> None:
        conversation.messages.extend(assistant_turn(turn.raw, provider="openai"))

    def add_results(
        self, conversation: Conversation, turn: LLMTurn, results: Sequence[ToolResult]
    ) -> None:
        conversation.messages.extend(format_openai_chat_results(results))

    async def aclose(self) -> None:
        await self._sdk.close()


def _turn(response: Any, usage: Any, names: NameMap | None) -> LLMTurn:
    """The turn of a ``ChatCompletion`` (or the streamed snapshot of one)."""
    choice = response.choices[0]
    return LLMTurn(
        text=choice.message.content,
        calls=parse_openai_chat_calls(response, names) if names else [],
        usage=Usage(
            input_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            output_tokens=getattr(usage, "completion_tokens", 0) or 0,
        ),
        stop_reason=choice.finish_reason,
        raw=response,
    )

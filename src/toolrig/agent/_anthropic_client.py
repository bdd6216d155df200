"""Anthropic Messages through the official ``anthropic`` SDK."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolrig.agent._client import Conversation, LLMClient, LLMTurn, Usage
from toolrig.agent._config import LLMConfig
from toolrig.core._result import ToolResult
from toolrig.providers._anthropic import (
    format_anthropic_results,
    parse_anthropic_calls,
    to_anthropic_tools,
)
from toolrig.providers._names import NameMap, ToolSource

__all__ = ["AnthropicClient"]


def _sdk() -> Any:
    try:
        import anthropic
    except ImportError as exc:
        raise ImportError("The Anthropic client needs the SDK: pip install 'toolrig[llm]'") from exc
    return anthropic


class AnthropicClient(LLMClient):
    """Messages API; tool results go back as ``tool_result`` blocks with ``is_error``."""

    provider = "anthropic"

    def __init__(self, config: LLMConfig) -> None:
        super().__init__(config)
        anthropic = _sdk()
        self._sdk = anthropic.AsyncAnthropic(
            api_key=config.api_key,
            base_url=config.base_url,
            timeout=config.timeout,
            max_retries=config.max_retries,
        )

    async def complete(self, conversation: Conversation, tools: ToolSource | None) -> LLMTurn:
        request: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "messages": conversation.messages,
        }
        if conversation.system:
            request["system"] = conversation.system
        if self.config.temperature is not None:
            request["temperature"] = self.config.temperature
        names = NameMap.from_tools(tools) if tools is not None else None
        specs = to_anthropic_tools(names) if names else []
        if specs:
            request["tools"] = specs
        response = await self._sdk.messages.create(**request)
        text = "".join(b.text for b in response.content if getattr(b, "type", None) == "text")
        return LLMTurn(
            text=text or None,
            calls=parse_anthropic_calls(response, names) if specs and names else [],
            usage=Usage(
                input_tokens=response.usage.input_tokens or 0,
                output_tokens=response.usage.output_tokens or 0,
            ),
            stop_reason=response.stop_reason,
            raw=response,
        )

    def add_turn(self, conversation: Conversation, turn: LLMTurn) -> None:
        blocks = [b.model_dump(exclude_none=True, warnings=False) for b in turn.raw.content]
        conversation.messages.append({"role": "assistant", "content": blocks})

    def add_results(
        self, conversation: Conversation, turn: LLMTurn, results: Sequence[ToolResult]
    ) -> None:
        conversation.messages.extend(format_anthropic_results(results))

    async def aclose(self) -> None:
        await self._sdk.close()

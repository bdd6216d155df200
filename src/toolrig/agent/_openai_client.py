"""OpenAI Chat Completions, and every server that speaks it (Ollama, vLLM, llama.cpp, LM Studio)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolrig.agent._client import Conversation, LLMClient, LLMTurn, Usage
from toolrig.agent._config import LLMConfig
from toolrig.core._result import ToolResult
from toolrig.providers._names import NameMap, ToolSource
from toolrig.providers._openai import (
    format_openai_chat_results,
    parse_openai_chat_calls,
    to_openai_chat_tools,
)

__all__ = ["OpenAIClient"]


def _sdk() -> Any:
    try:
        import openai
    except ImportError as exc:
        raise ImportError("The OpenAI client needs the SDK: pip install 'toolrig[llm]'") from exc
    return openai


class OpenAIClient(LLMClient):
    """Chat Completions through the official ``openai`` SDK (``base_url`` for other servers)."""

    provider = "openai"

    def __init__(self, config: LLMConfig) -> None:
        super().__init__(config)
        openai = _sdk()
        self._sdk = openai.AsyncOpenAI(
            api_key=config.api_key,
            base_url=config.base_url,
            timeout=config.timeout,
            max_retries=config.max_retries,
        )

    async def complete(self, conversation: Conversation, tools: ToolSource | None) -> LLMTurn:
        messages = list(conversation.messages)
        if conversation.system:
            messages.insert(0, {"role": "system", "content": conversation.system})
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": messages,
            "max_tokens": self.config.max_tokens,
        }
        if self.config.temperature is not None:
            request["temperature"] = self.config.temperature
        names = NameMap.from_tools(tools) if tools is not None else None
        specs = to_openai_chat_tools(names) if names else []
        if specs:
            request["tools"] = specs
        response = await self._sdk.chat.completions.create(**request)
        choice = response.choices[0]
        usage = response.usage
        return LLMTurn(
            text=choice.message.content,
            calls=parse_openai_chat_calls(response, names) if specs and names else [],
            usage=Usage(
                input_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                output_tokens=getattr(usage, "completion_tokens", 0) or 0,
            ),
            stop_reason=choice.finish_reason,
            raw=response,
        )

    def add_turn(self, conversation: Conversation, turn: LLMTurn) -> None:
        message = turn.raw.choices[0].message.model_dump(exclude_none=True)
        message = {k: v for k, v in message.items() if k in ("role", "content", "tool_calls")}
        message.setdefault("content", None)
        conversation.messages.append(message)

    def add_results(
        self, conversation: Conversation, turn: LLMTurn, results: Sequence[ToolResult]
    ) -> None:
        conversation.messages.extend(format_openai_chat_results(results))

    async def aclose(self) -> None:
        await self._sdk.close()

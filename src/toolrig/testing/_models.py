"""``ScriptedModel`` and ``FunctionModel``: LLM clients for tests, with no network and no key.

Both speak the OpenAI Chat message format (``Conversation.messages`` holds Chat messages), run
the offered tools' export and the call parser exactly as a real client does, check every
request against the Chat API's ordering rules, and stream their text in word-sized deltas.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from toolrig.agent._client import Conversation, LLMClient, LLMTurn, StreamEvent, TextDelta, Usage
from toolrig.agent._config import LLMConfig
from toolrig.core.result._result import ToolResult
from toolrig.providers._names import NameMap, ToolSource
from toolrig.providers._openai import (
    format_openai_chat_results,
    parse_openai_chat_calls,
    to_openai_chat_tools,
)
from toolrig.testing._rules import ModelScriptError, chat_problems
from toolrig.testing._turn import ModelTurn, as_turn, assistant_message, word_count

__all__ = ["FunctionModel", "ModelRequest", "ScriptedModel", "TurnFunction"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRequest:
    """What a test model was asked: the Chat messages (system first) and the tools offered,
    as OpenAI Chat tool definitions."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]

    @property
    def tool_names(self) -> list[str]:
        """The names of the offered tools, as the model sees them."""
        return [t["function"]["name"] for t in self.tools]


TurnFunction: TypeAlias = Callable[
    [list[dict[str, Any]], list[dict[str, Any]]], "ModelTurn | str | Awaitable[ModelTurn | str]"
]
"""``(messages, tools) -> turn``: decides a :class:`FunctionModel`'s next turn (may be async)."""


class _TestModel(LLMClient):
    """The Chat-format client both test models share; subclasses choose the next turn."""

    provider = "test"

    def __init__(self, model: str) -> None:
        super().__init__(LLMConfig(provider="openai", model=model))
        self.requests: list[ModelRequest] = []
        """Every request, in order."""
        self._calls_made = 0

    async def _next(self, request: ModelRequest) -> ModelTurn:
        raise NotImplementedError

    async def complete(self, conversation: Conversation, tools: ToolSource | None) -> LLMTurn:
        messages = [dict(m) for m in conversation.messages]
        if conversation.system:
            messages.insert(0, {"role": "system", "content": conversation.system})
        names = NameMap.from_tools(tools) if tools is not None else NameMap(())
        request = ModelRequest(messages=messages, tools=to_openai_chat_tools(names))
        self.requests.append(request)
        problems = chat_problems(messages)
        if problems:
            raise ModelScriptError(
                f"request {len(self.requests)} would be refused by the API: " + "; ".join(problems)
            )
        turn = await self._next(request)
        message = assistant_message(turn, names.provider_name, self._calls_made + 1)
        self._calls_made += len(turn.calls)
        usage = turn.usage or Usage(
            input_tokens=word_count(messages), output_tokens=word_count([message])
        )
        calls = parse_openai_chat_calls(message, names) if turn.calls else []
        return LLMTurn(
            text=message["content"],
            calls=calls,
            usage=usage,
            stop_reason=turn.stop_reason or ("tool_calls" if calls else "stop"),
            raw=message,
        )

    async def stream(
        self, conversation: Conversation, tools: ToolSource | None
    ) -> AsyncIterator[StreamEvent]:
        turn = await self.complete(conversation, tools)
        for piece in split_text(turn.text or ""):
            yield TextDelta(text=piece)
        yield turn

    def add_turn(self, conversation: Conversation, turn: LLMTurn) -> None:
        conversation.messages.append(dict(turn.raw))

    def add_results(
        self, conversation: Conversation, turn: LLMTurn, results: Sequence[ToolResult]
    ) -> None:
        conversation.messages.extend(format_openai_chat_results(results))


def split_text(text: str) -> list[str]:
    """``text`` in word-sized pieces (each keeps its following space), as a model streams it."""
    pieces: list[str] = []
    start = 0
    for index, char in enumerate(text):
        if char == " " and index + 1 < len(text) and text[index + 1] != " ":
            pieces.append(text[start : index + 1])
            start = index + 1
    if start < len(text):
        pieces.append(text[start:])
    return pieces


class ScriptedModel(_TestModel):
    """A model that answers with the given turns, in order.

    Each turn is a :class:`ModelTurn` or a plain text answer. A request after the last turn
    raises :class:`ModelScriptError`, as does a request the Chat API would refuse (a tool
    message that answers no call, a call left unanswered); ``requests`` keeps what was asked.
    """

    def __init__(self, turns: Iterable[ModelTurn | str], *, model: str = "scripted") -> None:
        super().__init__(model)
        self._turns = [as_turn(t) for t in turns]
        self._total = len(self._turns)

    @property
    def remaining(self) -> int:
        """Turns not yet played."""
        return len(self._turns)

    async def _next(self, request: ModelRequest) -> ModelTurn:
        if not self._turns:
            raise ModelScriptError(
                f"the script ran out: request {len(self.requests)} came after all "
                f"{self._total} scripted turns were played (last message: "
                f"{request.messages[-1] if request.messages else None!r:.200})"
            )
        return self._turns.pop(0)


class FunctionModel(_TestModel):
    """A model whose every turn is decided by ``function(messages, tools)``.

    ``messages`` are the Chat messages sent (system first, tool results as ``role: tool``),
    ``tools`` the offered tools as OpenAI Chat definitions. The function returns a
    :class:`ModelTurn` or a text answer, and may be async.
    """

    def __init__(self, function: TurnFunction, *, model: str = "function") -> None:
        super().__init__(model)
        self.function = function

    async def _next(self, request: ModelRequest) -> ModelTurn:
        answer: Any = self.function(request.messages, request.tools)
        if inspect.isawaitable(answer):
            answer = await answer
        try:
            return as_turn(answer)
        except TypeError as exc:
            raise ModelScriptError(f"the model function returned no turn: {exc}") from None

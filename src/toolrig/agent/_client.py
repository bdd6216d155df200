"""What the agent needs from an LLM: one conversation, one completion at a time.

A client keeps the conversation in its provider's own message format; the agent only adds the
user prompt, the model's turns and the tool results, so nothing is lost in translation.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolrig.agent._config import LLMConfig
from toolrig.core.result._result import ToolResult
from toolrig.providers._calls import ParsedCall
from toolrig.providers._names import ToolSource

__all__ = ["Conversation", "LLMClient", "LLMTurn", "StreamEvent", "TextDelta", "Usage"]


@dataclass(slots=True, kw_only=True)
class Usage:
    """Tokens spent."""

    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, other: Usage) -> None:
        """Add ``other`` to these totals."""
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


@dataclass(slots=True, kw_only=True)
class LLMTurn:
    """One model answer: its text, the tool calls it asks for, and what it cost."""

    text: str | None
    calls: list[ParsedCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    stop_reason: str | None = None
    raw: Any = None
    model: str | None = None
    """The model that answered, when a client chose among several (``FallbackModel``)."""
    fallbacks: list[dict[str, str]] = field(default_factory=list)
    """The models passed over before it: ``{"model": ..., "error": ...}`` each."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TextDelta:
    """A piece of the model's text, as it arrives while a turn streams."""

    text: str


StreamEvent = TextDelta | LLMTurn
"""What :meth:`LLMClient.stream` yields: text deltas, then the one complete turn."""


@dataclass(slots=True, kw_only=True)
class Conversation:
    """Messages in the provider's format, plus the system prompt (kept apart where the API
    wants it apart)."""

    system: str | None
    messages: list[dict[str, Any]] = field(default_factory=list)


class LLMClient(ABC):
    """An LLM endpoint reached through its official SDK."""

    provider: str

    def __init__(self, config: LLMConfig) -> None:
        self.config = config

    @property
    def model(self) -> str:
        """The model asked."""
        return self.config.model

    def start(self, prompt: str, *, system: str | None = None) -> Conversation:
        """A conversation holding the system prompt and the user's first message."""
        conversation = Conversation(system=system)
        self.add_user(conversation, prompt)
        return conversation

    def add_user(self, conversation: Conversation, text: str) -> None:
        """Append a user message."""
        conversation.messages.append({"role": "user", "content": text})

    @abstractmethod
    async def complete(self, conversation: Conversation, tools: ToolSource | None) -> LLMTurn:
        """Ask the model for its next turn, offering ``tools`` (tools, a catalogue, an executor
        or a :class:`~toolrig.providers.NameMap`); the turn is not yet appended."""

    async def stream(
        self, conversation: Conversation, tools: ToolSource | None
    ) -> AsyncIterator[StreamEvent]:
        """Like :meth:`complete`, streamed: :class:`TextDelta` events as the text arrives, then
        exactly one complete :class:`LLMTurn` (the same turn ``complete`` would return).

        Clients whose SDK streams override this; the default asks :meth:`complete` and yields
        its text as one delta.
        """
        turn = await self.complete(conversation, tools)
        if turn.text:
            yield TextDelta(text=turn.text)
        yield turn

    @abstractmethod
    def add_turn(self, conversation: Conversation, turn: LLMTurn) -> None:
        """Append the model's turn as the provider expects it in the history."""

    @abstractmethod
    def add_results(
        self, conversation: Conversation, turn: LLMTurn, results: Sequence[ToolResult]
    ) -> None:
        """Append the results of the turn's tool calls (errors included)."""

    async def ask(self, prompt: str, *, system: str | None = None) -> LLMTurn:
        """One question, one answer, no tools."""
        return await self.complete(self.start(prompt, system=system), None)

    async def aclose(self) -> None:  # noqa: B027 - optional hook, no-op by default
        """Close the SDK's HTTP connections."""

"""A tool's ``ctx.sample(...)`` under the agent: answered by the agent's own LLM client.

Each run offers this sampler to the calls it makes (unless the application set one with
:func:`~toolrig.core.tool_interaction`), so a tool that asks a model works the same under MCP
(the client's model) and under the agent (the agent's). The client's own settings apply;
``max_tokens`` is a hint it does not override.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolrig.agent._client import Conversation, LLMClient
from toolrig.core.context._interaction import SampleMessage, Sampler

__all__ = ["client_sampler"]


def client_sampler(client: LLMClient) -> Sampler:
    """A sampler asking ``client`` (no tools offered) and returning its text."""

    async def sample(messages: Sequence[SampleMessage], system: str | None, max_tokens: int) -> str:
        conversation = Conversation(system=system)
        for message in messages:
            text = str(message.get("content", ""))
            if message.get("role") == "assistant":
                conversation.messages.append({"role": "assistant", "content": text})
            else:
                client.add_user(conversation, text)
        turn = await client.complete(conversation, None)
        return turn.text or ""

    return sample

"""One request to the model: its turn, streamed or not, each wait bounded by the run's time
budget, in a ``chat {model}`` span when tracing is on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from toolrig.agent._client import Conversation, LLMClient, LLMTurn, TextDelta
from toolrig.agent._steps import StepHooks
from toolrig.agent._turn_log import TurnLog
from toolrig.providers._names import NameMap
from toolrig.runtime._tracing import chat_span

__all__ = ["ask_model"]


async def ask_model(
    client: LLMClient,
    conversation: Conversation,
    offered: NameMap,
    streaming: bool,
    deadline: float | None,
    hooks: StepHooks | None = None,
    turns: TurnLog | None = None,
) -> AsyncIterator[TextDelta | LLMTurn]:
    """The text deltas (when ``streaming``) and last the turn; ``TimeoutError`` past
    ``deadline`` (the event loop's clock). With step ``hooks`` (a durable run) the turn is one
    recorded step, given whole and never streamed; ``turns`` learns whether it was asked now
    or given back by a replay (which is not recorded again)."""
    server = getattr(client.config, "base_url", None)
    with chat_span(client.model, provider=client.provider, server=server) as span:
        if hooks is not None:
            async with asyncio.timeout_at(deadline):
                turn, fresh = await hooks.model_step(lambda: client.complete(conversation, offered))
            if turns is not None:
                turns.fresh = fresh
            items: AsyncIterator[TextDelta | LLMTurn] = _given(turn)
        else:
            items = _request(client, conversation, offered, streaming, deadline)
        async for item in items:
            if isinstance(item, LLMTurn):
                span.record_usage(item.usage.input_tokens, item.usage.output_tokens)
                if item.stop_reason:
                    span.set("gen_ai.response.finish_reasons", (item.stop_reason,))
                span.set("gen_ai.response.model", item.model)  # a fallback model's name
                if item.fallbacks:
                    span.set("toolrig.model.fallbacks", [str(f) for f in item.fallbacks])
            yield item


async def _given(turn: LLMTurn) -> AsyncIterator[TextDelta | LLMTurn]:
    yield turn


async def _request(
    client: LLMClient,
    conversation: Conversation,
    offered: NameMap,
    streaming: bool,
    deadline: float | None,
) -> AsyncIterator[TextDelta | LLMTurn]:
    """The model's turn as the client gives it (see `ask_model`)."""
    if not streaming:
        async with asyncio.timeout_at(deadline):
            yield await client.complete(conversation, offered)
        return
    stream = client.stream(conversation, offered)
    try:
        while True:
            async with asyncio.timeout_at(deadline):
                item = await anext(stream, None)
            if item is None:
                return
            yield item
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()

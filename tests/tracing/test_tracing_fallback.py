"""A fallback model in a trace: the ``chat`` span names the model that answered and the ones
passed over, with why (the real openai SDK client; the first model cannot be reached)."""

from __future__ import annotations

import socket

from tracing_support import Spans

from llm_server import ScriptedLLM, Turn
from toolrig.agent import Agent, FallbackModel, LLMConfig, make_client


def _openai(model: str, base_url: str) -> LLMConfig:
    return LLMConfig(
        provider="openai",
        model=model,
        base_url=base_url,
        api_key="test-key",  # type: ignore[arg-type]
        max_retries=0,
        timeout=5,
    )


async def test_the_chat_span_names_the_model_that_answered(spans: Spans) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    with ScriptedLLM([Turn(text="ok")]) as server:
        model = FallbackModel(
            make_client(_openai("first", closed)),
            make_client(_openai("second", f"{server.url}/v1")),
        )
        agent: Agent[None, str] = Agent("a", "You answer.", model)
        await agent.arun("hi")
        await agent.aclose()
    (chat,) = spans.named("chat first")  # opened before the answer: the first model's name
    attributes = dict(chat.attributes or {})
    assert attributes["gen_ai.response.model"] == "second"
    (passed,) = attributes["toolrig.model.fallbacks"]
    assert "first" in str(passed) and "APIConnectionError" in str(passed)

"""Fallback models through the real openai SDK client: a model that cannot be reached or is
too slow is passed over, the next one answers, and the execution log and the ``chat`` span say
which model answered and why the others were passed over (the span: ``tests/tracing``)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from agent_support import config
from scripted_llm import ScriptedLLM, Turn

from toolrig import tool
from toolrig.agent import (
    Agent,
    AgentRunError,
    FallbackModel,
    FinalOutput,
    LLMConfig,
    ModelsFailed,
    make_client,
)
from toolrig.storage import SQLiteExecutionLog


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens


def _unreachable(model: str) -> LLMConfig:
    return LLMConfig(
        provider="openai",
        model=model,
        base_url=f"http://127.0.0.1:{_closed_port()}/v1",
        api_key="test-key",  # type: ignore[arg-type]
        max_retries=0,
        timeout=5,
    )


async def test_an_unreachable_model_is_passed_over_and_the_log_says_so(tmp_path: Path) -> None:
    script = [Turn(calls=[("add", {"a": 2, "b": 3}, "c1")]), Turn(text="5")]
    with ScriptedLLM(script) as server:
        model = FallbackModel(
            make_client(_unreachable("big-model")), make_client(config("openai", server, "small"))
        )
        log = SQLiteExecutionLog(tmp_path / "log.db")
        agent: Agent[None, str] = Agent("calc", "You add.", model, [add], log=log)
        result = await agent.arun("2 + 3?")
        await agent.aclose()
    assert result.output == "5"
    turns = [r for r in log.query(run_id=result.run_id) if r.executor_type == "llm"]
    assert [r.executor for r in turns] == ["small", "small"]  # the model that answered
    (passed,) = turns[0].output["fallbacks"]
    assert passed["model"] == "big-model" and "APIConnectionError" in passed["error"]
    log.close()


async def test_a_slow_model_is_passed_over_after_its_timeout() -> None:
    with (
        ScriptedLLM([Turn(text="slow"), Turn(text="slow")], delay=3.0) as slow,
        ScriptedLLM([Turn(text="quick answer"), Turn(text="streamed")]) as quick,
    ):
        model = FallbackModel(
            make_client(config("openai", slow, "slow")),
            make_client(config("openai", quick, "quick")),
            timeout=0.5,
        )
        agent: Agent[None, str] = Agent("a", "You answer.", model)
        result = await agent.arun("hi")
        streamed = [e async for e in agent.stream("hi again", history=result.all_messages)]
        await agent.aclose()
    assert result.output == "quick answer"
    assert result.steps[0].usage.output_tokens == 10  # the answer of the quick server
    # the stream moved on too (before its first event)
    assert isinstance(streamed[-1], FinalOutput) and streamed[-1].result.output == "streamed"


async def test_when_every_model_fails_the_run_fails_naming_each() -> None:
    model = FallbackModel(make_client(_unreachable("one")), make_client(_unreachable("two")))
    agent: Agent[None, str] = Agent("a", "You answer.", model)
    result = await agent.arun("hi", raise_on_error=False)
    await agent.aclose()
    assert result.stop_reason == "error"
    assert result.error is not None and "one: APIConnectionError" in result.error
    assert "two: APIConnectionError" in result.error


def test_models_must_share_a_message_format() -> None:
    openai_model = make_client(_unreachable("gpt"))
    anthropic_model = make_client(
        LLMConfig(provider="anthropic", model="claude", api_key="k")  # type: ignore[arg-type]
    )
    with pytest.raises(ValueError, match="one message format"):
        FallbackModel(openai_model, anthropic_model)
    with pytest.raises(ValueError, match="at least two"):
        FallbackModel(openai_model)
    assert issubclass(ModelsFailed, RuntimeError)


async def test_a_custom_fallback_rule_still_passes_over_a_slow_model() -> None:
    """``fallback_on`` chooses which errors move a request on; a model too slow for
    ``timeout`` is passed over all the same when the rule does not name ``TimeoutError``
    (plain and streamed turns), and an error outside the rule is the run's error."""
    with (
        ScriptedLLM([Turn(text="slow"), Turn(text="slow")], delay=3.0) as slow,
        ScriptedLLM([Turn(text="quick answer"), Turn(text="streamed")]) as quick,
    ):
        model = FallbackModel(
            make_client(config("openai", slow, "slow")),
            make_client(config("openai", quick, "quick")),
            timeout=0.5,
            fallback_on=(KeyError,),
        )
        agent: Agent[None, str] = Agent("a", "You answer.", model)
        result = await agent.arun("hi")
        streamed = [e async for e in agent.stream("hi again", history=result.all_messages)]
        await agent.aclose()
    assert result.output == "quick answer"
    assert result.steps[0].usage.output_tokens == 10  # the answer of the quick server
    assert isinstance(streamed[-1], FinalOutput) and streamed[-1].result.output == "streamed"

    narrow = FallbackModel(
        make_client(_unreachable("one")), make_client(_unreachable("two")), fallback_on=(KeyError,)
    )
    agent = Agent("a", "You answer.", narrow)
    failed = await agent.arun("hi", raise_on_error=False)
    await agent.aclose()
    assert failed.stop_reason == "error" and failed.error is not None
    assert "APIConnectionError" in failed.error and "two" not in failed.error  # not moved on
    again = FallbackModel(
        make_client(_unreachable("one")), make_client(_unreachable("two")), fallback_on=(KeyError,)
    )
    streaming = Agent("a", "You answer.", again)
    with pytest.raises(AgentRunError, match="APIConnectionError") as raised:
        _ = [e async for e in streaming.stream("hi")]
    await streaming.aclose()
    assert "two" not in str(raised.value)  # a stream is not moved on by it either

"""The three LLM clients, through the real ``openai`` and ``anthropic`` SDKs, against a local
server that checks each request as the real API does and streams in each API's wire format."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import openai
import pytest

from llm_server import ScriptedLLM, Turn, tool_results
from toolrig import ToolExecutor, tool
from toolrig.agent import LLMClient, LLMConfig, LLMTurn, TextDelta, make_client
from toolrig.providers import execute_calls

PROVIDERS = ["openai", "openai-responses", "anthropic"]


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def client_for(provider: str, server: ScriptedLLM, model: str = "gpt-4.1", **kw: Any) -> LLMClient:
    base = server.url if provider == "anthropic" else f"{server.url}/v1"
    return make_client(
        LLMConfig(provider=provider, model=model, base_url=base, api_key="k", max_retries=0, **kw)  # type: ignore[arg-type]
    )


async def turn_of(
    client: LLMClient, conversation: Any, tools: Any, stream: bool
) -> tuple[LLMTurn, list[str]]:
    if not stream:
        return await client.complete(conversation, tools), []
    deltas: list[str] = []
    turns: list[LLMTurn] = []
    async for event in client.stream(conversation, tools):
        if isinstance(event, TextDelta):
            assert not turns, "a delta after the final turn"
            deltas.append(event.text)
        else:
            turns.append(event)
    assert len(turns) == 1, "exactly one final turn"
    return turns[0], deltas


async def run_two_turns(client: LLMClient, stream: bool) -> list[tuple[LLMTurn, list[str]]]:
    executor = ToolExecutor([add])
    conversation = client.start("What are 1+2 and 3+4?", system="You add.")
    seen = []
    for _ in range(2):
        turn, deltas = await turn_of(client, conversation, executor, stream)
        seen.append((turn, deltas))
        client.add_turn(conversation, turn)
        if turn.calls:
            client.add_results(conversation, turn, await execute_calls(executor, turn.calls))
    await client.aclose()
    executor.close()
    return seen


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_tool_round_trip_is_valid_for_the_api(provider: str, stream: bool) -> None:
    def second(request: dict[str, Any]) -> Turn:
        assert tool_results(request) == {"c1": ("3", False), "c2": ("7", False)}
        return Turn(text="They are 3 and 7.")

    first = Turn(
        text="Adding both.",
        calls=[("add", {"a": 1, "b": 2}, "c1"), ("add", {"a": 3, "b": 4}, "c2")],
    )
    with ScriptedLLM([first, second]) as server:
        seen = asyncio.run(run_two_turns(client_for(provider, server), stream))
    assert server.refusals == [] and server.errors == []
    (one, one_deltas), (two, two_deltas) = seen
    assert one.text == "Adding both." and [c.name for c in one.calls] == ["add", "add"]
    assert [c.arguments for c in one.calls] == [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    assert two.text == "They are 3 and 7." and two.calls == []
    assert (one.usage.input_tokens, one.usage.output_tokens) == (101, 10)
    assert (two.usage.input_tokens, two.usage.output_tokens) == (102, 10)
    if stream:  # word by word, as the server sent them, and together the whole text
        assert one_deltas == ["Adding ", "both."]
        assert two_deltas == ["They ", "are ", "3 ", "and ", "7."]
        assert all(r.get("stream") is True for r in server.requests)
    else:
        assert all("stream" not in r for r in server.requests)
    request = server.requests[0]
    if provider == "openai":
        assert request["messages"][0] == {"role": "system", "content": "You add."}
        assert request["max_tokens"] == 4096 and "max_completion_tokens" not in request
    elif provider == "openai-responses":
        assert request["instructions"] == "You add." and request["max_output_tokens"] == 4096
        items = server.requests[1]["input"]
        assert [i.get("type") for i in items[-4:]] == [
            "function_call",
            "function_call",
            "function_call_output",
            "function_call_output",
        ]
    else:
        assert request["system"] == "You add." and request["max_tokens"] == 4096


def test_the_server_refuses_what_the_apis_refuse() -> None:
    """The checks the round trips rely on do refuse broken conversations (the 400s a real API
    sends), so a passing round trip means something."""
    with ScriptedLLM([]) as server:
        chat = openai.OpenAI(base_url=f"{server.url}/v1", api_key="k", max_retries=0)
        user = {"role": "user", "content": "hi"}
        call = {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
        bad_chats = [
            [user, {"role": "tool", "tool_call_id": "c1", "content": "3"}],  # no tool_calls
            [user, {"role": "assistant", "content": None, "tool_calls": [call]}, user],
            [user, {"role": "tool", "content": "3"}],  # no tool_call_id
        ]
        for messages in bad_chats:
            with pytest.raises(openai.BadRequestError):
                chat.chat.completions.create(model="gpt-4.1", messages=messages)  # type: ignore[arg-type]
        with pytest.raises(openai.BadRequestError, match="max_completion_tokens"):
            chat.chat.completions.create(model="o3-mini", messages=[user], max_tokens=10)  # type: ignore[list-item]
        orphan = {"type": "function_call_output", "call_id": "c9", "output": "3"}
        with pytest.raises(openai.BadRequestError, match="No tool call found"):
            chat.responses.create(model="gpt-4.1", input=[user, orphan])  # type: ignore[list-item]
        import anthropic

        claude = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
        use = {"type": "tool_use", "id": "t1", "name": "add", "input": {}}
        result = {"type": "tool_result", "tool_use_id": "t1", "content": "3"}
        bad_claudes = [
            [user, {"role": "user", "content": [result]}],  # a result with no tool_use before
            [user, {"role": "assistant", "content": [use]}, user],  # a tool_use unanswered
        ]
        for messages in bad_claudes:
            with pytest.raises(anthropic.BadRequestError):
                claude.messages.create(model="claude-x", max_tokens=10, messages=messages)  # type: ignore[arg-type]
    assert len(server.refusals) == 7 and server.errors == []
    assert "must be a response to a preceeding message with 'tool_calls'" in server.refusals[0]
    assert "did not have response messages: c1" in server.refusals[1]


@pytest.mark.parametrize("model", ["o3-mini", "o4-mini", "gpt-5", "gpt-5.1-codex", "openai/o1"])
@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_reasoning_models_get_max_completion_tokens(model: str, stream: bool) -> None:
    with ScriptedLLM([Turn(text="Fine.")]) as server:
        client = client_for("openai", server, model=model, max_tokens=321)
        conversation = client.start("Hi")
        turn, _ = asyncio.run(turn_of(client, conversation, None, stream))
    assert turn.text == "Fine." and server.refusals == []
    assert server.requests[0]["max_completion_tokens"] == 321
    assert "max_tokens" not in server.requests[0]


def test_max_tokens_for_a_reasoning_model_is_refused_as_the_api_does() -> None:
    with ScriptedLLM([Turn(text="unused")]) as server:
        client = client_for("openai", server, model="o3", token_limit="max_tokens")
        with pytest.raises(openai.BadRequestError) as caught:
            asyncio.run(client.complete(client.start("Hi"), None))
    assert caught.value.code == "unsupported_parameter" and caught.value.param == "max_tokens"
    # and a non-reasoning model on a compatible server keeps the name those servers know
    with ScriptedLLM([Turn(text="ok")]) as server:
        client = client_for("openai", server, model="llama3.1", token_limit="auto")
        asyncio.run(client.complete(client.start("Hi"), None))
        forced = client_for("openai", server, model="llama3.1", token_limit="max_completion_tokens")
        assert forced.config.token_limit_name == "max_completion_tokens"
    assert server.requests[0]["max_tokens"] == 4096


@pytest.mark.parametrize("provider", PROVIDERS)
def test_streamed_text_arrives_before_the_answer_ends(provider: str) -> None:
    """The server holds the rest of its answer until the client has seen the first delta: a
    client that waited for the whole answer would stall until the gate gives up."""
    gate = threading.Event()

    async def consume(client: LLMClient) -> list[str]:
        deltas: list[str] = []
        async for event in client.stream(client.start("Hi"), None):
            if isinstance(event, TextDelta):
                deltas.append(event.text)
                gate.set()
        return deltas

    with ScriptedLLM([Turn(text="one two three")], gate=gate) as server:
        deltas = asyncio.run(consume(client_for(provider, server)))
    assert deltas == ["one ", "two ", "three"]
    assert not server.gate_timed_out  # the first delta arrived while the rest was held


@pytest.mark.parametrize("provider", PROVIDERS)
def test_settings_pass_through_to_the_request(provider: str) -> None:
    settings: dict[str, Any] = {
        "openai": {
            "seed": 7,
            "reasoning_effort": "low",
            "tool_choice": "required",
            "extra_body": {"top_k": 5},
        },
        "openai-responses": {
            "reasoning": {"effort": "low"},
            "tool_choice": "required",
            "extra_body": {"top_k": 5},
        },
        "anthropic": {"tool_choice": {"type": "any"}, "extra_body": {"top_k": 5}},
    }[provider]
    with ScriptedLLM([Turn(text="ok")], accept={"top_k"}) as server:
        client = client_for(provider, server, settings=settings)
        asyncio.run(client.complete(client.start("Hi"), ToolExecutor([add])))
    sent = server.requests[0]
    assert server.refusals == []
    for name, value in settings.items():
        if name == "extra_body":
            assert sent["top_k"] == 5
        else:
            assert sent[name] == value


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_setting_the_sdk_does_not_know_is_refused_when_the_client_is_made(
    provider: str,
) -> None:
    from toolrig.agent import LLMConfigError

    config = LLMConfig(
        provider=provider,  # type: ignore[arg-type]
        model="m",
        api_key="k",
        settings={"tool_choise": "auto"},
    )
    with pytest.raises(
        LLMConfigError, match=r"'tool_choise' is not a .* \(did you mean 'tool_choice'"
    ):
        make_client(config)


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
@pytest.mark.parametrize(
    ("provider", "reason"),
    [("openai", "length"), ("openai-responses", "max_output_tokens"), ("anthropic", "max_tokens")],
)
def test_a_turn_cut_at_the_output_limit_says_so(provider: str, reason: str, stream: bool) -> None:
    with ScriptedLLM([Turn(text="cut sho", stop_reason=reason)]) as server:
        client = client_for(provider, server)
        turn, _ = asyncio.run(turn_of(client, client.start("Hi"), None, stream))
    assert turn.text == "cut sho" and turn.stop_reason == reason


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_stream_that_fails_midway_raises(provider: str) -> None:
    """A failure reported inside the stream is an exception, never a turn cut short."""
    import anthropic

    async def consume(client: LLMClient) -> list[str]:
        deltas = []
        async for event in client.stream(client.start("Hi"), None):
            if isinstance(event, TextDelta):
                deltas.append(event.text)
            else:
                raise AssertionError(f"a turn after a failure: {event}")
        return deltas

    expected: type[Exception] = {
        "openai": openai.APIError,
        "openai-responses": RuntimeError,
        "anthropic": anthropic.APIStatusError,
    }[provider]
    script = [Turn(text="Half an", stream_error="model overloaded")]
    with ScriptedLLM(script) as server, pytest.raises(expected, match="overloaded"):
        asyncio.run(consume(client_for(provider, server)))


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_responses_reasoning_items_go_back_with_the_calls_they_precede(stream: bool) -> None:
    def second(request: dict[str, Any]) -> Turn:
        kinds = [i.get("type", "message") for i in request["input"]]
        assert kinds == ["message", "reasoning", "function_call", "function_call_output"], kinds
        assert request["input"][1] == {"type": "reasoning", "id": "rs_1", "summary": []}
        return Turn(text="3.", reasoning=True)

    script = [Turn(calls=[("add", {"a": 1, "b": 2}, "c1")], reasoning=True), second]
    with ScriptedLLM(script) as server:
        seen = asyncio.run(run_two_turns(client_for("openai-responses", server, "o4-mini"), stream))
    assert server.refusals == [] and server.errors == []
    assert seen[1][0].text == "3." and seen[1][0].stop_reason == "completed"
    # a history that keeps the reasoning item but drops what followed it is refused
    dangling = [
        {"role": "user", "content": "1+2?"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
    ]
    with ScriptedLLM([]) as server:
        client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="k", max_retries=0)
        with pytest.raises(openai.BadRequestError, match="without its required following item"):
            client.responses.create(model="o4-mini", input=dangling)  # type: ignore[arg-type]

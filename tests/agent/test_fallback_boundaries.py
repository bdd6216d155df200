"""The edges of `FallbackModel`, on in-process test models (the HTTP path through the openai
SDK is in test_agent_fallback.py): every refusal of its settings, which error moves a request
on and which does not, what a turn says of the models passed over, and what each stream does
with the streams it leaves.

| promise | boundary | test |
|---|---|---|
| settings | one model, mixed formats, timeout <= 0: refused, exact words | ``test_settings_...`` |
| settings | config and provider are the first model's; timeout kept | ``test_settings_...`` |
| moving on | ``fallback_on`` moves on, others propagate, timeouts move on | ``test_only_...`` |
| the answer | names the model that answered, each passed over with its reason | ``test_a_...`` |
| every one failed | each model and error, in order, in the message too | ``test_when_...`` |
| streaming | a failed or slow first event moves on; streams left are closed | ``test_a_...`` |
| conversation | turns and results to the model that answered, a user message to the first | same |
| streams | tools reach the model; an empty stream, one without ``aclose``: answers | same |
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolrig import tool
from toolrig.agent import (
    Conversation,
    FallbackModel,
    LLMClient,
    LLMConfig,
    LLMTurn,
    ModelsFailed,
    TextDelta,
)
from toolrig.testing import FunctionModel, ScriptedModel


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def failing(error: Exception, name: str) -> FunctionModel:
    async def answer(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
        raise error

    return FunctionModel(answer, model=name)


def slow(name: str) -> FunctionModel:
    async def answer(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
        await asyncio.sleep(30)
        return "too late"

    return FunctionModel(answer, model=name)


def conversation() -> Conversation:
    return Conversation(system=None, messages=[{"role": "user", "content": "hi"}])


class Tracked(ScriptedModel):
    """A scripted model whose streams say when they are closed."""

    def __init__(self, turns: list[str], *, model: str, fail_first: bool = False) -> None:
        super().__init__(turns, model=model)
        self.closed = 0
        self.fail_first = fail_first

    def stream(self, conversation: Conversation, tools: Any) -> AsyncIterator[Any]:
        return _Stream(self, super().stream(conversation, tools))


class _Stream:
    def __init__(self, owner: Tracked, inner: AsyncIterator[Any]) -> None:
        self.owner, self.inner = owner, inner

    def __aiter__(self) -> _Stream:
        return self

    async def __anext__(self) -> Any:
        if self.owner.fail_first:
            raise ConnectionError("refused")
        return await self.inner.__anext__()

    async def aclose(self) -> None:
        self.owner.closed += 1


def test_settings_are_checked_and_the_first_model_speaks_for_the_rest() -> None:
    with pytest.raises(ValueError, match="at least two") as one:
        FallbackModel(ScriptedModel([]))
    assert str(one.value) == "FallbackModel needs at least two models: the first and a fallback"

    class Other(ScriptedModel):
        provider = "anthropic"

    with pytest.raises(ValueError, match="one message format") as mixed:
        FallbackModel(ScriptedModel([]), Other([]))
    assert str(mixed.value) == (
        "FallbackModel: the models share one conversation, so they must speak one message "
        "format; got providers ['anthropic', 'test']"
    )
    for timeout in (0, -1.0):
        with pytest.raises(ValueError, match="timeout must be positive") as bad:
            FallbackModel(ScriptedModel([]), ScriptedModel([]), timeout=timeout)
        assert str(bad.value) == "FallbackModel: timeout must be positive seconds (or None)"
    first, second = ScriptedModel([], model="a"), ScriptedModel([], model="b")
    model = FallbackModel(first, second, timeout=0.5)
    assert (model.config, model.provider, model.timeout, model.model) == (
        first.config,
        "test",
        0.5,
        "a",
    )
    assert model.models == (first, second)
    assert FallbackModel(first, second).timeout is None
    assert isinstance(model, LLMClient) and isinstance(first.config, LLMConfig)


async def test_only_the_named_errors_move_on_and_a_timeout_always_does() -> None:
    model = FallbackModel(
        failing(ConnectionError("refused"), "a"),
        slow("b"),
        ScriptedModel(["hello"], model="c"),
        timeout=0.2,
        fallback_on=(ConnectionError,),
    )
    turn = await model.complete(conversation(), None)
    assert (turn.text, turn.model, model.model) == ("hello", "c", "c")
    assert turn.fallbacks == [
        {"model": "a", "error": "ConnectionError: refused"},
        {"model": "b", "error": "no answer within 0.2 s"},
    ]
    other = FallbackModel(
        failing(KeyError("x"), "a"), ScriptedModel(["never"]), fallback_on=(ConnectionError,)
    )
    with pytest.raises(KeyError):
        await other.complete(conversation(), None)
    default = FallbackModel(failing(KeyError("x"), "a"), ScriptedModel(["yes"], model="b"))
    assert (await default.complete(conversation(), None)).fallbacks == [
        {"model": "a", "error": "KeyError: 'x'"}
    ]


async def test_a_turn_from_the_first_model_names_no_fallback() -> None:
    model = FallbackModel(ScriptedModel(["one"], model="a"), ScriptedModel([], model="b"))
    turn = await model.complete(conversation(), None)
    assert (turn.model, turn.fallbacks, model.model) == ("a", [], "a")


async def test_when_every_model_fails_each_one_is_named_in_order() -> None:
    model = FallbackModel(failing(ConnectionError("down"), "a"), failing(RuntimeError("boom"), "b"))
    with pytest.raises(ModelsFailed) as raised:
        await model.complete(conversation(), None)
    assert raised.value.failures == [("a", "ConnectionError: down"), ("b", "RuntimeError: boom")]
    assert str(raised.value) == (
        "every model failed (a: ConnectionError: down; b: RuntimeError: boom)"
    )
    with pytest.raises(ModelsFailed) as streamed:
        async for _ in model.stream(conversation(), None):
            pass
    assert streamed.value.failures == raised.value.failures


async def test_a_stream_moves_on_at_its_first_event_and_closes_what_it_leaves() -> None:
    broken = Tracked([], model="a", fail_first=True)
    answering = Tracked(["hello there"], model="b")
    model = FallbackModel(broken, slow("s"), answering, timeout=0.2)
    events = [e async for e in model.stream(conversation(), None)]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["hello ", "there"]
    final = events[-1]
    assert isinstance(final, LLMTurn) and final.model == "b"
    assert final.fallbacks == [
        {"model": "a", "error": "ConnectionError: refused"},
        {"model": "s", "error": "no answer within 0.2 s"},
    ]
    assert (broken.closed, answering.closed, model.model) == (1, 1, "b")
    untimed = FallbackModel(failing(TimeoutError(), "a"), ScriptedModel(["x"], model="b"))
    turn = await untimed.complete(conversation(), None)
    assert turn.fallbacks == [{"model": "a", "error": "timed out"}]


async def test_the_conversation_goes_to_the_model_that_answered() -> None:
    first = failing(ConnectionError("down"), "a")
    second = ScriptedModel(["ok"], model="b")
    model = FallbackModel(first, second)
    talk = conversation()
    turn = await model.complete(talk, None)
    model.add_turn(talk, turn)
    model.add_results(talk, turn, [])
    model.add_user(talk, "again")
    assert talk.messages[-2:] == [dict(turn.raw), {"role": "user", "content": "again"}]
    await model.aclose()


class Recording(ScriptedModel):
    """A scripted model that says what it was handed, and streams as it is told."""

    def __init__(self, turns: list[str], *, model: str, events: list[Any] | None = None) -> None:
        super().__init__(turns, model=model)
        self.handed: list[tuple[str, Any]] = []
        self.events = events

    def add_results(self, conversation: Conversation, turn: LLMTurn, results: Any) -> None:
        self.handed.append(("results", turn))
        super().add_results(conversation, turn, results)

    def add_user(self, conversation: Conversation, text: str) -> None:
        self.handed.append(("user", text))
        super().add_user(conversation, text)

    def stream(self, conversation: Conversation, tools: Any) -> AsyncIterator[Any]:
        if self.events is None:
            return super().stream(conversation, tools)
        return _Plain(self.events)


class _Plain:
    """An async iterator with no ``aclose`` (not a generator)."""

    def __init__(self, events: list[Any]) -> None:
        self.events = list(events)

    def __aiter__(self) -> _Plain:
        return self

    async def __anext__(self) -> Any:
        if not self.events:
            raise StopAsyncIteration
        return self.events.pop(0)


async def test_what_each_model_is_handed() -> None:
    first, second = Recording([], model="a"), Recording(["ok"], model="b")
    model = FallbackModel(first, second)
    talk = conversation()
    model.add_user(talk, "hello")  # the first model's format, whichever answers
    assert (first.handed, second.handed) == ([("user", "hello")], [])
    model = FallbackModel(failing(ConnectionError("down"), "x"), second)
    turn = await model.complete(talk, None)
    model.add_results(talk, turn, [])
    assert second.handed == [("results", turn)]


async def test_a_stream_gets_the_tools_and_an_empty_or_plain_stream_is_an_answer() -> None:
    asked = ScriptedModel(["hi"], model="a")
    model = FallbackModel(asked, ScriptedModel([], model="b"))
    _ = [e async for e in model.stream(conversation(), [ping])]
    assert asked.requests[0].tool_names == ["ping"]
    empty = Recording([], model="a", events=[])
    never = Recording(["never"], model="b")
    model = FallbackModel(empty, never)
    assert [e async for e in model.stream(conversation(), None)] == []
    assert never.remaining == 1 and model.model == "a"
    plain = Recording([], model="a", events=[TextDelta(text="x")])
    model = FallbackModel(plain, never)
    assert [e async for e in model.stream(conversation(), None)] == [TextDelta(text="x")]

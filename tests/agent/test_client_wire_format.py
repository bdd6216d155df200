"""The scripted server's answers are what the APIs send: every JSON answer and every streamed
event validates as the SDK's own response types (validated, not just constructed)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from llm_server import Turn
from llm_server import _anthropic as anthropic_api
from llm_server import _openai_chat as chat_api
from llm_server import _responses as responses_api


def turns(cut_reason: str) -> list[Turn]:
    """A text answer, two calls, and an answer cut at the output limit (``cut_reason`` is
    how the API says so)."""
    return [
        Turn(text="Two words"),
        Turn(text="Adding.", calls=[("add", {"a": 1, "b": 2}, "c1"), ("add", {"a": 3}, "c2")]),
        Turn(text="Cut sho", stop_reason=cut_reason),
    ]


IDS = ["text", "calls", "cut"]
BODY: dict[str, Any] = {
    "model": "gpt-4.1",
    "stream": True,
    "stream_options": {"include_usage": True},
}


@pytest.mark.parametrize("turn", turns("length"), ids=IDS)
def test_chat_completions(turn: Turn) -> None:
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    ChatCompletion.model_validate(chat_api.answer(turn, 1, BODY), strict=False)
    frames = list(chat_api.chunks(turn, 1, BODY))
    assert frames[-1] == (None, "[DONE]")
    for event, data in frames[:-1]:
        assert event is None
        ChatCompletionChunk.model_validate(data)
    assert frames[-2][1]["choices"] == [] and frames[-2][1]["usage"]["total_tokens"] == 111


@pytest.mark.parametrize(
    "turn",
    [*turns("max_output_tokens"), Turn(text="Thought first.", reasoning=True)],
    ids=[*IDS, "reasoning"],
)
def test_responses(turn: Turn) -> None:
    from openai.types.responses import Response, ResponseStreamEvent

    Response.model_validate(responses_api.answer(turn, 1, BODY))
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    frames = list(responses_api.events(turn, 1, BODY))
    for number, (event, data) in enumerate(frames):
        assert event == data["type"] and data["sequence_number"] == number
        adapter.validate_python(data)
    assert frames[-1][0] == ("response.incomplete" if turn.stop_reason else "response.completed")


@pytest.mark.parametrize("turn", turns("max_tokens"), ids=IDS)
def test_anthropic_messages(turn: Turn) -> None:
    from anthropic.types import Message, RawMessageStreamEvent

    Message.model_validate(anthropic_api.answer(turn, 1, BODY))
    adapter: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
    frames = list(anthropic_api.events(turn, 1, BODY))
    kinds = [event for event, _ in frames]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    for event, data in frames:
        assert event == data["type"]
        if event != "ping":
            adapter.validate_python(data)

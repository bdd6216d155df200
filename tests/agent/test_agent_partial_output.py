"""Partial typed output: while a typed answer's JSON streams, the run tells the data written so
far, growing with each delta, and ends with the validated output; text answers and remarks
before tool calls give none. Through the real openai SDK streaming from a scripted server, and
offline with ``ScriptedModel``."""

from __future__ import annotations

import itertools
import json
from typing import Any

from agent_support import config
from pydantic import BaseModel
from scripted_llm import ScriptedLLM, Turn

from toolrig import tool
from toolrig.agent import Agent, FinalOutput, PartialOutput, TextDelta, make_client
from toolrig.testing import ModelTurn, ScriptedModel


class City(BaseModel):
    name: str
    population: int
    districts: list[str]


ANSWER = {"name": "Lyon", "population": 522000, "districts": ["Presqu'île", "Croix-Rousse"]}


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: 522000 people"


async def _events(agent: Agent[None, Any], prompt: str) -> list[Any]:
    return [event async for event in agent.stream(prompt)]


async def test_a_typed_answer_streams_as_growing_partial_data() -> None:
    model = ScriptedModel(
        [
            ModelTurn(text="Let me look.", calls=[("lookup", {"city": "Lyon"})]),
            json.dumps(ANSWER, ensure_ascii=False),
        ]
    )
    agent: Agent[None, City] = Agent("geo", "You know cities.", model, [lookup], output_type=City)
    events = await _events(agent, "Tell me about Lyon.")
    await agent.aclose()
    partials = [e.data for e in events if isinstance(e, PartialOutput)]
    assert len(partials) >= 3  # told as it grows, not once at the end
    assert partials[-1] == ANSWER
    assert partials[0] == {} or set(partials[0]) <= set(ANSWER)
    for before, after in itertools.pairwise(partials):
        assert set(before) <= set(after)  # fields are only added
    final = events[-1]
    assert isinstance(final, FinalOutput) and final.output == City(**ANSWER)
    # the remark before the tool call was text, not JSON: it gave no partial output
    first_text = next(e for e in events if isinstance(e, TextDelta))
    assert events.index(first_text) < events.index(
        next(e for e in events if isinstance(e, PartialOutput))
    )


async def test_through_the_openai_sdk_stream() -> None:
    with ScriptedLLM([Turn(text=json.dumps(ANSWER))]) as server:
        agent: Agent[None, City] = Agent(
            "geo", "You know cities.", make_client(config("openai", server)), output_type=City
        )
        events = await _events(agent, "Lyon?")
        await agent.aclose()
    partials = [e.data for e in events if isinstance(e, PartialOutput)]
    assert partials and partials[-1] == ANSWER
    assert isinstance(events[-1], FinalOutput) and events[-1].output == City(**ANSWER)


async def test_text_answers_give_no_partial_output() -> None:
    agent: Agent[None, str] = Agent("a", "You answer.", ScriptedModel(['{"looks": "like json"}']))
    events = await _events(agent, "hi")
    await agent.aclose()
    assert not any(isinstance(e, PartialOutput) for e in events)

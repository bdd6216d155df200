"""Streaming a run: text as it arrives, tool calls as they start and finish, the final output.

Run: python examples/agent_streaming.py
"""

from __future__ import annotations

import asyncio

from toolrig import tool
from toolrig.agent import Agent, FinalOutput, TextDelta, ToolCallFinished, ToolCallStarted
from toolrig.testing import ModelTurn, ScriptedModel


@tool
def word_count(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


async def main() -> None:
    model = ScriptedModel(
        [
            ModelTurn(text="Counting.", calls=[("word_count", {"text": "to be or not to be"})]),
            "The line has 6 words.",
        ]
    )
    agent = Agent("Counter", "You count words.", model, [word_count])
    async for event in agent.stream("How many words in 'to be or not to be'?"):
        if isinstance(event, TextDelta):
            print(event.text, end="", flush=True)
        elif isinstance(event, ToolCallStarted):
            print(f"\n-> {event.name}({event.arguments})")
        elif isinstance(event, ToolCallFinished):
            print(f"<- {event.result.output}")
        elif isinstance(event, FinalOutput):
            print(f"\n[{event.result.stop_reason}] {event.output}")


asyncio.run(main())

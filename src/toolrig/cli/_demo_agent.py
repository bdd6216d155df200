"""The demo's agent section with no LLM: :class:`~toolrig.testing.ScriptedModel` plays a model
that sends a bad call, reads toolrig's error and corrects itself.

The run goes through the real agent loop, executor and streaming events; only the model's
turns are scripted, so the section runs offline on every machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from toolrig.agent._loop import Agent
    from toolrig.agent._result import AgentResult

__all__ = ["run_scripted_agent", "watch"]


def run_scripted_agent(console: Console) -> bool:
    """Run the scripted agent over the demo tools, streamed; True when it finished its task."""
    from toolrig.agent._loop import Agent
    from toolrig.cli._demo_tools import build_executor
    from toolrig.core.context._background import run_sync
    from toolrig.testing import ModelTurn, ScriptedModel

    model = ScriptedModel(
        [
            ModelTurn(text="Adding them.", calls=[("add", {"a": "two", "b": 40})]),
            ModelTurn(
                text="The error says `a` must be an integer.", calls=[("add", {"a": 2, "b": 40})]
            ),
            ModelTurn(text="2 + 40 = 42."),
        ]
    )
    console.print(
        "[dim]No LLM is configured, so toolrig.testing.ScriptedModel plays the model: it sends "
        "a bad call, reads the error toolrig answers, and corrects itself.[/]"
    )
    with build_executor() as executor:
        agent: Agent[None, str] = Agent(
            "Calculator", "You add numbers with the tools.", model, executor, max_steps=4
        )
        result = run_sync(watch(console, agent, "What is two plus 40?"))
    console.print(f"[bold green]done[/] after {len(result.steps)} turns: {result.output}")
    return result.completed


async def watch(console: Console, agent: Agent[None, str], prompt: str) -> AgentResult[str]:
    """Run ``agent``, printing its text as it streams and each tool call as it finishes."""
    from rich.markup import escape

    from toolrig.agent._client import TextDelta
    from toolrig.agent._events import FinalOutput, ToolCallFinished

    async for event in agent.stream(prompt, raise_on_error=False):
        if isinstance(event, TextDelta):
            console.print(escape(event.text), end="", style="cyan")
        elif isinstance(event, ToolCallFinished):
            if event.result.success:
                console.print(f"\n  [green]✓ {escape(event.name)}[/] → {event.result.output!r}")
            else:
                shown = " ".join(event.result.to_text().split())[:160]
                console.print(f"\n  [red]✗ {escape(event.name)}[/] {escape(shown)}")
        elif isinstance(event, FinalOutput):
            console.print()
            return event.result
    raise RuntimeError("the run ended without its final event")

"""The orchestrator's "decide the next action" step, for users who drive their own loop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolrig.agent._client import LLMClient, Usage
from toolrig.core.model._names import ActionRef
from toolrig.core.result._result import ToolResult
from toolrig.registry._catalog import Catalog
from toolrig.runtime._executor import ToolExecutor

__all__ = ["NextAction", "decide_next_action"]

SYSTEM = (
    "You decide the single next step of a task. Look at the request and at the results so "
    "far, then call exactly one tool with its arguments. If nothing is left to do, answer in "
    "text without calling a tool."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class NextAction:
    """The model's choice: ``{tool, action, params}`` (``call_name`` is what the executor runs),
    or ``done`` with the model's text when it chose no tool."""

    tool: str | None
    action: str | None
    params: dict[str, Any]
    call_name: str | None
    done: bool
    text: str | None
    usage: Usage
    error: ToolResult | None = None
    """Set when the model's call could not be read (e.g. arguments that are not JSON)."""


async def decide_next_action(
    client: LLMClient,
    query: str,
    executor: ToolExecutor | Catalog,
    *,
    summary: str | None = None,
) -> NextAction:
    """Ask the model for the next tool call given the request and a summary of results so far
    (e.g. ``ExecutionLog.get_summary(run_id)``); the tools offered are those of ``executor``
    (an executor, or a catalogue such as a ``Registry``)."""
    catalog = executor.catalog if isinstance(executor, ToolExecutor) else executor
    prompt = query if not summary else f"{query}\n\nResults so far:\n{summary}"
    turn = await client.complete(client.start(prompt, system=SYSTEM), catalog)
    if not turn.calls:
        return NextAction(
            tool=None,
            action=None,
            params={},
            call_name=None,
            done=True,
            text=turn.text,
            usage=turn.usage,
        )
    first = turn.calls[0]
    if isinstance(first, ToolResult):
        meta = first.metadata
        return NextAction(
            tool=meta.tool if meta else None,
            action=meta.action if meta else None,
            params={},
            call_name=None,
            done=False,
            text=turn.text,
            usage=turn.usage,
            error=first,
        )
    resolved = catalog.resolve(first.name)
    params = dict(first.arguments) if isinstance(first.arguments, dict) else {}
    return NextAction(
        tool=resolved.tool if resolved else ActionRef.parse(first.name).tool,
        action=resolved.name if resolved else None,
        params=params,
        call_name=first.name,
        done=False,
        text=turn.text,
        usage=turn.usage,
    )

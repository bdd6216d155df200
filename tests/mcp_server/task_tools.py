"""Tools the MCP tasks tests serve (``toolrig serve tests/mcp_server/task_tools.py``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from toolrig import ToolContext, tool
from toolrig.mcp import TaskPolicy


def _mark(path: str, step: int) -> None:
    with Path(path).open("a") as out:
        out.write(f"{step}\n")


@tool
async def count_up(path: str, seconds: float = 30.0) -> str:
    """Append a line to ``path`` every 50 ms for ``seconds`` (the work a cancel must stop)."""
    steps = int(seconds / 0.05)
    for step in range(steps):
        _mark(path, step)  # a few bytes: the loop is not held up
        await asyncio.sleep(0.05)
    return f"counted {steps}"


@tool
def double(x: int) -> int:
    """Twice ``x`` (a task when the client offers them, else an ordinary call)."""
    return 2 * x


@tool
def must_be_task() -> str:
    """Only as a task."""
    return "done"


@tool
async def ask_twice(ctx: ToolContext) -> str:
    """Ask a name, then a colour, inside the task."""
    form = {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}
    name = await ctx.elicit("Name?", form, key="name")
    colour = await ctx.elicit("Colour?", form, key="colour")
    return f"{(name.content or {}).get('v')} likes {(colour.content or {}).get('v')}"


@tool
def noisy(lines: int = 20_000) -> str:
    """Far more text than a result's budget (the server's default, 32,000 characters)."""
    return "".join(f"{i:06d} noisy line\n" for i in range(lines))


tools = [count_up, double, must_be_task, ask_twice, noisy]
tasks = TaskPolicy(
    tools={
        "count_up": "optional",
        "double": "optional",
        "must_be_task": "required",
        "ask_twice": "optional",
        "noisy": "required",
    },
    poll_interval_ms=100,
)

"""The hooks a tool's context reaches (log, elicit, sample): who sets them, who sees them, and
that a call never waits on a hook that cannot answer."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from toolrig import ToolContext, ToolExecutor, tool
from toolrig.core import Elicitation, tool_interaction
from toolrig.core.context._interaction import current_interaction, offer_hooks
from toolrig.registry import Catalog


async def yes(message: str, schema: Mapping[str, Any]) -> Elicitation:
    return Elicitation(action="accept", content={"ok": True})


async def echo(messages: Sequence[Mapping[str, Any]], system: str | None, n: int) -> str:
    return f"{system}|{messages[-1]['content']}|{n}"


@tool
async def confirm(ctx: ToolContext) -> str:
    """Ask, then answer."""
    return (await ctx.elicit("Sure?", {"type": "object", "properties": {}})).action


@tool(isolation="process")
async def confirm_elsewhere(ctx: ToolContext) -> str:
    """Ask from a separate process."""
    return (await ctx.elicit("Sure?", {"type": "object", "properties": {}})).action


@tool
async def summarize(ctx: ToolContext) -> str:
    """Ask a model."""
    return await ctx.sample("text", system="short", max_tokens=7)


def test_hooks_reach_calls_started_inside_the_block_only() -> None:
    async def main() -> list[str | None]:
        with ToolExecutor(Catalog([confirm, summarize])) as executor:
            with tool_interaction(elicitor=yes, sampler=echo):
                inside = [
                    (await executor.execute("confirm", {})).output,
                    (await executor.execute("summarize", {})).output,
                ]
            after = (await executor.execute("confirm", {})).code
        return [*inside, after]

    assert asyncio.run(main()) == ["accept", "short|text|7", "permission_denied"]


def test_a_runner_offers_defaults_without_overriding_the_application() -> None:
    async def other(messages: Sequence[Mapping[str, Any]], system: str | None, n: int) -> str:
        return "runner's"

    with tool_interaction(sampler=echo):
        context = contextvars.copy_context()
    context.run(offer_hooks, sampler=other, elicitor=yes)
    chosen = context.run(current_interaction)
    assert chosen.sampler is echo and chosen.elicitor is yes
    with tool_interaction(sampler=echo), tool_interaction(sampler=other, fill_only=True) as hooks:
        assert hooks.sampler is echo


def test_a_process_isolated_tool_is_refused_at_once_not_left_waiting() -> None:
    with tool_interaction(elicitor=yes), ToolExecutor(Catalog([confirm_elsewhere])) as executor:
        started = time.monotonic()
        result = executor.execute_sync("confirm_elsewhere", {})
    assert result.code == "permission_denied"
    assert time.monotonic() - started < 20


def test_logs_go_to_python_logging_by_default(caplog: pytest.LogCaptureFixture) -> None:
    ctx = ToolContext(tool="t", action=None, tool_call_id="c")
    with caplog.at_level(logging.DEBUG, logger="toolrig.tool"):
        ctx.log("notice", "noted")
        ctx.log("debug", {"n": 1}, logger="toolrig.tool.mine")
    assert [(r.name, r.getMessage()) for r in caplog.records] == [
        ("toolrig.tool", "noted"),
        ("toolrig.tool.mine", "{'n': 1}"),
    ]


@tool
async def where(ctx: ToolContext) -> str:
    """Name the first root, asking under a key."""
    roots = await ctx.roots(key="places")
    return str(roots[0]["uri"])


async def test_roots_come_from_the_hook_and_a_question_key_reaches_it() -> None:
    from toolrig.core.context._interaction import QUESTION_KEY

    keys: list[str | None] = []

    async def roots() -> list[dict[str, Any]]:
        keys.append(QUESTION_KEY.get())
        return [{"uri": "file:///work", "name": "work"}]

    with ToolExecutor(Catalog([where])) as executor:
        refused = await executor.execute("where", {})
        assert refused.code == "not_supported"
        with tool_interaction(roots=roots):
            found = await executor.execute("where", {})
    assert found.output == "file:///work"
    assert keys == ["places"]
    assert QUESTION_KEY.get() is None  # set only while the question is asked

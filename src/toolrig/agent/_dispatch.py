"""The calls of one model turn: each named call resolved in the run's toolset and run through
the agent's executor (the one pipeline), concurrently, in the run's context (its ``deps`` and
approval scope); events as each starts and finishes; the calls the approval gate held.
When a guardrail trips, the calls of the turn still running are cancelled (those not started
yet are refused by the pipeline's guardrail step)."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from toolrig.agent._approval import PendingCall, RunScope
from toolrig.agent._events import ToolCallFinished, ToolCallStarted
from toolrig.agent._steps import StepHooks
from toolrig.agent._toolsets import ToolEntry
from toolrig.core.model._errors import ErrorCode
from toolrig.core.model._ids import new_call_id
from toolrig.core.model._suggest import not_found_among
from toolrig.core.result._result import ToolResult, error_result
from toolrig.providers._calls import ParsedCall
from toolrig.runtime._budget import result_budget
from toolrig.runtime._executor import ToolExecutor, default_executor
from toolrig.runtime._guardrails import GUARDING
from toolrig.runtime._read_result import read_result
from toolrig.runtime._request import ToolCall

__all__ = ["TurnCalls"]


class TurnCalls:
    """Runs a turn's calls; after `run` is exhausted, `results` holds one result per
    call in the calls' order and `held` the calls waiting for approval."""

    def __init__(
        self,
        executor: ToolExecutor,
        entries: Sequence[ToolEntry],
        context: contextvars.Context,
        scope: RunScope,
        hooks: StepHooks | None = None,
    ) -> None:
        self.executor = executor
        self.hooks = hooks
        self.entries = {entry.name: entry for entry in entries}
        self.context = context
        self.scope = scope
        self.results: list[ToolResult] = []
        self.held: list[PendingCall] = []

    async def run(
        self, calls: Sequence[ParsedCall], decided: Mapping[str, ToolResult] | None = None
    ) -> AsyncIterator[ToolCallStarted | ToolCallFinished]:
        """Start every call not ``decided`` already, then report each as it finishes.
        ``decided`` is given when a held turn is finished: its calls that could not be read
        were reported when the turn was first run, and are not reported again."""
        first = decided is None
        decided = decided or {}
        slots: list[ToolResult | None] = [None] * len(calls)
        running: dict[asyncio.Task[ToolResult], int] = {}
        try:
            for index, call in enumerate(calls):
                if isinstance(call, ToolResult):  # the model's call could not even be read
                    if first:
                        self.executor.pipeline.refuse(call)
                    slots[index] = call
                    yield _finished(call, _name(call), call)
                    continue
                call_id = call.tool_call_id or new_call_id()
                yield ToolCallStarted(
                    tool_call_id=call_id, name=call.name, arguments=call.arguments
                )
                known = decided.get(call_id)
                if known is not None:
                    slots[index] = known
                    yield ToolCallFinished(tool_call_id=call_id, name=call.name, result=known)
                    continue
                task = asyncio.create_task(self._one(call, call_id), context=self.context.copy())
                running[task] = index
            waiting = set(running)
            guards = self.context.run(GUARDING.get)
            while waiting:
                done, waiting = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if guards is not None and guards.tripped is not None and waiting:
                    for task in waiting:
                        task.cancel()
                    await asyncio.wait(waiting)
                    done, waiting = done | waiting, set()
                for task in sorted(done, key=running.__getitem__):
                    index = running[task]
                    result = self._stopped(calls[index]) if task.cancelled() else task.result()
                    slots[index] = result
                    call = calls[index]
                    assert isinstance(call, ToolCall)
                    held = self._held(call, result)
                    if held is not None:
                        self.held.append(held)
                    else:
                        yield _finished(call, call.name, result)
        finally:
            for task in running:
                task.cancel()
        self.results = [slot for slot in slots if slot is not None]

    async def _one(self, call: ToolCall, call_id: str) -> ToolResult:
        if self.hooks is None:
            return await self._call(call, call_id)
        entry = self.entries.get(call.name)
        annotations = None if entry is None else entry.spec.action_annotations(entry.action)
        return await self.hooks.call_step(
            call.name, call_id, annotations, lambda: self._call(call, call_id)
        )

    async def _call(self, call: ToolCall, call_id: str) -> ToolResult:
        entry = self.entries.get(call.name)
        pipeline = self.executor.pipeline
        if entry is None:
            message = not_found_among(call.name, self._offered())
            return pipeline.not_found(call.name, message, call_id)
        if entry.disabled is not None:
            return pipeline.refuse(
                error_result(
                    ErrorCode.PERMISSION_DENIED,
                    f"`{call.name}` is disabled: {entry.disabled}",
                    tool=entry.spec.name,
                    action=entry.action,
                    tool_call_id=call_id,
                )
            )
        executor = self.executor
        if entry.tool is read_result:  # approval-free: it reads only what the run was given
            executor = default_executor()
        if entry.max_result_chars == "inherit":
            return await executor.run_tool(
                entry.tool, entry.action, call.arguments, tool_call_id=call_id
            )
        with result_budget(entry.max_result_chars):  # this task's own context: this call only
            return await executor.run_tool(
                entry.tool, entry.action, call.arguments, tool_call_id=call_id
            )

    def _stopped(self, call: ParsedCall) -> ToolResult:
        """The answer to a call cancelled because a guardrail tripped while it ran."""
        assert isinstance(call, ToolCall)
        entry = self.entries.get(call.name)
        return self.executor.pipeline.refuse(
            error_result(
                ErrorCode.GUARDRAIL,
                "Cancelled: a guardrail stopped the run while this call ran.",
                tool=entry.spec.name if entry is not None else call.name,
                action=entry.action if entry is not None else None,
                tool_call_id=call.tool_call_id or "",
            )
        )

    def _offered(self) -> list[str]:
        return [name for name, entry in self.entries.items() if entry.disabled is None]

    def _held(self, call: ToolCall, result: ToolResult) -> PendingCall | None:
        meta = result.metadata
        held = None if meta is None else self.scope.held.pop(meta.tool_call_id, None)
        if held is None:
            if meta is None or meta.decision != "held":
                return None
            # held by the gate in an earlier life of a durable run: its result says so
            return PendingCall(
                tool_call_id=meta.tool_call_id or "",
                name=call.name,
                arguments=dict(call.arguments) if isinstance(call.arguments, Mapping) else {},
                tool=meta.tool,
            )
        return PendingCall(
            tool_call_id=held.tool_call_id,
            name=call.name,
            arguments=dict(held.arguments),
            tool=held.tool,
        )


def _name(result: ToolResult) -> str:
    return result.metadata.tool if result.metadata else "?"


def _finished(call: Any, name: str, result: ToolResult) -> ToolCallFinished:
    meta = result.metadata
    call_id = getattr(call, "tool_call_id", None) or (meta.tool_call_id if meta else "")
    return ToolCallFinished(tool_call_id=call_id, name=name, result=result)

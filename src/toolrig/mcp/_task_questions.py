"""The questions a tool asks inside an MCP task: asked through the task and awaited.

While a task waits on them it reads ``input_required`` with the questions (``inputRequests``,
keyed by the names the tool gave them); ``tasks/update`` answers them and the tool goes on from
where it waited (it is not run again, unlike input-required rounds). Answers recorded by the
input-required rounds that came before the task (``ask_first`` tools) are replayed first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolrig.core.context._interaction import QUESTION_KEY, Elicitation, Root, SampleMessage
from toolrig.mcp._client_hooks import check_form
from toolrig.mcp._rounds import RoundHooks, sampling_params
from toolrig.mcp._task_state import Pending, TaskState

__all__ = ["TaskQuestions"]


class TaskQuestions:
    """A task's elicitor, sampler and roots: answers replayed from earlier input-required
    rounds first (``ask_first``), then questions the task waits on."""

    def __init__(self, task: TaskState, caps: Any, rounds: RoundHooks | None) -> None:
        self.task = task
        self.caps = caps
        self.rounds = rounds
        self.handed_over = rounds is None
        self.asked = 0
        self.changed: Callable[[TaskState], None] = lambda _task: None

    def _in_rounds(self) -> RoundHooks | None:
        rounds = self.rounds
        return rounds if rounds is not None and (not self.handed_over or rounds.replaying) else None

    async def _ask(self, kind: str, request: dict[str, Any]) -> dict[str, Any]:
        task = self.task
        key = QUESTION_KEY.get() or f"q{self.asked}"
        self.asked += 1
        while key in task.pending:
            key = f"{key}-{self.asked}"
        slot: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        task.pending[key] = Pending(kind, request, slot)
        if task.move("input_required"):
            self.changed(task)
        try:
            return await slot
        finally:
            task.pending.pop(key, None)
            if not task.pending and task.move("working"):
                self.changed(task)

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicitation:
        rounds = self._in_rounds()
        if rounds is not None:
            return await rounds.elicit(message, schema)
        check_form(self.caps, message, schema)
        params = {"mode": "form", "message": message, "requestedSchema": dict(schema)}
        answer = await self._ask("elicit", {"method": "elicitation/create", "params": params})
        return Elicitation(action=answer["action"], content=answer.get("content"))

    async def sample(
        self, messages: Sequence[SampleMessage], system: str | None, max_tokens: int
    ) -> str:
        rounds = self._in_rounds()
        if rounds is not None:
            return await rounds.sample(messages, system, max_tokens)
        params = sampling_params(messages, system, max_tokens)
        answer = await self._ask("sample", {"method": "sampling/createMessage", "params": params})
        return str(answer["text"])

    async def roots(self) -> list[Root]:
        rounds = self._in_rounds()
        if rounds is not None:
            return await rounds.roots()
        answer = await self._ask("roots", {"method": "roots/list", "params": {}})
        return list(answer["roots"])

"""The agent loop: the model chooses the next tools, toolrig runs them, until the task is done.

Each turn sends the conversation with the tools' schemas; the model's tool calls run through
the executor (concurrently); their results, errors included, go back so the model can correct
itself. The loop ends when the model answers without a tool call, calls
``attempt_completion``, or spends its step or time budget. Every turn and every call is
recorded in the execution log when one is given.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from toolrig.agent._client import LLMClient, LLMTurn, Usage
from toolrig.agent._completion import COMPLETION_TOOL, attempt_completion
from toolrig.agent._config import LLMConfig
from toolrig.agent._factory import make_client
from toolrig.core._background import run_sync
from toolrig.core._base import BaseTool
from toolrig.core._events import Outcome
from toolrig.core._result import ToolResult
from toolrig.providers._calls import ParsedCall
from toolrig.registry._catalog import Catalog
from toolrig.runtime._calls import ToolCall
from toolrig.runtime._executor import ToolExecutor
from toolrig.storage._log import ExecutionLog

__all__ = ["Agent", "AgentResult", "AgentStep", "StopReason"]

StopReason = Literal["answer", "completion", "max_steps", "time_budget", "error"]


@dataclass(slots=True, kw_only=True)
class AgentStep:
    """One model turn and the tool calls it made."""

    index: int
    text: str | None
    calls: list[dict[str, Any]] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    duration_ms: float = 0.0


@dataclass(slots=True, kw_only=True)
class AgentResult:
    """What a run produced: the final output, every step, the tokens used and why it stopped."""

    run_id: str
    output: str | None
    stop_reason: StopReason
    steps: list[AgentStep]
    usage: Usage
    error: str | None = None

    @property
    def completed(self) -> bool:
        """True when the model finished the task (an answer or ``attempt_completion``)."""
        return self.stop_reason in ("answer", "completion")


class Agent:
    """An LLM that uses tools: ``Agent(name, role, model, tools).run(prompt)``.

    ``model`` is a model name (the endpoint comes from the environment or config file, see
    :class:`~toolrig.agent.LLMConfig`), an :class:`LLMConfig`, or a ready :class:`LLMClient`.
    ``tools`` are tools (or functions), a :class:`~toolrig.registry.Catalog` such as a
    ``Registry`` (followed live), or a :class:`~toolrig.ToolExecutor` whose policy (time
    limits, retries, middleware) the calls then follow. The agent offers ``attempt_completion``
    besides them without adding it to a catalogue it was given. ``tools_per_turn`` shows the
    model only that many tools per turn, those that tool search finds for the task (for
    catalogues too big for one prompt).
    """

    def __init__(
        self,
        name: str,
        role: str,
        model: str | LLMConfig | LLMClient | None = None,
        tools: ToolExecutor | Catalog | Iterable[BaseTool | Callable[..., Any]] = (),
        *,
        max_steps: int = 10,
        time_budget: float | None = None,
        log: ExecutionLog | None = None,
        instructions: str | None = None,
        tools_per_turn: int | None = None,
        **llm_settings: Any,
    ) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.name = name
        self.role = role
        self.max_steps = max_steps
        self.time_budget = time_budget
        self.log = log
        self.instructions = instructions
        if tools_per_turn is not None and tools_per_turn < 1:
            raise ValueError("tools_per_turn must be at least 1 (or None for every tool)")
        self._owns_executor = not isinstance(tools, ToolExecutor)
        self.executor: ToolExecutor = (
            tools if isinstance(tools, ToolExecutor) else ToolExecutor(tools)
        )
        """Runs the model's calls (built here unless one was given)."""
        self.tools_per_turn = tools_per_turn
        self._index: Any = None
        if tools_per_turn is not None:
            from toolrig.search._index import ToolIndex

            self._index = ToolIndex.follow(self.catalog)
            if log is not None:  # tools called often in earlier runs rank a little higher
                self._index.set_usage(log.tool_usage())
        if isinstance(model, LLMClient):
            self.client = model
        elif isinstance(model, LLMConfig):
            self.client = make_client(model)
        else:
            self.client = make_client(model=model, **llm_settings)

    @property
    def catalog(self) -> Catalog:
        """The agent's tools (besides ``attempt_completion``): the executor's catalogue."""
        return self.executor.catalog

    @property
    def system_prompt(self) -> str:
        """What the model is told about itself and how to finish."""
        parts = [f"You are {self.name}. {self.role}".strip()]
        if self.instructions:
            parts.append(self.instructions)
        parts.append(
            "Use the tools when they help; several independent calls may be made at once. "
            "If a tool answers with an error, read it and correct the call. When the task is "
            f"done, call `{COMPLETION_TOOL}` with the final result."
        )
        return "\n\n".join(parts)

    def run(self, prompt: str, *, run_id: str | None = None) -> AgentResult:
        """Blocking :meth:`arun`."""
        return run_sync(self.arun(prompt, run_id=run_id))

    async def arun(self, prompt: str, *, run_id: str | None = None) -> AgentResult:
        """Run until the task is done or a budget is spent."""
        run_id = run_id or f"agent-{uuid.uuid4().hex[:12]}"
        deadline = None if self.time_budget is None else time.monotonic() + self.time_budget
        conversation = self.client.start(prompt, system=self.system_prompt)
        steps: list[AgentStep] = []
        usage = Usage()
        last_text: str | None = None
        for index in range(1, self.max_steps + 1):
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return AgentResult(
                    run_id=run_id,
                    output=last_text,
                    stop_reason="time_budget",
                    steps=steps,
                    usage=usage,
                )
            t0 = time.perf_counter()
            try:
                offered = self._offered(prompt, last_text)
                async with asyncio.timeout(remaining):
                    turn = await self.client.complete(conversation, offered)
            except TimeoutError:
                return AgentResult(
                    run_id=run_id,
                    output=last_text,
                    stop_reason="time_budget",
                    steps=steps,
                    usage=usage,
                )
            except Exception as exc:  # the SDK already retried; report instead of raising
                message = f"{type(exc).__name__}: {exc}"
                self._record_turn(run_id, index, None, message, t0)
                return AgentResult(
                    run_id=run_id,
                    output=last_text,
                    stop_reason="error",
                    steps=steps,
                    usage=usage,
                    error=message,
                )
            usage.add(turn.usage)
            last_text = turn.text or last_text
            self.client.add_turn(conversation, turn)
            self._record_turn(run_id, index, turn, None, t0)
            step = AgentStep(
                index=index,
                text=turn.text,
                usage=turn.usage,
                calls=[_describe(c) for c in turn.calls],
            )
            steps.append(step)
            if not turn.calls:
                step.duration_ms = (time.perf_counter() - t0) * 1000
                return AgentResult(
                    run_id=run_id, output=turn.text, stop_reason="answer", steps=steps, usage=usage
                )
            results = await self._execute(turn.calls)
            self._count_uses(results)
            step.results = results
            step.duration_ms = (time.perf_counter() - t0) * 1000
            self._record_results(run_id, index, turn, results)
            self.client.add_results(conversation, turn, results)
            done = _completion(turn, results)
            if done is not None:
                return AgentResult(
                    run_id=run_id, output=done, stop_reason="completion", steps=steps, usage=usage
                )
        return AgentResult(
            run_id=run_id, output=last_text, stop_reason="max_steps", steps=steps, usage=usage
        )

    def _offered(self, prompt: str, last_text: str | None) -> list[BaseTool]:
        """The tools shown this turn: all of them, or the ``tools_per_turn`` that fit best; and
        ``attempt_completion``."""
        catalog = self.catalog
        completion = catalog.find(COMPLETION_TOOL) or attempt_completion
        if self._index is None or self.tools_per_turn is None:
            return [t for t in catalog.tools() if t is not completion] + [completion]
        from toolrig.search._request import MAX_QUERY_CHARS

        query = (prompt if not last_text else f"{prompt}\n{last_text}")[:MAX_QUERY_CHARS]
        if not query.strip():
            return [t for t in catalog.tools() if t is not completion] + [completion]
        hits = self._index.search(query, k=self.tools_per_turn, group="tool")
        chosen = [catalog.find(h.tool) for h in hits if h.tool != COMPLETION_TOOL]
        return [t for t in chosen if t is not None] + [completion]

    async def _execute(self, calls: list[ParsedCall]) -> list[ToolResult]:
        """Run the turn's calls concurrently through the executor, in the calls' order (a result
        standing for a call that could not run is passed through). ``attempt_completion`` runs
        here when the catalogue has no tool of that name."""

        async def run(call: ParsedCall) -> ToolResult:
            if isinstance(call, ToolResult):
                return call
            if call.name == COMPLETION_TOOL and COMPLETION_TOOL not in self.catalog:
                return await self.executor.run_tool(
                    attempt_completion,
                    COMPLETION_TOOL,
                    call.arguments,
                    tool_call_id=call.tool_call_id,
                )
            return await self.executor.execute(
                call.name, call.arguments, tool_call_id=call.tool_call_id
            )

        return list(await asyncio.gather(*(run(call) for call in calls)))

    def _count_uses(self, results: list[ToolResult]) -> None:
        if self._index is None:
            return
        for result in results:
            meta = result.metadata
            if result.success and meta is not None and meta.tool != COMPLETION_TOOL:
                self._index.record_use(meta.tool)

    async def aclose(self) -> None:
        """Close the LLM client's connections, and the executor when the agent built it."""
        if self._index is not None:
            self._index.unfollow(self.catalog)
        if self._owns_executor:
            self.executor.close()
        await self.client.aclose()

    def _record_turn(
        self, run_id: str, index: int, turn: LLMTurn | None, error: str | None, t0: float
    ) -> None:
        if self.log is None:
            return
        output = (
            None
            if turn is None
            else {
                "text": turn.text,
                "tool_calls": [_describe(c) for c in turn.calls],
                "input_tokens": turn.usage.input_tokens,
                "output_tokens": turn.usage.output_tokens,
            }
        )
        self.log.add_result(
            self.client.model,
            "llm",
            self.client.provider,
            None,
            output,
            Outcome.FAILED if error else Outcome.SUCCEEDED,
            error,
            run_id=run_id,
            step_id=f"turn{index}",
            duration_ms=(time.perf_counter() - t0) * 1000,
        )

    def _record_results(
        self, run_id: str, index: int, turn: LLMTurn, results: list[ToolResult]
    ) -> None:
        if self.log is None:
            return
        for call, result in zip(turn.calls, results, strict=True):
            arguments = call.arguments if isinstance(call, ToolCall) else None
            self.log.add_tool_result(
                result, run_id=run_id, step_id=f"turn{index}", input_data=arguments
            )


def _describe(call: ToolCall | ToolResult) -> dict[str, Any]:
    if isinstance(call, ToolCall):
        return {"name": call.name, "arguments": call.arguments, "id": call.tool_call_id}
    meta = call.metadata
    return {
        "name": meta.tool if meta else "?",
        "id": meta.tool_call_id if meta else None,
        "error": call.error.code if call.error else None,
    }


def _completion(turn: LLMTurn, results: list[ToolResult]) -> str | None:
    for call, result in zip(turn.calls, results, strict=True):
        if isinstance(call, ToolCall) and call.name == COMPLETION_TOOL and result.success:
            output = result.output
            return str(output.get("result", "")) if isinstance(output, dict) else str(output)
    return None

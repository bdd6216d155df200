"""One run of an agent: the model chooses the next tools, toolrig runs them, until the task is
done.

Each turn sends the conversation with the run's tools; the model's calls run through the
executor (concurrently); their results, errors included, go back so the model can correct
itself. The run ends on an answer without a tool call, an ``attempt_completion`` call, calls
held for approval, or a spent step or time budget. `AgentRun.events` is the run (one
async generator, so streaming and plain runs share every line); `AgentRun.turn` is one
model turn.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from typing import Any, Generic, Protocol

from typing_extensions import TypeVar

from toolrig.agent._approval import SCOPE, ApprovalPolicy, Decision, RunScope
from toolrig.agent._ask import ask_model
from toolrig.agent._call_ids import CallIds, to_wire
from toolrig.agent._claim import AlreadyDecided, record_decisions
from toolrig.agent._client import Conversation, LLMClient, LLMTurn, TextDelta, Usage
from toolrig.agent._completion import COMPLETION_TOOL, attempt_completion
from toolrig.agent._decided import DecidedTurn
from toolrig.agent._dispatch import TurnCalls
from toolrig.agent._events import AgentEvent, ApprovalRequired
from toolrig.agent._guards import scope_for
from toolrig.agent._inline import OnApproval, ask_handler
from toolrig.agent._limits import RunLimits
from toolrig.agent._output import OutputInvalid, OutputSpec
from toolrig.agent._partial import PartialJson
from toolrig.agent._pending import HeldTurn
from toolrig.agent._result import AgentResult, AgentStep, RunContext, StopReason
from toolrig.agent._sampling import client_sampler
from toolrig.agent._steps import StepHooks
from toolrig.agent._toolsets import Prepare, ToolEntry, Toolset
from toolrig.agent._turn_log import TurnLog, describe
from toolrig.core.context._context import RUN_DEPS
from toolrig.core.context._interaction import Elicitor, offer_hooks
from toolrig.core.context._recording import RECORDING, Recording
from toolrig.core.result._result import ToolResult
from toolrig.providers._calls import ParsedCall
from toolrig.providers._names import NameMap
from toolrig.runtime._budget import RESULT_BUDGET
from toolrig.runtime._executor import ToolExecutor
from toolrig.runtime._guardrails import GUARDING, GuardrailScope, InputGuardrail, OutputGuardrail
from toolrig.runtime._read_result import READ_RESULT_TOOL, read_result
from toolrig.runtime._request import ToolCall
from toolrig.storage._log import ExecutionLog
from toolrig.storage._sessions import SessionStore

__all__ = ["AgentRun", "RunHost"]

OutputT = TypeVar("OutputT", default=str)

_COMPLETION_ENTRY = ToolEntry(
    name=COMPLETION_TOOL,
    tool=attempt_completion,
    action=next(iter(attempt_completion.spec.actions)),
)
_READ_RESULT_ENTRY = ToolEntry(
    name=READ_RESULT_TOOL,
    tool=read_result,
    action=next(iter(read_result.spec.actions)),
)


class RunHost(Protocol):
    """What a run reads from its agent (the settings that outlive runs)."""

    client: LLMClient
    executor: ToolExecutor
    log: ExecutionLog | None
    max_steps: int
    time_budget: float | None
    output_retries: int
    approval: ApprovalPolicy | None
    elicitor: Elicitor | None
    tools_per_turn: int | None
    limits: RunLimits | None
    guardrails: tuple[InputGuardrail | OutputGuardrail, ...]
    prepare: Prepare | None
    max_result_chars: int | None
    on_approval: OnApproval | None
    sessions: SessionStore
    step_hooks: StepHooks | None
    _index: Any

    def _count_uses(self, results: list[ToolResult]) -> None: ...

    def offer(self, entries: Sequence[ToolEntry]) -> NameMap: ...


class AgentRun(Generic[OutputT]):
    """The state of one run; `events` drives it and `result` holds its end."""

    def __init__(
        self,
        agent: RunHost,
        conversation: Conversation,
        *,
        prompt: str | None,
        ctx: RunContext[Any],
        toolset: Toolset,
        output: OutputSpec[OutputT],
        held: HeldTurn | None = None,
        decisions: Mapping[str, Decision] | None = None,
        streaming: bool = False,
        policy: ApprovalPolicy | None = None,
        call_ids: CallIds | None = None,
        executor: ToolExecutor | None = None,
        recording: Recording | None = None,
        allowed: Collection[str] = (),
    ) -> None:
        self.agent = agent
        self.client = agent.client
        self.conversation = conversation
        self.prompt = prompt
        self.ctx = ctx
        self.toolset = toolset
        self.output = output
        self.resume = held
        self.decisions = dict(decisions or {})
        self.streaming = streaming
        self.steps: list[AgentStep] = []
        self.usage = Usage()
        self.last_text: str | None = None
        self.retries_left = agent.output_retries
        self.calls_made = 0
        """Tool calls run (``attempt_completion`` not counted), for ``RunLimits.tool_calls``."""
        self.held: HeldTurn | None = None
        """The turn this run stopped in, for approval (stored with the session)."""
        self.result: AgentResult[OutputT] | None = None
        loop_now, budget = asyncio.get_running_loop().time(), agent.time_budget
        self.deadline = None if budget is None else loop_now + budget
        self.scope = RunScope(policy=policy, allowed=set(allowed))
        """The gate's view of this run: the session's policy, which the caller joined with
        the agent's (see ``_session_policy``)."""
        self.executor = executor or agent.executor
        """Runs the calls: the agent's executor, with the approval gate when ``policy`` asks."""
        self.call_ids = call_ids or CallIds()
        """The ids the session has used: a call repeating one is renamed, never merged."""
        self.recording = recording
        """The run's recording scope (``None``: the agent has no log); each turn narrows it."""
        self.turn_log = TurnLog(agent.log, recording, agent.client, conversation, streaming)
        """Records each model turn (what it was given, what it answered) in the log."""
        self.output_rejected = False
        """Whether the run ended because its final answer did not match the output type."""
        self.approval_error: str | None = None
        """Why ``on_approval`` decided nothing (it raised, returned no decision, timed out)."""
        self._inline: tuple[DecidedTurn, TurnCalls] | None = None
        self.guards = GuardrailScope()
        """What the run's guardrails decided (its calls are checked in this scope)."""
        self.context = contextvars.copy_context()
        self.context.run(RECORDING.set, recording)
        self.context.run(RUN_DEPS.set, ctx.deps)
        self.context.run(SCOPE.set, self.scope)
        self.context.run(RESULT_BUDGET.set, agent.max_result_chars)
        self.cut = False
        """Whether a result of this run was cut (``read_result`` is offered from then on)."""
        self.context.run(  # ctx.sample(...) asks the agent's model, ctx.elicit(...) its elicitor
            offer_hooks, sampler=client_sampler(agent.client), elicitor=agent.elicitor
        )

    # -- the run ----------------------------------------------------------------------------
    async def events(self) -> AsyncIterator[AgentEvent]:
        """Run to the end, telling each event."""
        if self.resume is not None:
            async for event in self._finish_held(self.resume):
                yield event
        if self.prompt is not None and self.result is None:
            self.client.add_user(self.conversation, self.prompt)
        for index in range(1, self.agent.max_steps + 1):
            if self.result is not None:
                break
            async for event in self.turn(index):
                yield event
        if self.result is None:
            self._stop("max_steps")
        if self.held is not None:
            yield ApprovalRequired(pending=list(self.held.held))

    async def turn(self, index: int) -> AsyncIterator[AgentEvent]:
        """One model turn and the calls it makes."""
        t0 = time.perf_counter()
        if self.deadline is not None and asyncio.get_running_loop().time() >= self.deadline:
            self._stop("time_budget")
            return
        limits = self.agent.limits
        spent = limits.before_request(self.usage) if limits is not None else None
        if spent is not None:
            self._stop("usage_limit", error=spent)
            return
        self.ctx.step = index
        entries = self._entries()
        offered = self.agent.offer(entries)
        given = self.turn_log.given(entries)
        turn: LLMTurn | None = None
        partial = PartialJson.for_output(self.output, self.streaming)
        try:
            async for item in ask_model(
                self.client,
                self.conversation,
                offered,
                self.streaming,
                self.deadline,
                self.agent.step_hooks,
                self.turn_log,
            ):
                if isinstance(item, TextDelta):
                    yield item
                    told = partial.feed(item.text) if partial is not None else None
                    if told is not None:
                        yield told
                else:
                    turn = item
        except TimeoutError:
            self._stop("time_budget")
            return
        except Exception as exc:  # the SDK already retried: the run fails with the reason
            message = f"{type(exc).__name__}: {exc}"
            self.turn_log.record(index, given, None, message, t0)
            self._stop("error", error=message)
            return
        if turn is None:
            self._stop("error", error="the client's stream ended without a turn")
            return
        self.usage.add(turn.usage)
        asked = sum(1 for c in turn.calls if describe(c)["name"] != COMPLETION_TOOL)
        over = limits.before_calls(self.calls_made, asked) if limits is not None else None
        if over is not None:  # neither run nor kept: a resumed run asks the model again
            self.turn_log.record(index, given, turn, None, t0)
            self._stop("usage_limit", error=over)
            return
        self.calls_made += asked
        self.last_text = turn.text or self.last_text
        self.client.add_turn(self.conversation, turn)
        self.turn_log.record(index, given, turn, None, t0)
        own, wire = self.call_ids.unique(turn.calls)  # the model's ids stay in the conversation
        step = AgentStep(
            index=index, text=turn.text, usage=turn.usage, calls=[describe(c) for c in own]
        )
        self.steps.append(step)
        if not turn.calls:
            step.duration_ms = (time.perf_counter() - t0) * 1000
            self._final(turn.text, "answer")
            return
        self._open_step(index)
        self._guard(entries)
        calls = TurnCalls(self.executor, entries, self.context, self.scope, self.agent.step_hooks)
        async for event in calls.run(own):
            yield event
        decided: DecidedTurn | None = None
        if calls.held and self.agent.on_approval is not None:
            async for inline_event in self._decide_inline(own, calls, entries):
                yield inline_event
            decided, calls = self._inline or (None, calls)
        results = calls.results if decided is None else decided.model_view(calls.results)
        step.results = calls.results
        step.duration_ms = (time.perf_counter() - t0) * 1000
        if self.guards.tripped is not None:  # no further model turn
            self.client.add_results(self.conversation, turn, to_wire(results, wire))
            self._stop("guardrail", error=self.guards.tripped.message)
            return
        if calls.held:
            self.held = HeldTurn(turn.text, own, results, calls.held, wire)
            self._stop("approval", error=self.approval_error)
            return
        self._answer_calls(turn, own, results, wire)

    # -- steps of a turn ----------------------------------------------------------------------
    def _entries(self) -> list[ToolEntry]:
        """What the model is offered this turn: the toolset (narrowed by tool search when
        ``tools_per_turn`` is set, then by the agent's ``prepare``) and ``attempt_completion``."""
        entries = self.toolset.entries(self.ctx)
        index, count = self.agent._index, self.agent.tools_per_turn
        query = (self.prompt or "") + (f"\n{self.last_text}" if self.last_text else "")
        if index is not None and count is not None and query.strip():
            from toolrig.search._request import MAX_QUERY_CHARS

            hits = index.search(query[:MAX_QUERY_CHARS], k=count, group="tool")
            chosen = {hit.tool for hit in hits}
            entries = [e for e in entries if e.spec.name in chosen]
        if self.agent.prepare is not None:
            entries = list(self.agent.prepare(self.ctx, list(entries)))
            if not all(isinstance(e, ToolEntry) for e in entries):
                raise TypeError("prepare must return a list of ToolEntry")
        own = [e for e in entries if e.name == COMPLETION_TOOL]
        if self.cut and not any(e.name == READ_RESULT_TOOL for e in entries):
            entries = [*entries, _READ_RESULT_ENTRY]
        return [e for e in entries if e.name != COMPLETION_TOOL] + (own or [_COMPLETION_ENTRY])

    def _answer_calls(
        self,
        turn: LLMTurn,
        calls: list[ParsedCall],
        results: list[ToolResult],
        wire: Mapping[str, str],
    ) -> None:
        """Send the results back (under the ids the model sent); end the run when
        ``attempt_completion`` succeeded."""
        self.client.add_results(self.conversation, turn, to_wire(results, wire))
        self.cut = self.cut or any(r.metadata and r.metadata.result_handle for r in results)
        self.agent._count_uses(results)
        for call, result in zip(calls, results, strict=True):
            if isinstance(call, ToolCall) and call.name == COMPLETION_TOOL and result.success:
                output = result.output
                text = str(output.get("result", "")) if isinstance(output, dict) else str(output)
                self._final(text, "completion")
                return

    async def _finish_held(self, held: HeldTurn) -> AsyncIterator[AgentEvent]:
        """Decide the held calls of a stopped turn, run the approved ones, answer the turn."""
        t0 = time.perf_counter()
        self._open_step(0)
        entries = self._entries()
        self._guard(entries)
        decided = DecidedTurn(self.scope, held.held, self.decisions)
        calls = TurnCalls(self.executor, entries, self.context, self.scope, self.agent.step_hooks)
        ran = decided.calls(held.calls)
        async for event in self._run_decided(calls, ran, dict(held.known), None):
            yield event
        step = AgentStep(index=0, text=held.text, calls=[describe(c) for c in ran])
        step.results = calls.results
        step.duration_ms = (time.perf_counter() - t0) * 1000
        self.steps.append(step)
        # the turn as stored (its raw SDK object stays with the process that received it)
        self._answer_calls(
            LLMTurn(text=held.text, calls=held.calls),
            held.calls,
            decided.model_view(calls.results),
            held.wire,
        )
        if self.guards.tripped is not None and self.result is None:
            self._stop("guardrail", error=self.guards.tripped.message)

    async def _decide_inline(
        self, own: list[ParsedCall], calls: TurnCalls, entries: list[ToolEntry]
    ) -> AsyncIterator[AgentEvent]:
        """Ask ``on_approval`` about the calls ``calls`` held and run those it decided, in this
        turn (`_inline` is then the decisions and the calls as they ran); the calls it left,
        or every one when it failed, stay held."""
        self._inline = None
        handler = self.agent.on_approval
        assert handler is not None
        chosen, self.approval_error = await ask_handler(handler, calls.held, self.deadline)
        asked = [p for p in calls.held if p.tool_call_id in chosen]
        if not asked:
            return
        try:  # claimed before anything runs: the first decision recorded stands
            chosen = record_decisions(
                self.agent.sessions, self.ctx.session_id, asked, chosen, "on_approval"
            )
        except AlreadyDecided as exc:
            self.approval_error = str(exc)
            return
        decided = DecidedTurn(self.scope, asked, chosen)
        again = TurnCalls(self.executor, entries, self.context, self.scope)
        held_ids = {p.tool_call_id for p in calls.held}
        known = {_id(r): r for r in calls.results if _id(r) not in held_ids}
        async for event in self._run_decided(again, decided.calls(own), known, set(chosen)):
            yield event
        self._inline = (decided, again)

    async def _run_decided(
        self,
        runner: TurnCalls,
        calls: list[ParsedCall],
        known: dict[str, ToolResult],
        told: set[str] | None,
    ) -> AsyncIterator[AgentEvent]:
        """Run a turn's ``calls`` but the ``known`` ones again with the scope's decisions,
        telling the events of ``told`` call ids (``None``: all)."""
        try:
            async for event in runner.run(calls, known):
                if told is None or event.tool_call_id in told:
                    yield event
        finally:  # a decision is for the call it was given to, never for a later one
            self.scope.approved.clear()
            self.scope.decided.clear()

    def _final(self, text: str | None, reason: StopReason) -> None:
        """End with the typed output, or give the model its one precise retry."""
        try:
            value = self.output.parse(text)
        except OutputInvalid as exc:
            if self.retries_left > 0:
                self.retries_left -= 1
                self.client.add_user(self.conversation, str(exc))
                return
            self.output_rejected = True
            self._stop("error", error=f"the final answer does not match the output type: {exc}")
            return
        self._stop(reason, output=value)

    def _stop(
        self, reason: StopReason, *, output: OutputT | None = None, error: str | None = None
    ) -> None:
        self.result = AgentResult(
            run_id=self.ctx.run_id,
            session_id=self.ctx.session_id,
            output=output,
            stop_reason=reason,
            steps=self.steps,
            usage=self.usage,
            error=error,
            text=self.last_text,
            pending=list(self.held.held) if self.held is not None else [],
            guardrails=list(self.guards.outcomes),
            cost=_cost(self.agent.limits, self.usage),
        )

    def _guard(self, entries: Sequence[ToolEntry]) -> None:
        """Check this turn's calls with the agent's and the toolsets' guardrails."""
        self.context.run(GUARDING.set, scope_for(self.guards, self.agent.guardrails, entries))

    # -- the execution log --------------------------------------------------------------------
    def _open_step(self, index: int) -> None:
        """Record the calls made from here on as turn ``index`` of the run."""
        if self.recording is not None:
            self.context.run(RECORDING.set, self.recording.narrowed(step_id=f"turn{index}"))


def _id(result: ToolResult) -> str:
    return result.metadata.tool_call_id if result.metadata else ""


def _cost(limits: RunLimits | None, usage: Usage) -> float | None:
    """The run's cost at the limits' model price, when one is given."""
    price = limits.price if limits is not None else None
    return None if price is None else price.cost(usage)

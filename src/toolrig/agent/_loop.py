"""``Agent``: an LLM that uses tools, in conversations that outlive a process.

The agent holds what does not change between runs (the client, the executor, the toolsets, the
output type, the approval policy, the session store); each run gets its prompt or history, its
``deps``, its toolsets and its decisions on held calls, and is driven by `AgentRun`.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from toolrig.agent._approval import ApprovalPolicy, Decision, approval_gate
from toolrig.agent._call_ids import CallIds
from toolrig.agent._client import Conversation, LLMClient
from toolrig.agent._completion import COMPLETION_TOOL
from toolrig.agent._config import LLMConfig
from toolrig.agent._events import AgentEvent, FinalOutput
from toolrig.agent._factory import make_client
from toolrig.agent._guards import GuardrailTripped
from toolrig.agent._inline import OnApproval
from toolrig.agent._limits import RunLimits
from toolrig.agent._output import OutputSpec
from toolrig.agent._result import AgentResult, AgentRunError, RunContext
from toolrig.agent._run import AgentRun
from toolrig.agent._run_status import run_status
from toolrig.agent._session_policy import standing_allows
from toolrig.agent._session_run import open_session
from toolrig.agent._steps import StepHooks
from toolrig.agent._toolsets import (
    CatalogToolset,
    Prepare,
    ToolEntry,
    Toolset,
    as_toolset,
    name_map,
)
from toolrig.core.context._background import run_sync
from toolrig.core.context._interaction import Elicitor
from toolrig.core.define._base import BaseTool
from toolrig.core.result._result import ToolResult
from toolrig.providers._names import NameMap
from toolrig.registry._catalog import Catalog
from toolrig.runtime._budget import DEFAULT_RESULT_CHARS
from toolrig.runtime._executor import ToolExecutor
from toolrig.runtime._guardrails import InputGuardrail, OutputGuardrail
from toolrig.runtime._tracing import agent_span
from toolrig.storage._log import ExecutionLog
from toolrig.storage._runs import RunStatus
from toolrig.storage._sessions import SessionStore, session_store

if TYPE_CHECKING:
    from toolrig.search._config import SearchConfig

__all__ = ["Agent"]

DepsT = TypeVar("DepsT", default=None)
OutputT = TypeVar("OutputT", default=str)

Toolsets = Toolset | Catalog | ToolExecutor | Sequence[Toolset]


class Agent(Generic[DepsT, OutputT]):
    """An LLM that uses tools: ``Agent(name, role, model, tools).run(prompt)``.

    ``model`` is a model name (the endpoint comes from the environment or config file, see
    `LLMConfig`), an `LLMConfig`, or a ready `LLMClient`.
    ``tools`` are tools (or functions), a `Catalog` such as a
    ``Registry`` (followed live), or a `ToolExecutor` whose policy (time
    limits, retries, middleware) every call follows. ``toolsets`` replaces what the model is
    offered (by default every tool of ``tools``); a run may replace it again.
    ``output_type`` types the final answer (a pydantic model, a dataclass, a scalar);
    ``deps_type`` names the type of the ``deps`` each run hands its tools. ``approval`` holds
    the calls it names until a person decides, or ``on_approval`` (a function or coroutine
    function of a `PendingCall`) decides them during the run; ``elicitor`` answers a tool
    that asks for input during its call (``ctx.elicit``), as an MCP client would. ``limits``
    is each run's budget of tool calls, tokens or cost (`RunLimits`; ``max_steps`` counts
    turns). ``log`` records every turn and call, and keeps sessions so that a conversation
    continues in another process. ``tools_per_turn`` offers only the tools that tool search
    finds for each turn, ranked as ``tool_search`` says (e.g. ``SearchConfig.accurate()``).
    ``max_result_chars`` is each call's result budget (see docs/context.md).
    A failed run raises `AgentRunError` unless ``raise_on_error=False``. ``guardrails`` check
    every call the model makes (`InputGuardrail`, `OutputGuardrail`); a tripwire ends the run
    with ``GuardrailTripped`` (unless ``raise_on_error=False``). ``prepare(ctx, entries)``
    changes the tools of each step: another description, OpenAI schema strictness, or hidden
    (`Prepare`).
    """

    def __init__(
        self,
        name: str,
        role: str,
        model: str | LLMConfig | LLMClient | None = None,
        tools: ToolExecutor | Catalog | Iterable[BaseTool | Callable[..., Any]] = (),
        *,
        output_type: type[OutputT] | None = None,
        deps_type: type[DepsT] | None = None,
        toolsets: Toolsets | None = None,
        approval: ApprovalPolicy | None = None,
        guardrails: Sequence[InputGuardrail | OutputGuardrail] = (),
        prepare: Prepare | None = None,
        on_approval: OnApproval | None = None,
        elicitor: Elicitor | None = None,
        max_steps: int = 10,
        time_budget: float | None = None,
        limits: RunLimits | None = None,
        log: ExecutionLog | None = None,
        sessions: SessionStore | None = None,
        instructions: str | None = None,
        tools_per_turn: int | None = None,
        tool_search: SearchConfig | None = None,
        output_retries: int = 1,
        raise_on_error: bool = True,
        max_result_chars: int | None = DEFAULT_RESULT_CHARS,
        **llm_settings: Any,
    ) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if tools_per_turn is not None and tools_per_turn < 1:
            raise ValueError("tools_per_turn must be at least 1 (or None for every tool)")
        if output_retries < 0:
            raise ValueError("output_retries must be 0 or more")
        self.name = name
        self.role = role
        self.max_steps = max_steps
        if max_result_chars is not None and (
            isinstance(max_result_chars, bool) or max_result_chars < 1
        ):
            raise ValueError("max_result_chars must be at least 1 (None: never cut)")
        self.max_result_chars = max_result_chars
        """The run's result budget: a longer output reaches the model cut, the whole kept
        for ``read_result`` (a tool's own ``max_result_chars`` wins; ``None``: none)."""
        self.time_budget = time_budget
        self.limits = limits
        """The budget of each run (``RunLimits``); a stopped run is resumed by its session."""
        self.log = log
        self.instructions = instructions
        self.output_retries = output_retries
        self.raise_on_error = raise_on_error
        self.deps_type = deps_type
        self._output: OutputSpec[OutputT] = OutputSpec(str if output_type is None else output_type)
        self.approval = approval
        self.guardrails = tuple(guardrails)
        self.prepare = prepare
        """Changes what each step offers (see `Prepare`)."""
        if not all(isinstance(g, (InputGuardrail, OutputGuardrail)) for g in self.guardrails):
            raise TypeError("guardrails takes InputGuardrail and OutputGuardrail objects")
        self.on_approval = on_approval
        """Decides held calls during a run (``None`` for a call leaves it to a person)."""
        self.elicitor = elicitor
        """Answers a tool's ``ctx.elicit(...)`` during a run (unless the application set one)."""
        self.sessions: SessionStore = sessions or session_store(log)
        """Where conversations are kept between runs (the log's database, or memory)."""
        self._owns_executor = not isinstance(tools, ToolExecutor)
        given = tools if isinstance(tools, ToolExecutor) else ToolExecutor(tools)
        self.executor: ToolExecutor = (
            given if approval is None else given.with_middleware(approval_gate)
        )
        """Runs the model's calls: the executor given (or built here), with the approval gate
        in a pipeline of the agent's own when there is an approval policy (the given executor
        does not change)."""
        self._gated: ToolExecutor | None = None
        """The executor with the gate, for sessions whose stored policy the agent lacks."""
        self.step_hooks: StepHooks | None = None
        """Where each model request and tool call runs when a durable engine drives the
        runs (``toolrig.durable``); ``None``: here, unrecorded."""
        self.toolset: Toolset = (
            CatalogToolset(self.executor.catalog) if toolsets is None else as_toolset(toolsets)
        )
        """What the model is offered unless a run says otherwise."""
        self.tools_per_turn = tools_per_turn
        self._index: Any = None
        self._offered: tuple[tuple[Any, ...], NameMap] | None = None
        if tools_per_turn is not None:
            from toolrig.search._index import ToolIndex

            self._index = ToolIndex.follow(self.catalog, config=tool_search)
            if log is not None:  # tools called often in earlier runs rank a little higher
                self._index.set_usage(log.tool_usage())
                # and requests like earlier ones find the tools they led to (stored only
                # when the log keeps requests: log.keep_requests)
                from toolrig.storage._requests import RequestLog

                self._index.learn_from(RequestLog(log))
        if isinstance(model, LLMClient):
            self.client = model
        elif isinstance(model, LLMConfig):
            self.client = make_client(model)
        else:
            self.client = make_client(model=model, **llm_settings)

    def offer(self, entries: Sequence[ToolEntry]) -> NameMap:
        """The name map of a turn's ``entries``: the last turn's when they are the same
        (the same names for the same specs), so its provider exports are reused rather than
        made again every turn (1,000 tools: about 10 ms a turn)."""
        key = tuple(
            (e.name, e.spec, e.action_spec, e.disabled, e.description, e.strict) for e in entries
        )
        kept = self._offered
        if (
            kept is not None
            and len(kept[0]) == len(key)
            and all(
                a[0] == b[0] and a[1] is b[1] and a[2] is b[2] and a[3:] == b[3:]
                for a, b in zip(kept[0], key, strict=True)
            )
        ):
            return kept[1]
        offered = name_map(entries)
        self._offered = (key, offered)  # the key holds the specs, so none is reused meanwhile
        return offered

    @property
    def catalog(self) -> Catalog:
        """The agent's tools (besides ``attempt_completion``): the executor's catalogue."""
        return self.executor.catalog

    @property
    def output_type(self) -> Any:
        """The type of a run's output."""
        return self._output.output_type

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
        if self._output.instructions:
            parts.append(self._output.instructions)
        return "\n\n".join(parts)

    # -- running ----------------------------------------------------------------------------
    def run(
        self,
        prompt: str | None = None,
        *,
        history: Sequence[Mapping[str, Any]] | None = None,
        session_id: str | None = None,
        deps: DepsT | None = None,
        toolsets: Toolsets | None = None,
        approvals: Mapping[str, Decision] | None = None,
        run_id: str | None = None,
        raise_on_error: bool | None = None,
    ) -> AgentResult[OutputT]:
        """Blocking `arun`."""
        return run_sync(
            self.arun(
                prompt,
                history=history,
                session_id=session_id,
                deps=deps,
                toolsets=toolsets,
                approvals=approvals,
                run_id=run_id,
                raise_on_error=raise_on_error,
            )
        )

    run_sync = run

    async def arun(
        self,
        prompt: str | None = None,
        *,
        history: Sequence[Mapping[str, Any]] | None = None,
        session_id: str | None = None,
        deps: DepsT | None = None,
        toolsets: Toolsets | None = None,
        approvals: Mapping[str, Decision] | None = None,
        run_id: str | None = None,
        raise_on_error: bool | None = None,
    ) -> AgentResult[OutputT]:
        """Run until the task is done, calls wait for approval, or a budget is spent.

        ``prompt`` is the user's message; ``history`` earlier messages (e.g. a result's
        ``all_messages``); ``session_id`` continues a stored conversation (and names the
        one this run stores). ``approvals`` decides each call a stopped run held, by call id:
        the decision is claimed in the session store before any call runs, so a run that
        loses the claim to another (or comes after it) raises `AlreadyDecided` and
        runs nothing. The session keeps its approval policy: this run follows it joined with
        the agent's own.
        """
        result: AgentResult[OutputT] | None = None
        async for event in self._events(
            prompt, history, session_id, deps, toolsets, approvals, run_id, False
        ):
            if isinstance(event, FinalOutput):
                result = event.result
        assert result is not None
        return self._checked(result, raise_on_error)

    async def stream(
        self,
        prompt: str | None = None,
        *,
        history: Sequence[Mapping[str, Any]] | None = None,
        session_id: str | None = None,
        deps: DepsT | None = None,
        toolsets: Toolsets | None = None,
        approvals: Mapping[str, Decision] | None = None,
        run_id: str | None = None,
        raise_on_error: bool | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """`arun`, telling each event as it happens: text deltas, tool calls started and
        finished, calls held for approval, and last `FinalOutput`."""
        async for event in self._events(
            prompt, history, session_id, deps, toolsets, approvals, run_id, True
        ):
            if isinstance(event, FinalOutput):
                self._checked(event.result, raise_on_error)
            yield event

    async def _events(
        self,
        prompt: str | None,
        history: Sequence[Mapping[str, Any]] | None,
        session_id: str | None,
        deps: Any,
        toolsets: Toolsets | None,
        approvals: Mapping[str, Decision] | None,
        run_id: str | None,
        streaming: bool,
    ) -> AsyncIterator[AgentEvent]:
        """The run, from the stored session (if any) to the saved one."""
        run_id = run_id or f"agent-{uuid.uuid4().hex[:12]}"
        opened = open_session(
            self.sessions,
            self.approval,
            prompt=prompt,
            history=history,
            session_id=session_id,
            approvals=approvals,
            run_id=run_id,
        )
        session_id, messages, state = opened.session_id, opened.messages, opened.state
        recording = (
            None
            if self.log is None
            else self.log.start_run(run_id, "agent", name=self.name, session_id=session_id)
        )
        conversation = Conversation(system=self.system_prompt, messages=messages)
        start = len(messages)
        client = self.client
        with agent_span(
            self.name,
            model=client.model,
            provider=client.provider,
            run_id=run_id,
            conversation_id=session_id,
        ) as span:  # current while the run starts: its calls' context copies it
            run = AgentRun(
                self,
                conversation,
                prompt=prompt,
                ctx=RunContext(deps=deps, run_id=run_id, session_id=session_id),
                toolset=self.toolset if toolsets is None else as_toolset(toolsets),
                output=self._output,
                held=opened.held,
                decisions=opened.decisions,
                streaming=streaming,
                policy=opened.policy,
                call_ids=CallIds(state.call_ids),
                executor=self._executor_for(opened.policy),
                recording=recording,
                allowed=standing_allows(state.policy),
            )
            try:
                async for event in run.events():
                    yield event
            except BaseException:
                if self.log is not None:
                    self.log.finish_run(run_id, RunStatus.FAILED, error="the run was interrupted")
                raise
            result = run.result
            assert result is not None
            if self.log is not None:
                self.log.finish_run(
                    run_id, run_status(run), stop_reason=result.stop_reason, error=result.error
                )
            usage = result.usage
            span.record_run(
                result.stop_reason, result.error, usage.input_tokens, usage.output_tokens
            )
        opened.save(
            conversation.messages,
            run.held,
            run.scope.allowed,
            run.call_ids.used,
            resumable=run.held is not None or result.stop_reason == "usage_limit",
        )
        result.all_messages = list(conversation.messages)
        result.new_messages = conversation.messages[start:]
        yield FinalOutput(result=result)

    def _checked(
        self, result: AgentResult[OutputT], raise_on_error: bool | None
    ) -> AgentResult[OutputT]:
        should_raise = self.raise_on_error if raise_on_error is None else raise_on_error
        if result.stop_reason == "guardrail" and should_raise:
            raise GuardrailTripped(result)
        if result.stop_reason == "error" and should_raise:
            raise AgentRunError(result)
        return result

    def _executor_for(self, policy: ApprovalPolicy | None) -> ToolExecutor:
        """The executor a run's calls go through: the agent's, or (when the session's stored
        policy asks for approvals and the agent has none of its own) the agent's with the
        approval gate, built once."""
        if policy is None or self.approval is not None:
            return self.executor
        if self._gated is None:
            self._gated = self.executor.with_middleware(approval_gate)
        return self._gated

    # -- housekeeping -------------------------------------------------------------------------
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

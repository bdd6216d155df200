"""The run-time context a tool may ask for by annotating a parameter with `ToolContext`."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from toolrig.core.context._recording import RECORDING
from toolrig.core.context._runner import ToolRunner, default_runner
from toolrig.core.model._errors import ErrorCode, ToolError

if TYPE_CHECKING:
    from toolrig.core.result._result import ToolResult
from toolrig.core.context._interaction import (
    LOG_LEVELS,
    QUESTION_KEY,
    Elicitation,
    Interaction,
    LogLevel,
    Root,
    SampleMessage,
    current_interaction,
)

__all__ = ["RUN_DEPS", "ToolContext"]

ProgressCallback = Callable[[float, float | None, str | None], None]

DepsT = TypeVar("DepsT", default=Any)

RUN_DEPS: ContextVar[Any] = ContextVar("toolrig_run_deps", default=None)
"""The dependencies of the run making the current calls (an agent run sets it for its calls)."""


def _run_deps() -> Any:
    return RUN_DEPS.get()


@dataclass(slots=True, kw_only=True)
class ToolContext(Generic[DepsT]):
    """What the executor tells a running tool. Injected, never shown to the model.

    Declare it as a parameter (``ctx: ToolContext``, or ``ctx: ToolContext[MyDeps]`` to type
    `deps`) to receive it.
    """

    tool: str
    action: str | None
    tool_call_id: str
    attempt: int = 1
    deadline: float | None = None
    """``time.monotonic()`` value after which the call is abandoned, if it has a timeout."""
    state: Mapping[str, Any] = field(default_factory=dict)
    """Shared objects the application gave the executor (clients, settings, ...)."""
    deps: DepsT = field(default_factory=_run_deps)
    """The dependencies of the run making this call (``agent.run(..., deps=...)``), read when
    the call starts; ``None`` outside a run."""
    cancel_event: threading.Event = field(default_factory=threading.Event)
    _progress: ProgressCallback | None = None
    interaction: Interaction = field(default_factory=current_interaction)
    """Where `log`, `elicit` and `sample` go (set by whoever runs the call,
    see `tool_interaction`)."""
    _runner: ToolRunner | None = None
    """The pipeline running this call (what `run_tool` runs nested calls on)."""

    async def run_tool(
        self,
        tool: Any,
        action: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        strict: bool | None = None,
    ) -> ToolResult:
        """Run ``action`` of ``tool`` (a tool object) from inside this call, through the same
        pipeline as this call: its middleware (an approval gate included), hooks, limits and
        listeners. The nested call answers for this one, so it carries this call's id: holding
        it holds this call, and approving this call approves it."""
        runner = self._runner if self._runner is not None else default_runner()
        scope = RECORDING.get()
        nested = None if scope is None else scope.narrowed(parent_call_id=self.tool_call_id)
        token = None if nested is None else RECORDING.set(nested)
        try:
            return await runner.run_tool(
                tool, action, arguments, strict=strict, tool_call_id=self.tool_call_id
            )
        finally:
            if token is not None:
                RECORDING.reset(token)

    @property
    def cancelled(self) -> bool:
        """True once the call timed out or was cancelled; long sync tools should check it."""
        return self.cancel_event.is_set()

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Report progress (e.g. 3 of 10) to whoever listens (CLI, MCP client)."""
        if self._progress is not None:
            self._progress(progress, total, message)

    def log(self, level: LogLevel, message: Any, *, logger: str | None = None) -> None:
        """Send a log message (MCP: to the client, at or above the level it chose; elsewhere:
        Python's ``logging``). ``level`` is a syslog severity such as ``"info"``."""
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        self.interaction.log(level, message, logger)

    async def elicit(
        self, message: str, schema: Mapping[str, Any], *, key: str | None = None
    ) -> Elicitation:
        """Ask a person for input shaped by ``schema`` (a flat JSON Schema object); returns
        their answer, or raises a ``permission_denied`` `ToolError` when
        nothing here can ask anyone. ``key`` names the question where the protocol names
        them (MCP 2026-07-28 input requests); by default it is numbered.

        Over MCP 2026-07-28 a question ends the run and the tool is run again with the
        answer: a tool must ask the same questions in the same order each time (see the MCP
        guide, "Input-required rounds")."""
        elicitor = self.interaction.elicitor
        if elicitor is None:
            raise ToolError(
                f"`{self.tool}` needs an answer from a person ({message}), and no one can be "
                "asked here",
                code=ErrorCode.PERMISSION_DENIED,
                hint="run it where input can be given (an MCP client with elicitation, or an "
                "application that sets an elicitor)",
            )
        token = QUESTION_KEY.set(key)
        try:
            return await elicitor(message, dict(schema))
        finally:
            QUESTION_KEY.reset(token)

    async def sample(
        self,
        messages: str | Sequence[SampleMessage],
        *,
        system: str | None = None,
        max_tokens: int = 1000,
        key: str | None = None,
    ) -> str:
        """Ask a language model (MCP: the client's; under the agent: the agent's) and return
        its text; raises a ``not_supported`` `ToolError` when no model can be
        reached here."""
        sampler = self.interaction.sampler
        if sampler is None:
            raise ToolError(
                f"`{self.tool}` needs a language model, and none can be reached here",
                code=ErrorCode.NOT_SUPPORTED,
                hint="run it under an agent or an MCP client that supports sampling",
            )
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        token = QUESTION_KEY.set(key)
        try:
            return await sampler(list(messages), system, max_tokens)
        finally:
            QUESTION_KEY.reset(token)

    async def roots(self, *, key: str | None = None) -> list[Root]:
        """The places the client lets this tool work in (MCP roots: ``{"uri", "name"}``);
        raises a ``not_supported`` `ToolError` when no client here offers roots."""
        lister = self.interaction.roots
        if lister is None:
            raise ToolError(
                f"`{self.tool}` needs the client's roots, and no client here offers them",
                code=ErrorCode.NOT_SUPPORTED,
                hint="run it under an MCP client that supports roots",
            )
        token = QUESTION_KEY.set(key)
        try:
            return [dict(root) for root in await lister()]
        finally:
            QUESTION_KEY.reset(token)

"""The one object a call is on its way through the pipeline: `Call`.

Validation, pre- and post-hooks, middleware, retries, runners and listeners (through
``ToolEvent.call``) all see the same ``Call``. It names what runs as every record does
(``call.tool`` and ``call.action`` are names, as in results, events and the log) and holds
the objects behind them (``call.owner``, the tool; ``call.target``, the action that runs).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from toolrig.core.context._context import ProgressCallback, ToolContext
from toolrig.core.define._action import Action
from toolrig.core.define._base import BaseTool
from toolrig.core.model._names import ActionRef
from toolrig.core.model._unset import UNSET, Unset
from toolrig.core.result._result import ToolResult

__all__ = [
    "UNSET",
    "Call",
    "CallNext",
    "Middleware",
    "PostHook",
    "PreHook",
    "Runner",
    "Unset",
]


class Runner(Protocol):
    """Runs one attempt of a call (no time limit, no retry: the pipeline adds those)."""

    inline: bool
    """Whether it runs in the caller's thread without suspending (then waits block)."""
    bounded: bool
    """Whether it enforces the call's time limit itself (a queue that waits for a worker)."""

    async def attempt(self, call: Call, ctx: ToolContext | None) -> Any:
        """The action's output; raising is the attempt's failure."""
        ...


@dataclass(slots=True, kw_only=True, eq=False)
class Call:
    """A call in flight. Middleware may change ``arguments``, ``timeout`` and ``max_retries``
    before passing it on."""

    owner: BaseTool
    """The tool the action belongs to (its spec holds the options)."""
    target: Action
    """The action that runs."""
    arguments: dict[str, Any]
    """The validated arguments (``{}`` until they are validated)."""
    tool_call_id: str
    raw: Any = None
    """The arguments as given (a mapping or JSON text); the validated ones once valid."""
    strict: bool = False
    """Whether validation refuses type coercion."""
    timeout: float | None = None
    """Seconds each attempt may take (``None``: no limit)."""
    max_retries: int = 0
    progress: ProgressCallback | None = None
    started_at: float = 0.0
    """When the call began (``time.time()``)."""
    t0: float = 0.0
    """When the call began (``time.perf_counter()``), for its duration."""
    attempt: int = 1
    """The attempt running now (1-based)."""
    runner: Runner | None = None
    """Where attempts run; chosen by the pipeline when it is ``None``."""
    extra: dict[str, Any] | None = field(default=None)
    """Set by a runner to add to the result's ``metadata.extra`` (for instance the worker)."""

    @property
    def tool(self) -> str:
        """The tool's name."""
        return self.owner.spec.name

    @property
    def action(self) -> str:
        """The action's name."""
        return self.target.name

    @property
    def ref(self) -> ActionRef:
        """The action by name (its call name and provider name included)."""
        spec = self.owner.spec
        return ActionRef(spec.name, self.target.name, spec.is_multi_action)

    def snapshot(self) -> Call:
        """A copy of the call as it is now, which later steps do not change (what hooks and
        listeners keep)."""
        return dataclasses.replace(self)


CallNext = Callable[[Call], Awaitable[ToolResult]]
"""The rest of the pipeline, as a middleware calls it."""
Middleware = Callable[[Call, CallNext], Awaitable[ToolResult]]
"""``async def middleware(call, call_next) -> ToolResult``: wraps the attempts of each call."""
PreHook = Callable[[Call], Mapping[str, Any] | Awaitable[Mapping[str, Any] | None] | None]
"""``hook(call)`` before a call: return a mapping to replace the arguments, raise to refuse."""
PostHook = Callable[[Call, ToolResult], ToolResult | Awaitable[ToolResult | None] | None]
"""``hook(call, result)`` after a call: return a result to replace it."""

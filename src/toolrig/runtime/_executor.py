"""``ToolExecutor``: the call pipeline over a catalogue of tools.

``execute(name, arguments)`` looks the call name up in the catalogue and runs it through the
executor's `Pipeline` (validation, hooks, middleware, time limits,
retries, output checks, events). The executor is those two parts and nothing else; every
outcome is a `ToolResult`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Coroutine, Iterable, Iterator, Mapping, Sequence
from typing import Any, final

from toolrig.core.context._background import run_sync
from toolrig.core.context._context import ProgressCallback
from toolrig.core.context._runner import install_runner
from toolrig.core.define._base import BaseTool
from toolrig.core.model._ids import new_call_id
from toolrig.core.model._on_first_use import asyncio
from toolrig.core.result._result import ToolResult
from toolrig.registry._catalog import Catalog, ToolLike
from toolrig.runtime._call import UNSET, Middleware, PostHook, PreHook, Unset
from toolrig.runtime._events import Listener
from toolrig.runtime._guardrails import InputGuardrail, OutputGuardrail
from toolrig.runtime._pipeline import Pipeline
from toolrig.runtime._request import ToolCall, as_tool_call
from toolrig.runtime._retry import RetryPolicy
from toolrig.runtime._runners import Dispatcher, Placement

__all__ = ["UNSET", "ToolExecutor", "default_executor"]


@final
class ToolExecutor:
    """Runs calls to the tools of a catalogue through a pipeline, always answering with a
    ``ToolResult``.

    ``tools`` is a `Catalog` (such as a ``Registry``), shared and
    followed live, or tools to put in a catalogue of the executor's own. The other options
    are the pipeline's (see `Pipeline`), or give ``pipeline``.
    ``placement`` decides where some tools' calls run, over what they declare:
    ``{"tool": "thread" | "process" | "queue:NAME"}``.
    """

    def __init__(
        self,
        tools: Catalog | Iterable[ToolLike] = (),
        *,
        default_timeout: float | Unset | None = UNSET,
        max_concurrency: int | None = None,
        retry: RetryPolicy | None = None,
        strict: bool = False,
        validate_output: bool = True,
        state: Mapping[str, Any] | None = None,
        max_workers: int = 32,
        middleware: Sequence[Middleware] = (),
        placement: Mapping[str, str] | None = None,
        pipeline: Pipeline | None = None,
    ) -> None:
        self.pipeline: Pipeline = pipeline or Pipeline(
            default_timeout=default_timeout,
            max_concurrency=max_concurrency,
            retry=retry,
            strict=strict,
            validate_output=validate_output,
            state=state,
            max_workers=max_workers,
            middleware=middleware,
            placement=Placement(max_workers, placement),
        )
        """The call path every call of this executor takes."""
        self.catalog: Catalog = tools if isinstance(tools, Catalog) else Catalog(tools)
        """Where the tools live; change it (``executor.catalog.add(...)``) at any time."""

    def with_middleware(self, *middleware: Middleware) -> ToolExecutor:
        """An executor over the same catalogue whose pipeline adds ``middleware`` (innermost)
        to this one's; this executor does not change."""
        return ToolExecutor(self.catalog, pipeline=self.pipeline.with_middleware(*middleware))

    # -- running -------------------------------------------------------------------------
    def execute(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        /,
        *,
        tool_call_id: str | None = None,
        timeout: float | Unset | None = UNSET,
        strict: bool | None = None,
        max_retries: int | None = None,
        progress: ProgressCallback | None = None,
        **kwargs: Any,
    ) -> Coroutine[Any, Any, ToolResult]:
        """Run the tool or action ``name`` with ``arguments`` (a mapping, JSON text, or keywords).

        ``timeout`` overrides the tool's (``None``: no limit); ``max_retries`` likewise. Returns
        a coroutine to await (or to wrap in a task), resolving to the call's ``ToolResult``.
        """
        # A plain function returning the pipeline's coroutine saves one coroutine layer per
        # call, which shows on bursts of thousands of concurrent calls.
        entry = self.catalog.entry(name)
        call_id = tool_call_id or new_call_id()
        if entry is None:
            return _ready(self._missing(name, call_id))
        args: Any = _merge(arguments, kwargs) if kwargs or arguments is None else arguments
        return self.pipeline.start(
            entry[0], entry[1], args, call_id, timeout, strict, max_retries, progress, False
        )

    def execute_sync(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        /,
        *,
        tool_call_id: str | None = None,
        timeout: float | Unset | None = UNSET,
        strict: bool | None = None,
        max_retries: int | None = None,
        progress: ProgressCallback | None = None,
        **kwargs: Any,
    ) -> ToolResult:
        """Blocking `execute` for scripts.

        A sync tool without a time limit runs right here in the calling thread (the fast path).
        Async tools, time limits, async hooks, middleware and a concurrency cap go through a
        background loop (`Pipeline.start` decides).
        """
        entry = self.catalog.entry(name)
        call_id = tool_call_id or new_call_id()
        if entry is None:
            return self._missing(name, call_id)
        args: Any = _merge(arguments, kwargs) if kwargs or arguments is None else arguments
        return self.pipeline.start(
            entry[0], entry[1], args, call_id, timeout, strict, max_retries, progress, True
        )

    async def execute_many(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any] | tuple[Any, ...]],
        *,
        timeout: float | Unset | None = UNSET,
    ) -> list[ToolResult]:
        """Run calls concurrently; results come back in the calls' order, failures isolated.

        A call is a `ToolCall`, a ``(name, arguments)`` pair or a mapping with ``name``,
        ``arguments`` and optionally ``id``.
        """
        jobs: list[Awaitable[ToolResult]] = []
        for item in calls:
            if type(item) is tuple and len(item) == 2 and type(item[0]) is str:
                # the common ``(name, arguments)`` pair, without building a ToolCall first
                jobs.append(self.execute(item[0], item[1], timeout=timeout))
                continue
            call = as_tool_call(item)
            if isinstance(call, ToolResult):
                jobs.append(_ready(call))
            else:
                jobs.append(
                    self.execute(
                        call.name, call.arguments, tool_call_id=call.tool_call_id, timeout=timeout
                    )
                )
        return list(await asyncio.gather(*jobs))

    def execute_many_sync(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any] | tuple[Any, ...]],
        *,
        timeout: float | Unset | None = UNSET,
    ) -> list[ToolResult]:
        """Blocking `execute_many`."""
        return run_sync(self.execute_many(list(calls), timeout=timeout))

    def run_tool(
        self,
        tool: BaseTool,
        action: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        strict: bool | None = None,
        tool_call_id: str | None = None,
    ) -> Coroutine[Any, Any, ToolResult]:
        """Run ``action`` of ``tool`` (which need not be in the catalogue) through the pipeline:
        a coroutine resolving to its result."""
        return self.pipeline.run_tool(
            tool, action, arguments, strict=strict, tool_call_id=tool_call_id
        )

    def run_tool_sync(
        self,
        tool: BaseTool,
        action: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        strict: bool | None = None,
        tool_call_id: str | None = None,
    ) -> ToolResult:
        """Blocking `run_tool`."""
        return self.pipeline.run_tool_sync(
            tool, action, arguments, strict=strict, tool_call_id=tool_call_id
        )

    def add_pre_hook(self, hook: PreHook) -> None:
        """See `Pipeline.add_pre_hook`."""
        self.pipeline.add_pre_hook(hook)

    def add_post_hook(self, hook: PostHook) -> None:
        """See `Pipeline.add_post_hook`."""
        self.pipeline.add_post_hook(hook)

    def add_guardrail(self, guardrail: InputGuardrail | OutputGuardrail) -> None:
        """Check every call (or those of ``guardrail.tools``) with ``guardrail``."""
        self.pipeline.add_guardrail(guardrail)

    def add_middleware(self, middleware: Middleware) -> None:
        """See `Pipeline.add_middleware`."""
        self.pipeline.add_middleware(middleware)

    def dispatch_with(self, dispatcher: Dispatcher) -> None:
        """See `Pipeline.dispatch_with`."""
        self.pipeline.dispatch_with(dispatcher)

    def add_listener(self, listener: Listener) -> None:
        """See `Pipeline.add_listener`."""
        self.pipeline.add_listener(listener)

    def remove_listener(self, listener: Listener) -> None:
        """See `Pipeline.remove_listener`."""
        self.pipeline.remove_listener(listener)

    def close(self) -> None:
        """Stop the pipeline's worker threads (running calls finish first)."""
        self.pipeline.close()

    def __enter__(self) -> ToolExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        return len(self.catalog)

    def __contains__(self, name: object) -> bool:
        return name in self.catalog

    def __iter__(self) -> Iterator[BaseTool]:
        return iter(self.catalog)

    def __repr__(self) -> str:
        return f"<ToolExecutor tools={len(self.catalog)}>"

    def _missing(self, name: str, call_id: str) -> ToolResult:
        return self.pipeline.not_found(name, self.catalog.missing_message(name), call_id)


_default: ToolExecutor | None = None


def default_executor() -> ToolExecutor:
    """The executor behind ``Tool.run`` and ``BaseTool.execute`` (an empty catalogue)."""
    global _default
    if _default is None:
        _default = ToolExecutor()
    return _default


class _DefaultRunner:
    """Runs a tool object's own calls (``Tool.run``) on the default executor."""

    def run_tool_sync(
        self,
        tool: BaseTool,
        action: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        strict: bool | None = None,
        tool_call_id: str | None = None,
    ) -> ToolResult:
        return default_executor().run_tool_sync(
            tool, action, arguments, strict=strict, tool_call_id=tool_call_id
        )

    async def run_tool(
        self,
        tool: BaseTool,
        action: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        strict: bool | None = None,
        tool_call_id: str | None = None,
    ) -> ToolResult:
        return await default_executor().run_tool(
            tool, action, arguments, strict=strict, tool_call_id=tool_call_id
        )


install_runner(_DefaultRunner())


def _merge(arguments: Mapping[str, Any] | str | None, kwargs: dict[str, Any]) -> Any:
    if arguments is None:
        return kwargs
    if isinstance(arguments, Mapping):
        return {**arguments, **kwargs}
    return arguments


async def _ready(result: ToolResult) -> ToolResult:
    return result

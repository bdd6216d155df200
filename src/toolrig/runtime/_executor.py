"""``ToolExecutor``: the call pipeline over a catalogue of tools.

``execute(name, arguments)`` looks the call name up in the catalogue and runs it through the
one :class:`~toolrig.runtime.Pipeline` (validation, hooks, middleware, time limits,
retries, output checks, events). Every outcome is a :class:`~toolrig.ToolResult`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Collection, Coroutine, Iterable, Iterator, Mapping, Sequence
from typing import Any

from toolrig.core._action import Action
from toolrig.core._background import run_sync
from toolrig.core._base import BaseTool
from toolrig.core._context import ProgressCallback
from toolrig.core._ids import new_call_id
from toolrig.core._result import ToolResult
from toolrig.core._runner import install_runner
from toolrig.registry._catalog import Catalog, ToolLike
from toolrig.runtime._call import UNSET, Middleware, Unset
from toolrig.runtime._calls import ToolCall, as_tool_call
from toolrig.runtime._pipeline import Pipeline
from toolrig.runtime._retry import RetryPolicy

__all__ = ["UNSET", "ToolExecutor", "default_executor"]


class ToolExecutor(Pipeline):
    """Runs calls to the tools of a catalogue, always answering with a ``ToolResult``.

    ``tools`` is a :class:`~toolrig.registry.Catalog` (such as a ``Registry``), shared and
    followed live, or tools to put in a catalogue of the executor's own. The other options
    are the pipeline's (see :class:`~toolrig.runtime.Pipeline`).
    """

    def __init__(
        self,
        tools: Catalog | Iterable[ToolLike] = (),
        *,
        default_timeout: float | None = None,
        max_concurrency: int | None = None,
        retry: RetryPolicy | None = None,
        strict: bool = False,
        validate_output: bool = True,
        state: Mapping[str, Any] | None = None,
        max_workers: int = 32,
        middleware: Sequence[Middleware] = (),
    ) -> None:
        super().__init__(
            default_timeout=default_timeout,
            max_concurrency=max_concurrency,
            retry=retry,
            strict=strict,
            validate_output=validate_output,
            state=state,
            max_workers=max_workers,
            middleware=middleware,
        )
        self.catalog: Catalog = tools if isinstance(tools, Catalog) else Catalog(tools)
        """Where the tools live; change it (``executor.catalog.add(...)``) at any time."""

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
            return _ready(self._not_found(name, self.catalog.missing_message(name), call_id))
        args: Any = _merge(arguments, kwargs) if kwargs or arguments is None else arguments
        return self._start(
            entry[0], entry[1], args, call_id, timeout, strict, max_retries, progress
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
        """Blocking :meth:`execute` for scripts.

        A sync tool without a time limit runs right here in the calling thread (the fast path).
        Async tools, time limits, async hooks, middleware and a concurrency cap go through a
        background loop.
        """
        entry = self.catalog.entry(name)
        call_id = tool_call_id or new_call_id()
        if entry is None:
            return self._not_found(name, self.catalog.missing_message(name), call_id)
        args: Any = _merge(arguments, kwargs) if kwargs or arguments is None else arguments
        action = entry[1]
        if (
            self._plain
            and action.plain
            and not action.is_async
            and timeout is UNSET
            and not max_retries
        ):
            return self._call_plain(action, args, call_id, strict, progress)
        return self._run_now(
            entry[0], entry[1], args, call_id, timeout, strict, max_retries, progress
        )

    async def execute_many(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any] | tuple[Any, ...]],
        *,
        timeout: float | Unset | None = UNSET,
    ) -> list[ToolResult]:
        """Run calls concurrently; results come back in the calls' order, failures isolated.

        A call is a :class:`ToolCall`, a ``(name, arguments)`` pair or a mapping with ``name``,
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
        """Blocking :meth:`execute_many`."""
        return run_sync(self.execute_many(list(calls), timeout=timeout))

    def __enter__(self) -> ToolExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the catalogue, for convenience ----------------------------------------------------
    def register(self, tool: ToolLike, *, replace: bool = False) -> BaseTool:
        """``executor.catalog.add(tool, replace=replace)``."""
        return self.catalog.add(tool, replace=replace)

    def unregister(self, name: str) -> BaseTool:
        """``executor.catalog.remove(name)``."""
        return self.catalog.remove(name)

    def swap(self, add: Sequence[BaseTool] = (), remove: Collection[str] = ()) -> None:
        """``executor.catalog.swap(add, remove)``: one atomic change."""
        self.catalog.swap(add, remove)

    def get(self, name: str) -> BaseTool:
        """The tool ``name``; raises :class:`~toolrig.ToolNotFoundError`."""
        return self.catalog.get(name)

    def resolve(self, name: str) -> Action | None:
        """The action a call name refers to, or ``None``."""
        return self.catalog.resolve(name)

    def list_tools(self) -> list[BaseTool]:
        """The catalogue's tools, in the order they were added."""
        return self.catalog.tools()

    def tool_names(self) -> list[str]:
        """The catalogue's tool names, in the order they were added."""
        return self.catalog.names()

    def missing_message(self, name: str) -> str:
        """Why ``name`` names no tool or action, with the closest valid names."""
        return self.catalog.missing_message(name)

    def __len__(self) -> int:
        return len(self.catalog)

    def __contains__(self, name: object) -> bool:
        return name in self.catalog

    def __iter__(self) -> Iterator[BaseTool]:
        return iter(self.catalog)

    def __repr__(self) -> str:
        return f"<ToolExecutor tools={len(self.catalog)}>"


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

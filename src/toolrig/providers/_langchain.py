"""LangChain interop: toolrig tools as LangChain tools, and LangChain tools as toolrig tools.

Needs ``langchain-core`` (``pip install 'toolrig[langchain]'``); it is imported only when a
function here is called.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from toolrig.core.define._function_tool import Tool
from toolrig.core.result._result import ToolResult
from toolrig.providers._calls import make_call
from toolrig.providers._names import NameMap
from toolrig.runtime._executor import ToolExecutor
from toolrig.runtime._request import ToolCall

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool as LangChainTool

__all__ = ["from_langchain_tool", "to_langchain_tools"]

_MISSING = (
    "LangChain interop needs the package langchain-core; install it with "
    "`pip install 'toolrig[langchain]'`"
)


def _require() -> Any:
    try:
        import langchain_core.tools as lc_tools
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return lc_tools


def _answer(result: ToolResult) -> Any:
    """What the LangChain tool returns: the output, or the error text the model can act on."""
    return result.output if result.success else result.to_text()


@functools.cache
def _structured_tool() -> type[LangChainTool]:
    """LangChain's ``StructuredTool``, handing every argument to the tool.

    LangChain's own ``_run(self, *args, config, run_manager, **kwargs)`` would take arguments
    named ``config`` and ``run_manager`` for itself (silently dropping them) and fail on one
    named ``self``; these take ``self`` positionally only and no keyword of their own, so
    LangChain passes neither its config nor its run manager, and every name reaches the tool.
    """
    base: Any = _require().StructuredTool

    class _Structured(base):  # type: ignore[misc]
        def _run(self, /, *args: Any, **kwargs: Any) -> Any:
            return self.func(*args, **kwargs)

        async def _arun(self, /, *args: Any, **kwargs: Any) -> Any:
            return await self.coroutine(*args, **kwargs)

    return _Structured


def to_langchain_tools(executor: ToolExecutor) -> list[LangChainTool]:
    """One LangChain ``StructuredTool`` per action of the executor's tools.

    Calls go through ``executor`` (validation, timeouts, retries, hooks); a failed call returns
    the error text (code, message, hint) instead of raising, so an agent can correct itself.
    Every parameter reaches the tool, whatever its name (``config``, ``run_manager`` and
    ``self`` included).
    """
    _require()
    structured = _structured_tool()
    names = NameMap.from_tools(executor)
    return [
        structured(
            name=entry.provider_name,
            description=entry.description or entry.provider_name,
            args_schema=copy.deepcopy(entry.action.parameters),
            func=_sync_runner(executor, names, entry.call_name),
            coroutine=_async_runner(executor, names, entry.call_name),
        )
        for entry in names
    ]


def _sync_runner(executor: ToolExecutor, names: NameMap, call_name: str) -> Callable[..., Any]:
    def run(**kwargs: Any) -> Any:
        call = make_call(names, call_name, kwargs, None)
        if not isinstance(call, ToolCall):
            return _answer(call)
        return _answer(executor.execute_sync(call.name, call.arguments))

    return run


def _async_runner(
    executor: ToolExecutor, names: NameMap, call_name: str
) -> Callable[..., Awaitable[Any]]:
    async def arun(**kwargs: Any) -> Any:
        call = make_call(names, call_name, kwargs, None)
        if not isinstance(call, ToolCall):
            return _answer(call)
        return _answer(await executor.execute(call.name, call.arguments))

    return arun


def from_langchain_tool(lc_tool: LangChainTool) -> Tool:
    """A toolrig :class:`~toolrig.Tool` that runs a LangChain tool (asynchronously, through
    ``ainvoke``), with the parameter schema LangChain shows models for it."""
    _require()
    from langchain_core.utils.function_calling import convert_to_openai_tool

    function = convert_to_openai_tool(lc_tool)["function"]
    parameters = function.get("parameters") or {"type": "object", "properties": {}}

    async def run(**kwargs: Any) -> Any:
        return await lc_tool.ainvoke(kwargs)

    return Tool(
        name=lc_tool.name,
        description=lc_tool.description or "",
        parameters=parameters,
        func=run,
    )

"""Two tools that stand in for a catalogue too big for one prompt.

``search_tools(query)`` answers with the few actions that fit (name, description, parameters);
``call_tool(name, arguments)`` runs one of them, found in the executor's catalogue, through the
pipeline running ``call_tool`` itself (validation, timeouts, retries, hooks, middleware and an
agent's approval gate, as for any call: a meta-tool cannot step around them) and counts the
call for the index's usage prior. A model shown only these two can still reach every tool.
"""

from __future__ import annotations

from typing import Any, Final

from toolrig.core.context._context import ToolContext
from toolrig.core.define._function_tool import Tool
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.runtime._executor import ToolExecutor
from toolrig.search._index import ToolIndex

__all__ = ["CALL_TOOL", "SEARCH_TOOLS", "meta_tools", "tools_for_turn"]

SEARCH_TOOLS: Final = "search_tools"
CALL_TOOL: Final = "call_tool"
_MAX_K: Final = 20


def meta_tools(index: ToolIndex, executor: ToolExecutor, *, k: int = 5) -> list[Tool]:
    """``search_tools`` and ``call_tool`` bound to ``index`` and ``executor`` (register them
    on any executor: the one they call into or another)."""

    def search_tools(query: str, k: int = k) -> list[dict[str, Any]]:
        """Find the tools that can do what is asked, best first.

        Args:
            query: What you want to do, in a few words or a sentence.
            k: How many tools to list (1-20).
        """
        try:
            hits = index.search(query, k=max(1, min(k, _MAX_K)))
        except ValueError as exc:
            raise ToolError(
                str(exc), code=ErrorCode.INVALID_ARGUMENTS, hint="search with a short request"
            ) from exc
        found = []
        for hit in hits:
            action = executor.catalog.resolve(hit.name)
            if action is None:  # removed since the index last heard of it
                continue
            spec = action.spec
            entry: dict[str, Any] = {"name": hit.name, "description": spec.description}
            if spec.when_to_use:
                entry["when_to_use"] = spec.when_to_use
            entry["parameters"] = spec.parameters
            found.append(entry)
        return found

    async def call_tool(
        ctx: ToolContext, name: str, arguments: dict[str, Any] | None = None
    ) -> Any:
        """Call a tool found with search_tools and return its output.

        Args:
            name: The tool's name exactly as search_tools listed it.
            arguments: The tool's arguments, as its parameters describe them.
        """
        if name in (SEARCH_TOOLS, CALL_TOOL):
            raise ToolError(
                f"{name!r} cannot be called through call_tool",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="call it directly",
            )
        entry = executor.catalog.entry(name)
        if entry is None:
            raise ToolError(
                executor.catalog.missing_message(name),
                code=ErrorCode.NOT_FOUND,
                hint="use search_tools to find the right name",
            )
        # through the pipeline running this call (its approval gate included), not beside it
        result = await ctx.run_tool(entry[0], entry[1].name, arguments or {})
        if result.success:
            index.record_use(name)  # what gets used ranks a little higher next time
            return result.output
        error = result.error
        assert error is not None
        raise ToolError(
            error.message, code=error.code, hint=error.hint, details=error.details, retryable=False
        )

    return [
        Tool(
            name=SEARCH_TOOLS,
            func=search_tools,
            annotations=ToolAnnotations(read_only=True, idempotent=True, open_world=False),
            output_description="The matching tools: name, description and parameters.",
        ),
        Tool(
            name=CALL_TOOL,
            func=call_tool,
            output_description="The called tool's output.",
        ),
    ]


def tools_for_turn(
    index: ToolIndex, executor: ToolExecutor, query: str, *, k: int = 5
) -> list[str]:
    """Names of the ``k`` tools to expose for ``query`` (whole tools, best first): the mode in
    which an agent or server shows a model only the tools that fit the current turn."""
    return [h.tool for h in index.search(query, k=k, group="tool") if h.tool in executor]

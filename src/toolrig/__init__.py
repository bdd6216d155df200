"""toolrig — the tool layer for LLM agents.

Define a tool once (``@tool``, ``BaseTool`` subclasses, or ``Tool`` objects built from data),
then validate, execute and export it everywhere. Every call answers with a ``ToolResult``.

The core and the executor are imported with the package (the models of specs and options with
the first tool defined, asyncio with the first awaited call); the registry (YAML, file watching),
the agent (LLM SDKs) and the execution log are imported on first use of their names, so a
program pays only for what it uses. Each layer is also a subpackage: ``toolrig.registry``,
``toolrig.providers``, ``toolrig.storage``, ``toolrig.agent``, ``toolrig.mcp``, ``toolrig.tools``.
"""

from typing import TYPE_CHECKING

from toolrig.core.context._context import ToolContext
from toolrig.core.define._base import BaseTool, action
from toolrig.core.define._function_tool import Tool, tool
from toolrig.core.model._errors import (
    ErrorCode,
    RetryableToolError,
    ToolDefinitionError,
    ToolError,
    ToolNotFoundError,
    ToolResultError,
)
from toolrig.core.model._lazy import lazy_names as _lazy_names
from toolrig.core.model._prompt import render_tools
from toolrig.core.result._result import (
    ErrorInfo,
    ResultMetadata,
    ToolResult,
    error_result,
    success_result,
)
from toolrig.registry._catalog import Catalog
from toolrig.runtime._call import Call
from toolrig.runtime._events import EventKind, ToolEvent
from toolrig.runtime._executor import UNSET, ToolExecutor
from toolrig.runtime._request import ToolCall
from toolrig.runtime._retry import RetryPolicy

if TYPE_CHECKING:
    from toolrig.agent import Agent, LLMConfig
    from toolrig.core.define._action_schema import ActionSchema
    from toolrig.core.model._spec import ActionSpec, ToolAnnotations, ToolCost, ToolSpec
    from toolrig.core.schema._params import ToolParameter
    from toolrig.providers import (
        run_tool_calls,
        run_tool_calls_sync,
        to_anthropic_tools,
        to_gemini_declarations,
        to_mcp_tools,
        to_openai_chat_tools,
        to_openai_responses_tools,
        tool_from_function_definition,
    )
    from toolrig.registry import Registry, default_registry, register_tool
    from toolrig.runtime import Plan, PlanError, PlanResult, PlanRunner, PlanStep
    from toolrig.storage import ExecutionLog, open_log

_LAZY = {
    # the models of specs, options and declared parameters: built with the first tool defined
    "ActionSchema": "toolrig.core.define._action_schema",
    "ActionSpec": "toolrig.core.model._spec",
    "ToolAnnotations": "toolrig.core.model._spec",
    "ToolCost": "toolrig.core.model._spec",
    "ToolSpec": "toolrig.core.model._spec",
    "ToolParameter": "toolrig.core.schema._params",
    "Plan": "toolrig.runtime",
    "PlanError": "toolrig.runtime",
    "PlanStep": "toolrig.runtime",
    "PlanResult": "toolrig.runtime",
    "PlanRunner": "toolrig.runtime",
    "Registry": "toolrig.registry",
    "register_tool": "toolrig.registry",
    "default_registry": "toolrig.registry",
    "Agent": "toolrig.agent",
    "LLMConfig": "toolrig.agent",
    "ExecutionLog": "toolrig.storage",
    "open_log": "toolrig.storage",
    "to_openai_chat_tools": "toolrig.providers",
    "to_openai_responses_tools": "toolrig.providers",
    "to_anthropic_tools": "toolrig.providers",
    "to_gemini_declarations": "toolrig.providers",
    "to_mcp_tools": "toolrig.providers",
    "run_tool_calls": "toolrig.providers",
    "run_tool_calls_sync": "toolrig.providers",
    "tool_from_function_definition": "toolrig.providers",
}


__getattr__ = _lazy_names(__name__, _LAZY)


__version__ = "0.1.0"

__all__ = [
    "UNSET",
    "ActionSchema",
    "ActionSpec",
    "Agent",
    "BaseTool",
    "Call",
    "Catalog",
    "ErrorCode",
    "ErrorInfo",
    "EventKind",
    "ExecutionLog",
    "LLMConfig",
    "Plan",
    "PlanError",
    "PlanResult",
    "PlanRunner",
    "PlanStep",
    "Registry",
    "ResultMetadata",
    "RetryPolicy",
    "RetryableToolError",
    "Tool",
    "ToolAnnotations",
    "ToolCall",
    "ToolContext",
    "ToolCost",
    "ToolDefinitionError",
    "ToolError",
    "ToolEvent",
    "ToolExecutor",
    "ToolNotFoundError",
    "ToolParameter",
    "ToolResult",
    "ToolResultError",
    "ToolSpec",
    "__version__",
    "action",
    "default_registry",
    "error_result",
    "open_log",
    "register_tool",
    "render_tools",
    "run_tool_calls",
    "run_tool_calls_sync",
    "success_result",
    "to_anthropic_tools",
    "to_gemini_declarations",
    "to_mcp_tools",
    "to_openai_chat_tools",
    "to_openai_responses_tools",
    "tool",
    "tool_from_function_definition",
]

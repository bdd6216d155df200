"""toolrig — the tool layer for LLM agents.

Define a tool once (``@tool``, ``BaseTool`` subclasses, or ``Tool`` objects built from data),
then validate, execute and export it everywhere. Every call answers with a ``ToolResult``.
"""

from toolrig.core.base import ActionSchema, BaseTool, action
from toolrig.core.context import ToolContext
from toolrig.core.errors import (
    ErrorCode,
    RetryableToolError,
    ToolDefinitionError,
    ToolError,
    ToolNotFoundError,
    ToolResultError,
)
from toolrig.core.function_tool import Tool, tool
from toolrig.core.params import ActionParam, ToolParameter
from toolrig.core.prompt import render_tools
from toolrig.core.result import (
    ErrorInfo,
    ResultMetadata,
    ToolResult,
    error_result,
    success_result,
)
from toolrig.core.spec import ActionSpec, ToolAnnotations, ToolCost, ToolSpec
from toolrig.runtime.calls import CallInfo, ToolCall
from toolrig.runtime.events import EventKind, ToolEvent
from toolrig.runtime.executor import UNSET, ToolExecutor
from toolrig.runtime.retry import RetryPolicy

__version__ = "0.1.0"

__all__ = [
    "UNSET",
    "ActionParam",
    "ActionSchema",
    "ActionSpec",
    "BaseTool",
    "CallInfo",
    "ErrorCode",
    "ErrorInfo",
    "EventKind",
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
    "error_result",
    "render_tools",
    "success_result",
    "tool",
]

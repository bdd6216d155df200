"""The public surface is deliberate: adding or removing a name must be a visible change."""

import toolrig

EXPECTED = {
    "UNSET",
    "ActionSchema",
    "ActionSpec",
    "BaseTool",
    "Call",
    "Catalog",
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
    # plans, and the lazily imported layers
    "Plan",
    "PlanError",
    "PlanResult",
    "PlanRunner",
    "PlanStep",
    "Registry",
    "register_tool",
    "default_registry",
    "Agent",
    "LLMConfig",
    "ExecutionLog",
    "open_log",
    "to_openai_chat_tools",
    "to_openai_responses_tools",
    "to_anthropic_tools",
    "to_gemini_declarations",
    "to_mcp_tools",
    "run_tool_calls",
    "run_tool_calls_sync",
    "tool_from_function_definition",
}


def test_exported_members() -> None:
    assert set(toolrig.__all__) == EXPECTED
    for name in toolrig.__all__:
        assert hasattr(toolrig, name), name


def test_old_names_are_gone() -> None:
    import pytest

    import toolrig.core

    for name in ("ActionParam", "AssembledTool", "CallInfo"):
        with pytest.raises(AttributeError):
            getattr(toolrig, name)
    assert not hasattr(toolrig.core, "AssembledTool")


def test_heavy_layers_load_on_first_use() -> None:
    import subprocess
    import sys

    code = (
        "import sys, toolrig; assert 'yaml' not in sys.modules and 'openai' not in sys.modules;"
        "assert 'toolrig.registry._registry' not in sys.modules; r = toolrig.Registry;"
        "assert 'toolrig.registry._registry' in sys.modules; print(r.__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Registry"


def test_keyword_only_dataclasses() -> None:
    import dataclasses

    for cls in (
        toolrig.ToolResult,
        toolrig.ErrorInfo,
        toolrig.ResultMetadata,
        toolrig.ToolCall,
        toolrig.ToolEvent,
        toolrig.RetryPolicy,
        toolrig.ToolContext,
    ):
        assert all(f.kw_only for f in dataclasses.fields(cls)), cls

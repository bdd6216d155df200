"""The public surface is deliberate: adding or removing a name must be a visible change."""

import toolrig

EXPECTED = {
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
}


def test_exported_members() -> None:
    assert set(toolrig.__all__) == EXPECTED
    for name in toolrig.__all__:
        assert hasattr(toolrig, name), name


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

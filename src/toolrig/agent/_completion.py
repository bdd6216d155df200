"""``attempt_completion``: the agent's signal that the task is done, with its final result."""

from __future__ import annotations

from typing_extensions import TypedDict

from toolrig.core.define._function_tool import Tool
from toolrig.core.model._spec import ToolAnnotations

__all__ = ["COMPLETION_TOOL", "CompletionOutput", "attempt_completion"]

COMPLETION_TOOL = "attempt_completion"


class CompletionOutput(TypedDict):
    completed: bool
    result: str


def _attempt_completion(result: str) -> CompletionOutput:
    """Say that the task is finished and give the final result to the user.

    Call it once, when the work is done and checked. The result should stand on its own
    (what was done, where, and anything the user must know), not ask a question.

    Args:
        result: The final answer or a summary of what was done.
    """
    return CompletionOutput(completed=True, result=result.strip())


attempt_completion: Tool = Tool(
    name=COMPLETION_TOOL,
    func=_attempt_completion,
    output_description="The final result, marked as completed.",
    when_to_use="The task is complete and its result is ready to hand back.",
    tags=("agent", "control"),
    annotations=ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=False
    ),
)
"""A ready tool; the agent loop stops when the model calls it and answers ``output["result"]``."""

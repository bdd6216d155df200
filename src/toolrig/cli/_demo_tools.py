"""The demo's tools, one for each way to define a tool: a decorated function, an async
function with constraints, a class of actions (decorated and declared) and a ``Tool`` built
from data. ``toolrig demo`` runs them; ``list``, ``show``, ``call``, ``schema`` and ``serve``
use them when no catalogue is given."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from pydantic import Field

from toolrig import (
    ActionSchema,
    BaseTool,
    Tool,
    ToolAnnotations,
    ToolError,
    ToolExecutor,
    ToolParameter,
    action,
    tool,
)

__all__ = ["Notes", "add", "build_executor", "demo_tools", "search"]


@tool(when_to_use="When numbers must be added exactly.")
def add(a: int, b: int, note: str = "") -> int:
    """Add two integers.

    Args:
        a: First addend.
        b: Second addend.
        note: Free-form note, ignored.
    """
    return a + b


@tool(timeout=0.2)
async def search(
    query: str,
    max_results: Annotated[int, Field(ge=1, le=20)] = 5,
    mode: Literal["fast", "deep"] = "fast",
) -> list[str]:
    """Search a small built-in catalogue of tool names.

    Args:
        query: Words to look for.
        max_results: How many names at most.
        mode: "deep" also matches inside words.
    """
    catalogue = ["file_tool", "shell", "web_fetch", "sql_query", "rag_search", "todo"]
    words = query.lower().split()
    hits = [
        c for c in catalogue if any(w in c if mode == "deep" else c.startswith(w) for w in words)
    ]
    if "slow" in words:
        await asyncio.sleep(1)
    return hits[:max_results]


class Notes(BaseTool):
    """An in-memory notebook: add, read and delete notes."""

    name = "notes"
    annotations = ToolAnnotations(destructive=False)
    actions = (
        ActionSchema(
            name="delete",
            description="Delete a note by id.",
            parameters=[
                ToolParameter(name="note_id", type="integer", min=1, description="Note id")
            ],
            output_type="boolean",
            output_description="True when the note existed.",
            annotations=ToolAnnotations(destructive=True),
        ),
    )

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[int, str] = {}

    @action(output_description="The new note's id.")
    def add(self, text: Annotated[str, Field(min_length=1, max_length=200)]) -> int:
        """Add a note.

        Args:
            text: The note's text.
        """
        note_id = len(self.items) + 1
        self.items[note_id] = text
        return note_id

    @action(annotations=ToolAnnotations(read_only=True))
    def read(self, note_id: int) -> str:
        """Read a note by id."""
        if note_id not in self.items:
            raise ToolError(
                f"no note {note_id}", code="not_found", hint=f"Ids: {sorted(self.items)}"
            )
        return self.items[note_id]

    def delete(self, note_id: int) -> bool:
        return self.items.pop(note_id, None) is not None


def _shout(text: str, times: int = 1) -> str:
    return " ".join([text.upper()] * times)


def demo_tools() -> list[BaseTool]:
    """The demo's tools: a decorated function, an async function, a class and a runtime object."""
    shout = Tool(
        name="shout",
        description="Repeat a text in capitals.",
        parameters=[
            ToolParameter(name="text", type="string", description="What to shout"),
            ToolParameter(name="times", type="integer", default=1, min=1, max=5),
        ],
        func=_shout,
    )
    return [add, search, Notes(), shout]


def build_executor() -> ToolExecutor:
    """An executor over the demo's tools."""
    return ToolExecutor(demo_tools())

"""Prompt rendering of tools and tool sets."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolrig import BaseTool, action, render_tools, tool


@tool(when_to_use="When the user wants to find documents.")
def search(
    query: str,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    mode: Literal["fast", "deep"] = "fast",
) -> list[str]:
    """Search the document index.

    Args:
        query: Words to search for.
        limit: Results at most.
        mode: Search depth.

    Returns:
        Matching document ids.
    """
    return []


class Notes(BaseTool):
    """Keep notes."""

    @action
    def add(self, text: str) -> int:
        """Add a note; returns its id."""
        return 1


def test_tool_prompt_lists_inputs_output_and_when_to_use() -> None:
    text = search.to_prompt()
    assert text.startswith("### search\nSearch the document index.")
    assert "When to use: When the user wants to find documents." in text
    assert "search(query, limit?, mode?) -> array" in text
    assert "- query (string, required): Words to search for." in text
    assert "- limit (integer, optional) [>= 1, <= 50, default 10]: Results at most." in text
    assert '- mode ("fast" | "deep", optional) [default "fast"]: Search depth.' in text
    assert "Returns: Matching document ids." in text


def test_tool_set_renders_a_system_prompt_section() -> None:
    section = render_tools([search.spec, Notes().spec])
    assert section.startswith("## Available tools")
    assert "### search" in section and "### notes" in section
    assert "Actions:\n- add(text) -> integer" in section

"""``render_tools`` takes tool objects as well as specs, and says "When to use" once."""

from __future__ import annotations

from toolrig import BaseTool, action, render_tools, tool


@tool(when_to_use="When numbers must be added exactly.")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Notes(BaseTool):
    """Keep notes."""

    when_to_use = "When the user asks to remember something."

    @action(when_to_use="To store a new note.")
    def add(self, text: str) -> int:
        """Add a note."""
        return 1

    @action
    def read(self, note_id: int) -> str:
        """Read a note."""
        return ""


def test_tool_objects_and_specs_render_the_same() -> None:
    notes = Notes()
    assert render_tools([add, notes]) == render_tools([add.spec, notes.spec])


def test_when_to_use_is_said_once_per_tool_and_action() -> None:
    text = render_tools([add, Notes()])
    assert text.count("When to use: When numbers must be added exactly.") == 1
    assert text.count("When to use: When the user asks to remember something.") == 1
    assert text.count("When to use: To store a new note.") == 1


def test_action_lines_are_indented_under_their_action() -> None:
    text = render_tools([Notes()])
    assert "- add(text) -> integer\n    Add a note.\n    When to use: To store a new note." in text
    assert "\n-   " not in text

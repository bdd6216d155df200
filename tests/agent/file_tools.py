"""Tools the approval tests use in this process and in a second one: reading is harmless,
deleting is annotated destructive."""

from __future__ import annotations

from pathlib import Path

from toolrig import ToolAnnotations, tool


@tool(annotations=ToolAnnotations(read_only=True, destructive=False))
def read_file(path: str) -> str:
    """Read a text file."""
    return Path(path).read_text(encoding="utf-8")


@tool(annotations=ToolAnnotations(read_only=False, destructive=True))
def delete_file(path: str) -> str:
    """Delete a file."""
    Path(path).unlink()
    return f"deleted {Path(path).name}"

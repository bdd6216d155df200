"""File-writing helpers shared by the registry tests."""

from __future__ import annotations

import textwrap
from pathlib import Path


def write(path: Path, text: str) -> Path:
    """Write dedented ``text`` to ``path`` (creating folders) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def simple(
    name: str, *, executor: str | None = None, extra: str = "", version: str = "1.0.0"
) -> str:
    """A minimal definition with one required ``text`` parameter."""
    lines = [
        f"name: {name}",
        f"version: {version}",
        f"description: The {name} tool.",
        "parameters:",
        "  - {name: text, type: string, required: true}",
    ]
    if executor:
        lines.append(f"executor: {executor}")
    return "\n".join(lines) + "\n" + textwrap.dedent(extra)

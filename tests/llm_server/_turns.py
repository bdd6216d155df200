"""What the scripted model says, and how a text or an argument string is cut into pieces."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Turn:
    """What the model says: text and/or tool calls ``(name, arguments, id)``; ``arguments`` may
    be a dict or raw text (to play a model that sends broken JSON)."""

    text: str | None = None
    calls: list[tuple[str, Any, str]] = field(default_factory=list)
    stop_reason: str | None = None
    """Overrides the finish reason (e.g. ``"length"``)."""
    reasoning: bool = False
    """The Responses API answers with a reasoning item first (as reasoning models do); sent
    back, it must be followed by the item it preceded."""
    stream_error: str | None = None
    """Streamed, the answer fails after its text with this message, as each API reports a
    failure mid-stream (an ``error`` chunk, ``response.failed``, an ``error`` event)."""


Script = list[Turn | Callable[[dict[str, Any]], Turn]]


def arguments_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def pieces(text: str, size: int = 4) -> list[str]:
    """``text`` cut into chunks of ``size`` characters, as streamed tokens arrive."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def words(text: str) -> list[str]:
    """``text`` cut after each space, as a model streams its words."""
    out: list[str] = []
    start = 0
    for index, char in enumerate(text):
        if char == " ":
            out.append(text[start : index + 1])
            start = index + 1
    if start < len(text):
        out.append(text[start:])
    return out

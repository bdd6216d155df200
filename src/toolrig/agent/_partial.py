"""Partial typed output: a typed answer's JSON read as it streams, one turn at a time.

The model writes a typed answer as JSON text (see :mod:`._output`); while it streams, each
text delta may complete a little more of it. ``pydantic_core.from_json`` with
``allow_partial="trailing-strings"`` reads the prefix written so far (open objects, lists and
strings closed where the text stops), and a :class:`PartialOutput` is told each time that data
changes. Text that is not JSON (a remark before a tool call) gives none.
"""

from __future__ import annotations

import re
from typing import Any, Final

import pydantic_core

from toolrig.agent._events import PartialOutput
from toolrig.agent._output import OutputSpec

__all__ = ["PartialJson"]

_FENCE: Final = re.compile(r"^\s*```(?:json)?\s*\n")
_NOTHING: Final = object()


class PartialJson:
    """The partial answers of one streamed turn, for an output type other than text."""

    __slots__ = ("_last", "_text")

    def __init__(self) -> None:
        self._text = ""
        self._last: Any = _NOTHING

    @staticmethod
    def for_output(output: OutputSpec[Any], streaming: bool) -> PartialJson | None:
        """A reader for a streamed turn of a typed run (``None`` for text answers)."""
        return PartialJson() if streaming and not output.is_text else None

    def feed(self, text: str) -> PartialOutput | None:
        """Add a delta; the answer so far when it changed, else ``None``."""
        self._text += text
        body = _FENCE.sub("", self._text, count=1).rstrip().removesuffix("```")
        if not body.lstrip().startswith(("{", "[")):
            return None
        try:
            data = pydantic_core.from_json(body, allow_partial="trailing-strings")
        except ValueError:  # not JSON after all
            return None
        if data == self._last:
            return None
        self._last = data
        return PartialOutput(data=data)

"""``toolrig agent --script FILE``: scripted model turns read from a JSON file.

A script holds a whole session's turns, so the same file can be given again when a held run is
resumed in a second process: the turns that session already played (the same calls, or the
same text, in order) are skipped, and the run goes on from the first turn not yet played.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from toolrig.agent._client import LLMClient
from toolrig.cli._output import CliError
from toolrig.core.schema._json_data import loads_json
from toolrig.testing import ModelRequest, ModelTurn, ScriptedModel
from toolrig.testing._turn import assistant_message

__all__ = ["SessionScript", "load_script"]


class SessionScript(ScriptedModel):
    """A `ScriptedModel` that, on its first request, skips the leading turns the
    conversation already holds as assistant messages (a resumed session)."""

    def __init__(self, turns: list[ModelTurn]) -> None:
        super().__init__(turns)
        self._pending = list(turns)
        self._first = True

    async def _next(self, request: ModelRequest) -> ModelTurn:
        if self._first:
            self._first = False
            played = [m for m in request.messages if m.get("role") == "assistant"]
            skip = 0
            while skip < min(len(played), len(self._pending)) and _same(
                played[skip], self._pending[skip]
            ):
                skip += 1
            for turn in self._pending[:skip]:
                await super()._next(request)
                self._calls_made += len(turn.calls)  # new calls get ids not used before
        return await super()._next(request)


def _same(message: dict[str, Any], turn: ModelTurn) -> bool:
    """True when the assistant ``message`` is what ``turn`` plays (names compared without
    their separators: the model sees ``notes__add`` for ``notes.add``)."""
    return _shape(message) == _shape(assistant_message(turn, str, 1))


def _shape(message: dict[str, Any]) -> tuple[Any, ...]:
    calls = []
    for call in message.get("tool_calls") or []:
        function = call.get("function", {})
        try:
            arguments = loads_json(function.get("arguments") or "{}")
        except ValueError:
            arguments = function.get("arguments")
        calls.append((re.sub(r"[^A-Za-z0-9]", "", str(function.get("name"))), arguments))
    return ((message.get("content") or "").strip(), calls)


def load_script(path: str) -> LLMClient:
    """A scripted model playing the turns in the JSON file ``path`` (see `SessionScript`);
    `CliError` (exit 2) for a file that cannot be read or is not a list of turns."""
    from toolrig.testing import ModelTurn

    try:
        data = loads_json(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise CliError(f"--script {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # not JSON, not UTF-8, or nested past the decoder
        raise CliError(f"--script {path} is not JSON: {exc}") from None
    if not isinstance(data, list) or not data:
        raise CliError(f"--script {path} must hold a non-empty JSON list of turns")
    turns: list[ModelTurn] = []
    for number, item in enumerate(data, 1):
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict) or not set(item) <= {"text", "calls", "output"}:
            raise CliError(
                f"--script {path}: turn {number} must be text or an object with 'text', "
                "'calls' and/or 'output'"
            )
        calls = item.get("calls", [])
        if not isinstance(calls, list) or not all(
            isinstance(c, list) and 1 <= len(c) <= 3 and isinstance(c[0], str) for c in calls
        ):
            raise CliError(
                f"--script {path}: turn {number}: 'calls' must be a list of "
                '["name", {arguments}] pairs'
            )
        try:
            turns.append(ModelTurn(**{**item, "calls": [tuple(c) for c in calls]}))
        except (TypeError, ValueError) as exc:
            raise CliError(f"--script {path}: turn {number}: {exc}") from None
    return SessionScript(turns)

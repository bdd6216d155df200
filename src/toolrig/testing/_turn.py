"""``ModelTurn``: what a test model answers, and its shape as an OpenAI Chat assistant message."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolrig.agent._client import Usage
from toolrig.core.result._result import ToolResult
from toolrig.runtime._request import ToolCall, as_tool_call

__all__ = ["UNSET", "ModelTurn", "as_turn", "assistant_message", "word_count"]


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""No typed output given (``None`` is a value: the JSON ``null``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelTurn:
    """One scripted model answer.

    ``calls`` are :class:`~toolrig.ToolCall` objects or ``(name, arguments[, id])`` tuples,
    named as the executor calls the tool (``"notes.add"``) or as the model sees it
    (``"notes__add"``); ``arguments`` may be a mapping or raw text, to play a model that sends
    broken JSON. Calls without an id get ``call_1``, ``call_2``, ... ``output`` is a typed
    answer (a pydantic model, a dataclass, or any JSON value), sent as JSON text in place of
    ``text``. ``usage`` is what the turn reports as spent (by default, a rough count of words);
    ``stop_reason`` replaces ``"tool_calls"`` / ``"stop"`` (say ``"length"``, to play a turn
    cut at the output limit).
    """

    text: str | None = None
    calls: Sequence[ToolCall | tuple[Any, ...]] = ()
    output: Any = UNSET
    usage: Usage | None = None
    stop_reason: str | None = None

    def __post_init__(self) -> None:
        if self.output is not UNSET and self.text is not None:
            raise ValueError("give a turn either text= or output=, not both")
        for call in self.calls:
            if isinstance(as_tool_call(call), ToolResult):
                raise TypeError(
                    f"a scripted call must be a ToolCall or a (name, arguments[, id]) tuple; "
                    f"got {call!r:.200}"
                )

    @property
    def content(self) -> str | None:
        """The assistant text sent: ``text``, or ``output`` as JSON."""
        if self.output is UNSET:
            return self.text
        return _to_json(self.output)


def _to_json(value: Any) -> str:
    dump = getattr(value, "model_dump_json", None)
    if callable(dump):
        return str(dump())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def as_turn(value: ModelTurn | str) -> ModelTurn:
    """A :class:`ModelTurn` from a turn or a plain text answer."""
    if isinstance(value, ModelTurn):
        return value
    if isinstance(value, str):
        return ModelTurn(text=value)
    raise TypeError(f"a model turn must be a ModelTurn or a str; got {type(value).__name__}")


def assistant_message(turn: ModelTurn, provider_name: Any, first_id: int) -> dict[str, Any]:
    """``turn`` as an OpenAI Chat assistant message; ``provider_name`` maps a call name to the
    name the model was offered, and call ids count up from ``first_id``."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.content}
    tool_calls = []
    for number, item in enumerate(turn.calls, start=first_id):
        call = as_tool_call(item)
        assert isinstance(call, ToolCall)  # checked in __post_init__
        arguments = call.arguments
        if arguments is None:
            arguments = {}
        text = arguments if isinstance(arguments, str) else json.dumps(dict(arguments))
        tool_calls.append(
            {
                "id": call.tool_call_id or f"call_{number}",
                "type": "function",
                "function": {"name": provider_name(call.name), "arguments": text},
            }
        )
    if tool_calls:
        message["tool_calls"] = tool_calls
    return message


def word_count(messages: Sequence[Mapping[str, Any]]) -> int:
    """A rough token count of ``messages``: their words."""
    return sum(len(str(m.get("content") or "").split()) for m in messages)

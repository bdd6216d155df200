"""The model's own turn, as the history the provider expects it back.

Every provider refuses tool results that answer no call of the turn just before them, so a
loop appends the model's turn first and the results after it. `assistant_turn` gives
that turn as plain messages (SDK objects or dicts in), and ``run_tool_calls(...,
include_turn=True)`` returns it ahead of the results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolrig.providers._calls import as_list, get_field

__all__ = ["assistant_turn"]


def _plain(obj: Any) -> Any:
    """``obj`` as JSON-ready data: SDK models dumped as the API sent them (its own field names,
    such as ``async`` for the SDK's ``async_``; no field the API left out or set to null)."""
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        return dump(
            mode="json", by_alias=True, exclude_unset=True, exclude_none=True, warnings=False
        )
    if isinstance(obj, Mapping):
        return {k: _plain(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    return obj


def _chat_message(response: Any) -> Any:
    choices = get_field(response, "choices")
    if choices is not None:
        first = as_list(choices)[:1]
        return get_field(first[0], "message") if first else {}
    return get_field(response, "message", default=response)


def _openai_chat(response: Any) -> list[dict[str, Any]]:
    """One assistant message with ``content`` and ``tool_calls`` (only the fields the API
    takes back; a response's ``refusal``, ``annotations`` or ``audio`` are not inputs)."""
    message = _chat_message(response)
    turn: dict[str, Any] = {"role": "assistant", "content": get_field(message, "content")}
    calls = []
    for call in as_list(get_field(message, "tool_calls")):
        function = get_field(call, "function")
        calls.append(
            {
                "id": get_field(call, "id"),
                "type": get_field(call, "type", default="function"),
                "function": {
                    "name": get_field(function, "name"),
                    "arguments": get_field(function, "arguments", default=""),
                },
            }
        )
    if calls:
        turn["tool_calls"] = calls
    return [turn]


def _openai_responses(response: Any) -> list[dict[str, Any]]:
    """Every output item (messages, reasoning, ``function_call``), as input items."""
    output = get_field(response, "output")
    items = as_list(output) if output is not None and not isinstance(output, str) else []
    return [_plain(item) for item in items]


def _anthropic(response: Any) -> list[dict[str, Any]]:
    """One ``assistant`` message holding the response's content blocks, ``tool_use`` included.

    A ``tool_use`` whose input is not an object (broken JSON, possible with fine-grained tool
    streaming) goes back wrapped as ``{"INVALID_JSON": text}``, as Anthropic advises: the API
    refuses a ``tool_use`` block whose input is not an object.
    """
    content = get_field(response, "content", default=[])
    if isinstance(content, str):
        return [{"role": "assistant", "content": content}]
    blocks = [_plain(b) for b in as_list(content)]
    for block in blocks:
        if block.get("type") == "tool_use" and not isinstance(block.get("input"), dict):
            block["input"] = {"INVALID_JSON": str(block.get("input", ""))}
    return [{"role": "assistant", "content": blocks}]


def _gemini(response: Any) -> list[dict[str, Any]]:
    """The first candidate's content (role ``model``, its ``functionCall`` parts in it)."""
    candidates = as_list(get_field(response, "candidates"))
    if not candidates:
        return []
    content = _plain(get_field(candidates[0], "content", default={}))
    return [content] if content else []


_TURNS = {
    "openai": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
}


def assistant_turn(response: Any, *, provider: str) -> list[dict[str, Any]]:
    """The model's turn in ``response`` as the messages (or input items) to append to the
    history, before the tool results: an assistant message with its ``tool_calls`` (OpenAI
    Chat), the output items with their ``function_call`` items (Responses), an assistant
    message with its ``tool_use`` blocks (Anthropic), the candidate's content (Gemini)."""
    try:
        turn = _TURNS[provider]
    except KeyError:
        raise ValueError(
            f"unknown provider {provider!r}; use one of {', '.join(map(repr, _TURNS))}"
        ) from None
    return turn(response)

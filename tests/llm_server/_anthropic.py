"""Anthropic Messages as the API checks and answers requests (``POST /v1/messages``).

Refused like the real API: unknown request fields, a missing ``max_tokens``, messages or
blocks that are not the SDK's request types, a first message that is not the user's, a
``tool_use`` whose ``tool_result`` is not in the very next message, and a ``tool_result``
that answers no ``tool_use`` of the message right before it. Streams as the SDK expects:
``message_start``, ``content_block_start`` / ``_delta`` (``text_delta``,
``input_json_delta``) / ``_stop``, ``message_delta``, ``message_stop``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from llm_server._checks import Refusal, check_fields, conforms
from llm_server._turns import Turn, pieces, words


def _block_type(block: Any) -> Any:
    from anthropic import types

    kinds = {
        "text": types.TextBlockParam,
        "tool_use": types.ToolUseBlockParam,
        "tool_result": types.ToolResultBlockParam,
    }
    kind = block.get("type") if isinstance(block, dict) else None
    if kind not in kinds:
        raise Refusal(f"Input tag '{kind}' found using 'type' does not match any expected tag")
    return kinds[kind]


def check(body: dict[str, Any], accept: set[str]) -> None:
    from anthropic.types import ToolParam
    from anthropic.types.message_create_params import MessageCreateParamsBase

    check_fields(body, MessageCreateParamsBase, accept)
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            raise Refusal(f"{name}: Field required")
    for index, tool in enumerate(body.get("tools") or []):
        conforms(ToolParam, tool, f"tools.{index}")
    messages = body["messages"]
    if not messages or messages[0].get("role") != "user":
        raise Refusal('messages: the first message must use the "user" role')
    open_uses: set[str] = set()
    for index, message in enumerate(messages):
        where = f"messages.{index}"
        if message.get("role") not in ("user", "assistant") or set(message) - {"role", "content"}:
            raise Refusal(f"{where}: a message is {{role: user|assistant, content}}")
        content = message["content"]
        blocks = [] if isinstance(content, str) else content
        for number, block in enumerate(blocks):
            conforms(_block_type(block), block, f"{where}.content.{number}")
        results = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
        unexpected = [r for r in results if r not in open_uses]
        if unexpected:
            raise Refusal(
                f"{where}.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{unexpected[0]}. Each `tool_result` block must have a corresponding "
                "`tool_use` block in the previous message."
            )
        missing = sorted(open_uses - set(results))
        if missing:
            raise Refusal(
                f"messages.{index - 1}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message."
            )
        open_uses = {b["id"] for b in blocks if b["type"] == "tool_use"}
        if open_uses and message["role"] != "assistant":
            raise Refusal(f"{where}: tool_use blocks belong to assistant messages")
    if open_uses:
        raise Refusal(
            f"messages.{len(messages) - 1}: `tool_use` ids were found without `tool_result` "
            f"blocks immediately after: {', '.join(sorted(open_uses))}."
        )


def _content(turn: Turn) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for name, args, cid in turn.calls:
        content.append({"type": "tool_use", "id": cid, "name": name, "input": args})
    return content


def _stop(turn: Turn) -> str:
    return turn.stop_reason or ("tool_use" if turn.calls else "end_turn")


def answer(turn: Turn, n: int, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": _content(turn),
        "stop_reason": _stop(turn),
        "stop_sequence": None,
        "usage": {"input_tokens": 100 + n, "output_tokens": 10},
    }


def events(turn: Turn, n: int, body: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
    """``(event, data)`` pairs of the SSE stream."""
    start = {**answer(turn, n, body), "content": [], "stop_reason": None}
    start["usage"] = {"input_tokens": 100 + n, "output_tokens": 1}
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    for index, block in enumerate(_content(turn)):
        if block["type"] == "text":
            first: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": w} for w in words(block["text"])]
        else:
            first = {**block, "input": {}}
            text = json.dumps(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces(text, 5)]
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": first,
            },
        )
        for delta in deltas:
            yield (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
        if turn.stream_error:
            error = {"type": "overloaded_error", "message": turn.stream_error}
            yield "error", {"type": "error", "error": error}
            return
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop(turn), "stop_sequence": None},
            "usage": {"output_tokens": 10},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def error_body(refusal: Refusal) -> dict[str, Any]:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": refusal.message}}

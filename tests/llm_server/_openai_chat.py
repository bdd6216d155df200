"""OpenAI Chat Completions as the API checks and answers it (``POST /v1/chat/completions``).

Refused like the real API: unknown request fields, messages or tools that are not the SDK's
request types, a ``tool`` message that answers no ``tool_calls`` of the assistant turn before
it, tool calls left unanswered, and ``max_tokens`` (or a temperature other than 1) for a
reasoning model. Streams as ``data: {chat.completion.chunk}`` lines ending in ``data: [DONE]``,
tool-call arguments in pieces, usage in a last chunk when ``stream_options.include_usage``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from llm_server._checks import REASONING, Refusal, check_fields, conforms
from llm_server._turns import Turn, arguments_text, pieces, words

_ROLES = {
    "system": "ChatCompletionSystemMessageParam",
    "developer": "ChatCompletionDeveloperMessageParam",
    "user": "ChatCompletionUserMessageParam",
    "assistant": "ChatCompletionAssistantMessageParam",
    "tool": "ChatCompletionToolMessageParam",
}


def check(body: dict[str, Any], accept: set[str]) -> None:
    from openai.types import chat
    from openai.types.chat.completion_create_params import CompletionCreateParamsBase

    check_fields(body, CompletionCreateParamsBase, accept)
    for name in ("model", "messages"):
        if name not in body:
            raise Refusal(f"Missing required parameter: '{name}'.", param=name)
    model = str(body["model"])
    if REASONING.match(model):
        if "max_tokens" in body:
            raise Refusal(
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                param="max_tokens",
                code="unsupported_parameter",
            )
        if body.get("temperature", 1) != 1:
            raise Refusal(
                f"Unsupported value: 'temperature' does not support {body['temperature']} with "
                "this model. Only the default (1) value is supported.",
                param="temperature",
                code="unsupported_value",
            )
    for index, tool in enumerate(body.get("tools") or []):
        conforms(chat.ChatCompletionFunctionToolParam, tool, f"tools[{index}]")
    messages = body["messages"]
    if not messages:
        raise Refusal("Invalid 'messages': empty array.", param="messages")
    pending: dict[str, int] = {}
    answerable: set[str] = set()
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        role = message.get("role")
        if role not in _ROLES:
            raise Refusal(f"Invalid value: '{role}'. Supported values are: ...", param=where)
        conforms(getattr(chat, _ROLES[role]), message, where)
        if role == "tool":
            if message["tool_call_id"] not in answerable:
                raise Refusal(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    param=f"{where}.role",
                )
            pending.pop(message["tool_call_id"], None)
            continue
        if pending:
            raise _unanswered(pending)
        answerable = set()
        for call in (message.get("tool_calls") or []) if role == "assistant" else []:
            pending[call["id"]] = index
            answerable.add(call["id"])
    if pending:
        raise _unanswered(pending)


def _unanswered(pending: dict[str, int]) -> Refusal:
    index = min(pending.values())
    return Refusal(
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(sorted(pending)),
        param=f"messages.[{index}].role",
    )


def _tool_calls(turn: Turn) -> list[dict[str, Any]]:
    return [
        {
            "id": cid,
            "type": "function",
            "function": {"name": name, "arguments": arguments_text(args)},
        }
        for name, args, cid in turn.calls
    ]


def _finish(turn: Turn) -> str:
    return turn.stop_reason or ("tool_calls" if turn.calls else "stop")


def _usage(n: int) -> dict[str, int]:
    return {"prompt_tokens": 100 + n, "completion_tokens": 10, "total_tokens": 110 + n}


def answer(turn: Turn, n: int, body: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text, "refusal": None}
    if turn.calls:
        message["tool_calls"] = _tool_calls(turn)
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(turn)}],
        "usage": _usage(n),
    }


def chunks(turn: Turn, n: int, body: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
    """``(event, data)`` pairs of the SSE stream; ``data`` is an object or ``"[DONE]"``."""
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": body["model"],
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        if include_usage:
            data["usage"] = None
        return data

    yield None, chunk({"role": "assistant", "content": "", "refusal": None})
    for piece in words(turn.text or ""):
        yield None, chunk({"content": piece})
    if turn.stream_error:
        yield None, {"error": {"message": turn.stream_error, "type": "server_error"}}
        return
    for index, (name, args, cid) in enumerate(turn.calls):
        first = {"index": index, "id": cid, "type": "function"}
        yield None, chunk({"tool_calls": [{**first, "function": {"name": name, "arguments": ""}}]})
        for piece in pieces(arguments_text(args), 5):
            yield None, chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield None, chunk({}, _finish(turn))
    if include_usage:
        last = chunk({})
        last["choices"] = []
        last["usage"] = _usage(n)
        yield None, last
    yield None, "[DONE]"


def error_body(refusal: Refusal) -> dict[str, Any]:
    return {
        "error": {
            "message": refusal.message,
            "type": "invalid_request_error",
            "param": refusal.param,
            "code": refusal.code,
        }
    }

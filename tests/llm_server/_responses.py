"""The OpenAI Responses API as it checks and answers requests (``POST /v1/responses``).

Refused like the real API: unknown request fields, input items that are not the SDK's input
item types, a ``function_call_output`` with no ``function_call`` of the same ``call_id``
before it, a ``function_call`` with no output after it, and ``previous_response_id`` (this
server keeps nothing). Streams as typed SSE events (``event: response.output_text.delta``
...), ending with ``response.completed`` holding the whole response.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from llm_server._checks import Refusal, check_fields, conforms
from llm_server._turns import Turn, arguments_text, pieces, words


def _item_type(item: dict[str, Any]) -> Any:
    from openai.types.responses import response_input_item_param as p

    kind = item.get("type", "message")
    if kind == "message":
        if item.get("role") == "assistant" and "id" in item:
            return p.ResponseOutputMessageParam
        return p.EasyInputMessageParam
    types = {
        "function_call": p.ResponseFunctionToolCallParam,
        "function_call_output": p.FunctionCallOutput,
        "reasoning": p.ResponseReasoningItemParam,
    }
    if kind not in types:
        raise Refusal(f"Invalid value: '{kind}' (not served here).", param="input")
    return types[kind]


def check(body: dict[str, Any], accept: set[str]) -> None:
    from openai.types.responses import FunctionToolParam
    from openai.types.responses.response_create_params import ResponseCreateParamsBase

    check_fields(body, ResponseCreateParamsBase, accept)
    if "model" not in body:
        raise Refusal("Missing required parameter: 'model'.", param="model")
    if body.get("previous_response_id"):
        raise Refusal("Previous response not found (this server stores none).", param="input")
    for index, tool in enumerate(body.get("tools") or []):
        conforms(FunctionToolParam, tool, f"tools[{index}]")
    items = body.get("input")
    if isinstance(items, str):
        return
    if not isinstance(items, list) or not items:
        raise Refusal("Invalid 'input': expected a string or a non-empty array.", param="input")
    calls: set[str] = set()
    answered: set[str] = set()
    for index, item in enumerate(items):
        conforms(_item_type(item), item, f"input[{index}]")
        if item.get("type") == "reasoning" and (
            index + 1 == len(items) or items[index + 1].get("type") == "reasoning"
        ):
            raise Refusal(
                f"Item '{item.get('id')}' of type 'reasoning' was provided without its "
                "required following item.",
                param="input",
            )
        if item.get("type") == "function_call":
            calls.add(item["call_id"])
        elif item.get("type") == "function_call_output":
            if item["call_id"] not in calls:
                raise Refusal(
                    f"No tool call found for function call output with call_id {item['call_id']}.",
                    param="input",
                )
            answered.add(item["call_id"])
    missing = sorted(calls - answered)
    if missing:
        raise Refusal(f"No tool output found for function call {missing[0]}.", param="input")


def _output(turn: Turn, n: int) -> list[dict[str, Any]]:
    output: list[dict[str, Any]] = []
    if turn.reasoning:
        output.append({"type": "reasoning", "id": f"rs_{n}", "summary": []})
    if turn.text:
        output.append(
            {
                "type": "message",
                "id": f"msg_{n}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
            }
        )
    for name, args, cid in turn.calls:
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{cid}",
                "call_id": cid,
                "name": name,
                "arguments": arguments_text(args),
                "status": "completed",
            }
        )
    return output


def answer(
    turn: Turn, n: int, body: dict[str, Any], *, status: str = "completed"
) -> dict[str, Any]:
    done = status == "completed"
    incomplete = turn.stop_reason is not None and done
    return {
        "id": f"resp_{n}",
        "object": "response",
        "created_at": 1_700_000_000,
        "status": "incomplete" if incomplete else status,
        "error": None,
        "incomplete_details": {"reason": turn.stop_reason} if incomplete else None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": body["model"],
        "output": _output(turn, n) if done else [],
        "parallel_tool_calls": True,
        "temperature": body.get("temperature", 1.0),
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools", []),
        "top_p": 1.0,
        "usage": {
            "input_tokens": 100 + n,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 110 + n,
        }
        if done
        else None,
    }


def events(turn: Turn, n: int, body: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
    """``(event, data)`` pairs of the SSE stream, ``sequence_number`` counting up."""
    sequence = iter(range(1_000_000))

    def event(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        return kind, {"type": kind, "sequence_number": next(sequence), **fields}

    yield event("response.created", response=answer(turn, n, body, status="in_progress"))
    yield event("response.in_progress", response=answer(turn, n, body, status="in_progress"))
    for index, item in enumerate(_output(turn, n)):
        base = {"output_index": index, "item_id": item["id"]}
        if item["type"] == "reasoning":
            yield event("response.output_item.added", output_index=index, item=item)
        elif item["type"] == "message":
            text = item["content"][0]["text"]
            part = {"type": "output_text", "text": "", "annotations": []}
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            yield event("response.content_part.added", **base, content_index=0, part=part)
            for piece in words(text):
                yield event(
                    "response.output_text.delta", **base, content_index=0, delta=piece, logprobs=[]
                )
            yield event(
                "response.output_text.done", **base, content_index=0, text=text, logprobs=[]
            )
            yield event(
                "response.content_part.done", **base, content_index=0, part={**part, "text": text}
            )
        else:
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            for piece in pieces(item["arguments"], 5):
                yield event("response.function_call_arguments.delta", **base, delta=piece)
            yield event(
                "response.function_call_arguments.done",
                **base,
                name=item["name"],
                arguments=item["arguments"],
            )
        yield event("response.output_item.done", output_index=index, item=item)
        if turn.stream_error:
            failed = answer(turn, n, body, status="failed")
            failed["error"] = {"code": "server_error", "message": turn.stream_error}
            yield event("response.failed", response=failed)
            return
    final = answer(turn, n, body)
    kind = "response.incomplete" if final["status"] == "incomplete" else "response.completed"
    yield event(kind, response=final)


def error_body(refusal: Refusal) -> dict[str, Any]:
    return {
        "error": {
            "message": refusal.message,
            "type": "invalid_request_error",
            "param": refusal.param,
            "code": refusal.code,
        }
    }

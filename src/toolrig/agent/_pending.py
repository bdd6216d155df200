"""A turn stopped for approval, as plain JSON data: what the session stores so that another
process can decide the held calls and finish the turn (``wire`` maps the call ids rewritten to
be unique back to the ids the model sent)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolrig.agent._approval import Decision, PendingCall, decision_problem
from toolrig.core.result._result import ErrorInfo, ToolResult, error_result, success_result
from toolrig.providers._calls import ParsedCall
from toolrig.runtime._request import ToolCall

__all__ = ["HeldTurn", "check_decisions"]


class HeldTurn:
    """The calls of the held turn, the results already known, and the calls still held."""

    def __init__(
        self,
        text: str | None,
        calls: Sequence[ParsedCall],
        results: Sequence[ToolResult],
        held: Sequence[PendingCall],
        wire: Mapping[str, str] | None = None,
    ) -> None:
        self.text = text
        self.wire = dict(wire or {})
        self.calls = list(calls)
        held_ids = {p.tool_call_id for p in held}
        self.known = {
            _id(r): r for r in results if r.metadata is not None and _id(r) not in held_ids
        }
        self.held = list(held)

    def to_data(self) -> dict[str, Any]:
        """JSON data for the session store."""
        return {
            "text": self.text,
            "calls": [_call_data(c) for c in self.calls],
            "results": {call_id: _result_data(r) for call_id, r in self.known.items()},
            "pending": [
                {"id": p.tool_call_id, "name": p.name, "arguments": p.arguments, "tool": p.tool}
                for p in self.held
            ],
            "wire_ids": self.wire,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> HeldTurn:
        """The inverse of `to_data`."""
        calls: list[ParsedCall] = []
        for item in data["calls"]:
            if "result" in item:
                calls.append(_result(item["result"]))
            else:
                calls.append(
                    ToolCall(
                        name=item["name"], arguments=item["arguments"], tool_call_id=item["id"]
                    )
                )
        held = [
            PendingCall(
                tool_call_id=p["id"], name=p["name"], arguments=p["arguments"], tool=p["tool"]
            )
            for p in data["pending"]
        ]
        known = [_result(r) for r in data["results"].values()]
        return cls(data.get("text"), calls, known, held, data.get("wire_ids"))


def check_decisions(held: Sequence[PendingCall], decisions: Mapping[str, Decision]) -> None:
    """Raise ``ValueError`` unless ``decisions`` decides exactly the held calls, each with a
    decision."""
    for call_id, decision in decisions.items():
        problem = decision_problem(decision)
        if problem is not None:
            raise ValueError(f"the decision for call {call_id}: {problem}")
    ids = {p.tool_call_id for p in held}
    missing = sorted(ids - set(decisions))
    unknown = sorted(set(decisions) - ids)
    if missing or unknown:
        parts = []
        if missing:
            parts.append(f"no decision for held call(s) {missing}")
        if unknown:
            parts.append(f"no held call(s) {unknown}")
        listed = ", ".join(f"{p.tool_call_id} ({p.name})" for p in held)
        raise ValueError(f"{'; '.join(parts)}; the held calls are: {listed or 'none'}")


def _id(result: ToolResult) -> str:
    return result.metadata.tool_call_id if result.metadata else ""


def _call_data(call: ParsedCall) -> dict[str, Any]:
    if isinstance(call, ToolResult):
        return {"result": _result_data(call)}
    return {"name": call.name, "arguments": call.arguments, "id": call.tool_call_id}


def _result_data(result: ToolResult) -> dict[str, Any]:
    meta = result.metadata
    return {
        "success": result.success,
        "output": result.output,
        "error": None if result.error is None else result.error.to_dict(),
        "tool": meta.tool if meta else "",
        "action": meta.action if meta else None,
        "id": meta.tool_call_id if meta else "",
    }


def _result(data: Mapping[str, Any]) -> ToolResult:
    if data["success"]:
        return success_result(
            data["output"], tool=data["tool"], action=data["action"], tool_call_id=data["id"]
        )
    error = ErrorInfo(**data["error"])
    result = error_result(
        error.code, error.message, tool=data["tool"], action=data["action"], tool_call_id=data["id"]
    )
    result.error = error
    return result

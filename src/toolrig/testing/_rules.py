"""The ordering rules the OpenAI Chat Completions API enforces on a conversation.

A test model checks every request against them, so a loop that would be refused with a 400 by
the real API fails its offline tests too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ModelScriptError", "chat_problems"]

ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


class ModelScriptError(AssertionError):
    """A test model and the code driving it disagree: the script ran out, a function returned
    something that is not a turn, or a request broke the protocol's rules."""


def chat_problems(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """What the API would refuse in ``messages``, in its own words (empty when valid)."""
    problems: list[str] = []
    pending: dict[str, str] = {}  # tool_call_id -> function name, awaiting a tool message
    answerable: set[str] = set()  # ids of the last assistant turn's tool calls
    for index, message in enumerate(messages):
        role = message.get("role")
        where = f"messages[{index}]"
        if role not in ROLES:
            problems.append(f"{where}: unknown role {role!r}")
            continue
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in answerable:
                problems.append(
                    f"{where}: messages with role 'tool' must be a response to a preceding "
                    f"message with 'tool_calls' (no call {call_id!r} to answer)"
                )
            pending.pop(str(call_id), None)
            continue
        if pending:
            problems.append(
                f"{where}: an assistant message with 'tool_calls' must be followed by tool "
                f"messages responding to each 'tool_call_id'; no response to: "
                f"{', '.join(sorted(pending))}"
            )
            pending.clear()
        answerable = set()
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                call_id = str(call.get("id"))
                pending[call_id] = str(call.get("function", {}).get("name"))
                answerable.add(call_id)
    if pending:
        problems.append(
            "the last assistant message has 'tool_calls' with no tool messages after it: "
            + ", ".join(sorted(pending))
        )
    return problems

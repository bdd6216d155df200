"""A stored conversation's messages as the session page shows them: role, text and the tool
calls asked for, with secret arguments masked. Messages are in the client's format (OpenAI
Chat style: ``tool_calls`` with ``function.name`` and JSON ``arguments``)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from toolrig.console._catalog_view import redact

__all__ = ["message_view"]


def message_view(message: dict[str, Any], secrets: dict[str, set[str]]) -> dict[str, Any]:
    """A stored message as the session page shows it (secret arguments masked)."""
    calls = []
    for call in message.get("tool_calls") or ():
        function = call.get("function", call) if isinstance(call, dict) else {}
        name = str(function.get("name", "?"))
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            with contextlib.suppress(ValueError):
                arguments = json.loads(arguments)
        calls.append({"name": name, "arguments": redact(arguments, secrets.get(name))})
    content = message.get("content")
    return {
        "role": str(message.get("role", "?")),
        "content": content,
        "calls": calls,
        "call_id": message.get("tool_call_id"),
    }

"""Reading a request of any of the three APIs: the tool results sent and the tools offered."""

from __future__ import annotations

from typing import Any


def _messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    items = request.get("messages", request.get("input", []))
    return [] if isinstance(items, str) else list(items)


def tool_results(request: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    """The tool results in a request: ``{call_id: (text, is_error)}``."""
    found: dict[str, tuple[str, bool]] = {}
    for message in _messages(request):
        if message.get("role") == "tool":
            text = message["content"]
            found[message["tool_call_id"]] = (text, text.startswith("Error ["))
        elif message.get("type") == "function_call_output":
            text = message["output"]
            found[message["call_id"]] = (text, text.startswith("Error ["))
        elif message.get("role") == "user" and isinstance(message.get("content"), list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    content = block["content"]
                    text = (
                        content
                        if isinstance(content, str)
                        else "".join(c.get("text", "") for c in content)
                    )
                    found[block["tool_use_id"]] = (text, bool(block.get("is_error")))
    return found


def tool_names(request: dict[str, Any]) -> list[str]:
    """Names of the tools offered in a request (any of the three APIs)."""
    return [
        spec["function"]["name"] if "function" in spec else spec["name"]
        for spec in request.get("tools", [])
    ]


def last_user_text(request: dict[str, Any]) -> str:
    """The text of the last user message of a request."""
    for message in reversed(_messages(request)):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return "".join(
                b.get("text", "") for b in content or [] if b.get("type") in ("text", "input_text")
            )
    return ""

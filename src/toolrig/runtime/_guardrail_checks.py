"""Two guardrails that come with the library: `secret_scanner` (a result that holds a key in a
known shape never reaches the model) and `size_check` (a result too large, too deep or not
plain JSON data is refused). Both are seams to build on, not a complete defence: a secret in
a shape not listed in `toolrig.core.model._secrets` passes the scanner.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping
from typing import Any, Final

from toolrig.core.model._secrets import SECRET_TEXT
from toolrig.core.result._result import ToolResult
from toolrig.runtime._call import Call
from toolrig.runtime._guardrails import OutputGuardrail, Verdict

__all__ = ["secret_scanner", "size_check"]

_MAX_SCAN_DEPTH: Final = 64


def secret_scanner(*, trip: bool = False, tools: Collection[str] | None = None) -> OutputGuardrail:
    """A guardrail refusing a result whose text holds a secret (an AWS, GitHub, OpenAI,
    Anthropic, Slack or Google key, a JWT, a bearer token, a private key block); ``trip``
    ends the run instead."""

    def secret_scanner(call: Call, result: ToolResult) -> Verdict:
        for text in _strings(result.output, 0):
            found = SECRET_TEXT.search(text)
            if found is not None:
                message = (
                    f"the output of `{call.action}` holds what looks like a secret "
                    f"({found.lastgroup}); it was withheld"
                )
                return Verdict.tripwire(message) if trip else Verdict.reject(message)
        return Verdict.allow()

    return OutputGuardrail(secret_scanner, tools=tools)


def size_check(
    *, max_chars: int = 100_000, max_depth: int = 32, tools: Collection[str] | None = None
) -> OutputGuardrail:
    """A guardrail refusing a result whose output, as JSON, is longer than ``max_chars``,
    nests deeper than ``max_depth``, or is not plain JSON data (a set, an object, NaN)."""
    if max_chars < 1 or max_depth < 1:
        raise ValueError("max_chars and max_depth must be at least 1")

    def size_check(call: Call, result: ToolResult) -> Verdict:
        if _depth(result.output, max_depth + 1) > max_depth:
            return Verdict.reject(f"the output of `{call.action}` nests deeper than {max_depth}")
        try:
            text = json.dumps(result.output, allow_nan=False, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            return Verdict.reject(f"the output of `{call.action}` is not plain JSON data: {exc}")
        if len(text) > max_chars:
            return Verdict.reject(
                f"the output of `{call.action}` is {len(text)} characters of JSON, more than "
                f"the {max_chars} allowed; ask for less (a narrower query, a page)"
            )
        return Verdict.allow()

    return OutputGuardrail(size_check, tools=tools)


def _strings(value: Any, depth: int) -> Iterator[str]:
    """Every text inside ``value`` (keys included), bounded in depth."""
    if depth > _MAX_SCAN_DEPTH:
        yield str(value)
    elif isinstance(value, str):
        yield value
    elif isinstance(value, (bytes, bytearray)):
        yield bytes(value).decode("utf-8", "replace")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item, depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _strings(item, depth + 1)
    elif value is not None and not isinstance(value, (bool, int, float)):
        yield str(value)


def _depth(value: Any, stop: int) -> int:
    """How deep ``value`` nests (counted up to ``stop``)."""
    if stop <= 0 or not isinstance(value, (Mapping, list, tuple)):
        return 0
    items = value.values() if isinstance(value, Mapping) else value
    return 1 + max((_depth(item, stop - 1) for item in items), default=0)

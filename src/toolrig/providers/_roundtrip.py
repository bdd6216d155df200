"""The round trip in one call: a provider's response in, its tool-result messages out.

Parse the response's tool calls, run them through the executor (concurrently), and format
each result as the provider expects, errors included so the model can correct itself. With
``include_turn=True`` the model's own turn (its tool calls) comes first, so appending the
returned messages keeps the conversation valid for the next request::

    messages += await run_tool_calls(response, executor, provider="openai", include_turn=True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from toolrig.core.result._result import ToolResult
from toolrig.providers import _anthropic, _gemini, _openai
from toolrig.providers._calls import ParsedCall, execute_calls, execute_calls_sync
from toolrig.providers._names import NameMap
from toolrig.providers._turns import assistant_turn
from toolrig.runtime._executor import ToolExecutor

__all__ = ["Provider", "parse_tool_calls", "run_tool_calls", "run_tool_calls_sync"]

Provider = Literal["openai", "openai-responses", "anthropic", "gemini"]
"""``openai`` is Chat Completions; ``openai-responses`` the Responses API."""


@dataclass(frozen=True, slots=True)
class _Format:
    parse: Callable[[Any, NameMap, bool | None], list[ParsedCall]]
    """``(response, names, strict)``: the calls of the response (``strict=None``: as the map
    was last exported)."""
    format: Callable[[Sequence[ToolResult], Sequence[ParsedCall], NameMap], list[dict[str, Any]]]


_FORMATS: dict[str, _Format] = {
    "openai": _Format(
        lambda r, n, s: _openai.parse_openai_chat_calls(r, n, strict=s),
        lambda results, calls, n: _openai.format_openai_chat_results(results),
    ),
    "openai-responses": _Format(
        lambda r, n, s: _openai.parse_openai_responses_calls(r, n, strict=s),
        lambda results, calls, n: _openai.format_openai_responses_results(results),
    ),
    "anthropic": _Format(
        lambda r, n, s: _anthropic.parse_anthropic_calls(r, n),
        lambda results, calls, n: _anthropic.format_anthropic_results(results),
    ),
    "gemini": _Format(
        lambda r, n, s: _gemini.parse_gemini_calls(r, n),
        lambda results, calls, n: _gemini.format_gemini_results(results, calls=calls, tools=n),
    ),
}


def _format_for(provider: str) -> _Format:
    try:
        return _FORMATS[provider]
    except KeyError:
        raise ValueError(
            f"unknown provider {provider!r}; use one of {', '.join(map(repr, _FORMATS))}"
        ) from None


def parse_tool_calls(
    response: Any, executor: ToolExecutor, *, provider: Provider, strict: bool | None = None
) -> list[ParsedCall]:
    """The tool calls of ``response`` as ``provider`` shapes them, named for ``executor``."""
    return _format_for(provider).parse(response, NameMap.from_tools(executor), strict)


async def run_tool_calls(
    response: Any,
    executor: ToolExecutor,
    *,
    provider: Provider,
    strict: bool | None = None,
    include_turn: bool = False,
) -> list[dict[str, Any]]:
    """Execute the tool calls in ``response`` and return the messages to send back.

    The provider accepts tool results only right after the model turn that made the calls.
    With ``include_turn`` the returned list starts with that turn (see
    `assistant_turn`), so ``messages += ...`` is all a loop needs; without it (the
    default, for loops that append the turn themselves) only the results come back, and no
    tool calls means no messages. ``strict`` says whether the tools were exported in OpenAI
    strict mode; by default, as the executor's tools were last exported (pass it when they
    were exported elsewhere). Results come back in the order of the calls.
    """
    fmt = _format_for(provider)
    names = NameMap.from_tools(executor)
    calls = fmt.parse(response, names, strict)
    results = await execute_calls(executor, calls)
    turn = assistant_turn(response, provider=provider) if include_turn else []
    return turn + fmt.format(results, calls, names)


def run_tool_calls_sync(
    response: Any,
    executor: ToolExecutor,
    *,
    provider: Provider,
    strict: bool | None = None,
    include_turn: bool = False,
) -> list[dict[str, Any]]:
    """Blocking `run_tool_calls`, for scripts."""
    fmt = _format_for(provider)
    names = NameMap.from_tools(executor)
    calls = fmt.parse(response, names, strict)
    results = execute_calls_sync(executor, calls)
    turn = assistant_turn(response, provider=provider) if include_turn else []
    return turn + fmt.format(results, calls, names)

"""What every SDK client shares: importing the SDK, and checking pass-through settings.

``LLMConfig.settings`` go to the SDK's request method as keyword arguments. A name the method
does not take would fail only at the first request, deep in the SDK; it is refused when the
client is made instead, with the names the method does take (or ``extra_body`` for fields of
a server the SDK does not know).
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from toolrig.agent._config import LLMConfig, LLMConfigError
from toolrig.providers._names import NameMap, ToolSource

__all__ = ["checked_settings", "import_sdk", "openai_sdk", "with_tools"]


def import_sdk(name: str, client: str) -> Any:
    """The SDK module ``name``, or an ImportError saying which extra installs it."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(f"The {client} client needs the SDK: pip install 'toolrig[llm]'") from exc


def checked_settings(
    method: Callable[..., Any], settings: Mapping[str, Any], api: str, *, own: set[str]
) -> dict[str, Any]:
    """``settings`` when ``method`` takes every one of them and none is one the client fills
    in itself (``own``); otherwise an `LLMConfigError` naming each bad one."""
    accepted = set(inspect.signature(method).parameters) - {"self"}
    problems = []
    for name in sorted(settings):
        if name in own:
            problems.append(f"{name!r} is set by the client")
        elif name not in accepted:
            close = difflib.get_close_matches(name, sorted(accepted - own), n=2)
            hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
            problems.append(f"{name!r} is not a {api} request field{hint}")
    if problems:
        raise LLMConfigError(
            "unknown LLM settings: "
            + "; ".join(problems)
            + ". Fields of other servers go in extra_body={...}."
        )
    return dict(settings)


def openai_sdk(config: LLMConfig, client: str) -> Any:
    """An ``openai.AsyncOpenAI`` for ``config`` (both OpenAI clients use one)."""
    openai = import_sdk("openai", client)
    return openai.AsyncOpenAI(
        api_key=config.api_key,
        base_url=config.base_url,
        timeout=config.timeout,
        max_retries=config.max_retries,
    )


def with_tools(
    request: dict[str, Any],
    config: LLMConfig,
    settings: Mapping[str, Any],
    tools: ToolSource | None,
    export: Callable[[NameMap], list[dict[str, Any]]],
) -> tuple[dict[str, Any], NameMap | None]:
    """``request`` completed the way every client completes it: the temperature, the tools
    exported by ``export`` (none when there are none), then the pass-through settings; and the
    names the model will call the tools by (``None`` when no tool is offered)."""
    if config.temperature is not None:
        request["temperature"] = config.temperature
    names = NameMap.from_tools(tools) if tools is not None else None
    specs = export(names) if names else []
    if specs:
        request["tools"] = specs
    request.update(settings)
    return request, names if specs else None

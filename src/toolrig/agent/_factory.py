"""``make_client``: the client for a configured provider.

Apart from `.client` because it names every concrete client, while each concrete client
builds on `.client`; kept there, the base module and the clients would import each other.
The SDK of a provider is imported only when its client is asked for.
"""

from __future__ import annotations

from typing import Any

from toolrig.agent._client import LLMClient
from toolrig.agent._config import LLMConfig

__all__ = ["make_client"]


def make_client(config: LLMConfig | None = None, **settings: Any) -> LLMClient:
    """A client for ``config`` (or settings resolved by `LLMConfig.resolve`):
    ``provider="openai"`` (Chat Completions), ``"openai-responses"`` or ``"anthropic"``."""
    resolved = config or LLMConfig.resolve(**settings)
    if resolved.provider == "anthropic":
        from toolrig.agent._anthropic_client import AnthropicClient

        return AnthropicClient(resolved)
    if resolved.provider == "openai-responses":
        from toolrig.agent._responses_client import OpenAIResponsesClient

        return OpenAIResponsesClient(resolved)
    from toolrig.agent._openai_client import OpenAIClient

    return OpenAIClient(resolved)

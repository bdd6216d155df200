"""OAuth for imported MCP servers: where the ``mcp`` SDK's OAuth flow keeps its tokens.

The flow itself is the SDK's (``mcp.client.auth.OAuthClientProvider``: protected-resource and
authorization-server discovery, dynamic or metadata-document registration, PKCE, scopes,
refresh), given to `ServerParams` as ``auth``. It needs a token storage:
`MemoryTokenStorage` keeps tokens in this process only, and never shows them in its
repr, so they cannot reach a log by way of an object being printed.
"""

from __future__ import annotations

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = ["MemoryTokenStorage"]


class MemoryTokenStorage:
    """The SDK's ``TokenStorage``, in memory (tokens last as long as the process)."""

    __slots__ = ("_client", "_tokens")

    def __init__(self, client_info: OAuthClientInformationFull | None = None) -> None:
        self._tokens: OAuthToken | None = None
        self._client = client_info

    async def get_tokens(self) -> OAuthToken | None:
        return self._tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self._client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._client = client_info

    @property
    def has_tokens(self) -> bool:
        """Whether an access token is held."""
        return self._tokens is not None

    def __repr__(self) -> str:
        held = "tokens held" if self._tokens is not None else "no tokens"
        return f"<MemoryTokenStorage: {held}>"

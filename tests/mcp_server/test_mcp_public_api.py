"""The public surface of `toolrig.mcp` is deliberate: changing it must be a visible change."""

from __future__ import annotations

import pytest

import toolrig.mcp
from toolrig.mcp import UnsafeBindError, check_bind

EXPECTED = {
    "ERROR_META_KEY",
    "BearerTokenMiddleware",
    "InMemoryEventStore",
    "InputRounds",
    "MCPToolSource",
    "MemoryTokenStorage",
    "ResourceAuth",
    "ScopePolicy",
    "ServeOptions",
    "ServerParams",
    "ToolServer",
    "TASK_FAILED",
    "TaskPolicy",
    "UnsafeBindError",
    "add_mcp_server",
    "add_mcp_server_async",
    "check_bind",
    "http_app",
    "serve",
    "serve_async",
    "serve_http",
    "serve_stdio",
}


def test_exported_members() -> None:
    assert set(toolrig.mcp.__all__) == EXPECTED
    for name in toolrig.mcp.__all__:
        assert hasattr(toolrig.mcp, name), name


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
def test_loopback_binds_need_no_token(host: str) -> None:
    check_bind(host, token=None, allow_remote=False)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "example.org"])
def test_other_binds_need_a_token_or_consent(host: str) -> None:
    with pytest.raises(UnsafeBindError, match="without a token"):
        check_bind(host, token=None, allow_remote=False)
    check_bind(host, token="t", allow_remote=False)
    check_bind(host, token=None, allow_remote=True)

"""MCP (Model Context Protocol): serve a catalogue as an MCP server, import remote MCP tools.

Needs the ``mcp`` extra: ``pip install 'toolrig[mcp]'``.

- `ToolServer` exposes a `Catalog` (such as a ``Registry``);
  `serve` runs it over stdio or streamable HTTP, as `ServeOptions` say.
- `add_mcp_server` adds the tools of a remote MCP server to a catalogue under a prefix;
  `ServerParams` describes the server, for it and `MCPToolSource`
  (OAuth through the SDK's flow, its tokens in a `MemoryTokenStorage`).
- `InMemoryEventStore` keeps SSE events so a client can resume a broken stream.
- `InputRounds`: how a server's 2026-07-28 calls ask for input (its sealing key).
- `TaskPolicy`: which tools clients call as MCP tasks (``TASK_FAILED``: the error code that
  ends a task ``failed``).
- `ResourceAuth`: serve as an OAuth 2.1 resource server (JWT access tokens of an issuer,
  checked against its JWKS); `ScopePolicy`: the scopes tools need by their annotations.
"""

try:
    import mcp as _mcp  # noqa: F401  (the SDK; absolute import, not this package)
    import uvicorn as _uvicorn  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "toolrig.mcp needs the MCP SDK and uvicorn: pip install 'toolrig[mcp]' "
        f"({exc.name or exc} is missing)"
    ) from exc

from toolrig.mcp._auth import ResourceAuth
from toolrig.mcp._event_store import InMemoryEventStore
from toolrig.mcp._oauth import MemoryTokenStorage
from toolrig.mcp._params import ServerParams
from toolrig.mcp._rounds import InputRounds
from toolrig.mcp._scopes import ScopePolicy
from toolrig.mcp._serve import ServeOptions, serve, serve_async
from toolrig.mcp._server import ToolServer
from toolrig.mcp._source import MCPToolSource, add_mcp_server, add_mcp_server_async
from toolrig.mcp._tasks import TASK_FAILED, TaskPolicy
from toolrig.mcp._transports import (
    BearerTokenMiddleware,
    UnsafeBindError,
    check_bind,
    http_app,
    serve_http,
    serve_stdio,
)
from toolrig.providers._mcp_format import ERROR_META_KEY

__all__ = [
    "ERROR_META_KEY",
    "TASK_FAILED",
    "BearerTokenMiddleware",
    "InMemoryEventStore",
    "InputRounds",
    "MCPToolSource",
    "MemoryTokenStorage",
    "ResourceAuth",
    "ScopePolicy",
    "ServeOptions",
    "ServerParams",
    "TaskPolicy",
    "ToolServer",
    "UnsafeBindError",
    "add_mcp_server",
    "add_mcp_server_async",
    "check_bind",
    "http_app",
    "serve",
    "serve_async",
    "serve_http",
    "serve_stdio",
]

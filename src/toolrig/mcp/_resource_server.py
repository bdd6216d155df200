"""The HTTP face of the resource-server mode: metadata, and 401 / 403 / 503 answers.

`ResourceServer` sits in front of the MCP app. It serves the protected-resource metadata
(RFC 9728, the SDK's ``ProtectedResourceMetadata``) at
``/.well-known/oauth-protected-resource`` plus the endpoint's path, without a token. Every
other request needs ``Authorization: Bearer <JWT>``:

- none: 401 with ``WWW-Authenticate: Bearer resource_metadata="..."`` (where a client finds
  the issuer, as the MCP authorization specification requires);
- one refused (`InvalidToken`): 401 with ``error="invalid_token"``;
- the issuer's keys out of reach (`IssuerUnavailable`): 503 with ``Retry-After``;
- a POST whose ``tools/call`` (alone or in a batch) names a tool the token's scopes do not
  reach: 403 with ``error="insufficient_scope"`` and ``scope="..."`` (the tool's scopes), the
  tool not run.

An accepted token becomes the request's ``user`` and ``auth`` (as the SDK's
``AuthenticationMiddleware`` would set them) and the SDK's auth context, so the server's
handlers check scopes on every path that runs a tool too (``_scopes``).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pydantic_core
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.routes import build_resource_metadata_url
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.authentication import AuthCredentials
from starlette.types import ASGIApp, Receive, Scope, Send

from toolrig.mcp._auth import InvalidToken, IssuerUnavailable, JWTVerifier, ResourceAuth
from toolrig.mcp._scopes import ScopeCheck
from toolrig.mcp._server import ToolServer
from toolrig.mcp._stateless import _read_body, _replay

__all__ = ["ResourceServer"]

logger = logging.getLogger("toolrig.mcp")


def _quoted(text: str) -> str:
    """``text`` as an RFC 9110 quoted string (quotes and backslashes escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class ResourceServer:
    """ASGI middleware enforcing `ResourceAuth` (its ``resource`` must be set) on ``app``."""

    def __init__(self, app: ASGIApp, server: ToolServer, auth: ResourceAuth) -> None:
        if auth.resource is None:
            raise ValueError("the resource URL must be known to serve as a resource server")
        self.app = app
        self.server = server
        self.auth = auth
        self.verifier = JWTVerifier(auth)
        self.check = ScopeCheck(auth.scopes)
        server.scopes = self.check
        url = str(build_resource_metadata_url(AnyHttpUrl(auth.resource)))
        self.metadata_url = url
        self._metadata_paths = {
            "/" + url.split("://", 1)[1].split("/", 1)[1],
            "/.well-known/oauth-protected-resource",
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] in self._metadata_paths and scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self._metadata(send, preflight=scope["method"] == "OPTIONS")
            return
        given = _bearer(scope)
        if given is None:
            await self._refuse(send, 401, "authentication required", error=None)
            return
        try:
            token = await self.verifier.verify(given)
        except InvalidToken as exc:
            await self._refuse(send, 401, str(exc), error="invalid_token")
            return
        except IssuerUnavailable as exc:
            logger.warning("cannot verify bearer tokens: %s", exc)
            await _send_json(
                send,
                503,
                {"error": "temporarily_unavailable", "error_description": "cannot verify tokens"},
                [(b"retry-after", b"30")],
            )
            return
        user = AuthenticatedUser(token)
        scope["user"], scope["auth"] = user, AuthCredentials(token.scopes)
        if scope["method"] == "POST":
            body, complete = await _read_body(receive)
            needed = self._lacking(body, frozenset(token.scopes)) if complete else None
            if needed:
                names = " ".join(sorted(needed))
                await self._refuse(
                    send, 403, f"this call needs scope {names}", error="insufficient_scope",
                    scope=names,
                )  # fmt: skip
                return
            receive = _replay(body, complete, receive)
        reset = auth_context_var.set(user)
        try:
            await self.app(scope, receive, send)
        finally:
            auth_context_var.reset(reset)

    def _lacking(self, body: bytes, granted: frozenset[str]) -> frozenset[str]:
        """The scopes the ``tools/call`` requests of ``body`` need beyond ``granted`` (every
        scope of each tool refused); unknown tools and other methods need none here."""
        try:
            message = pydantic_core.from_json(body)
        except ValueError:
            return frozenset()
        messages = message if isinstance(message, list) else [message]
        names = self.server._current().names
        needed: frozenset[str] = frozenset()
        for item in messages:
            if not isinstance(item, dict) or item.get("method") != "tools/call":
                continue
            params = item.get("params")
            if not isinstance(params, dict):
                continue
            name = params.get("name")
            entry = names.lookup(name) if isinstance(name, str) else None
            if entry is None or entry.provider_name != name:
                continue
            if self.check.missing(entry, granted):
                needed |= self.auth.scopes.required(entry)
        return needed

    async def _metadata(self, send: Send, *, preflight: bool = False) -> None:
        assert self.auth.resource is not None
        cors = [(b"access-control-allow-origin", b"*")]
        if preflight:  # browsers ask first; the metadata is public
            cors += [(b"access-control-allow-methods", b"GET, OPTIONS"), (b"content-length", b"0")]
            await send({"type": "http.response.start", "status": 204, "headers": cors})
            await send({"type": "http.response.body", "body": b""})
            return
        metadata = ProtectedResourceMetadata(
            resource=AnyHttpUrl(self.auth.resource),
            authorization_servers=[AnyHttpUrl(self.auth.issuer)],
            scopes_supported=self.check.supported(self.server._current().names),
            resource_name=self.auth.resource_name,
        )
        data = metadata.model_dump(mode="json", exclude_none=True)
        # as configured: pydantic writes "https://id.example" as "https://id.example/", and
        # clients compare the issuer's identifier as a string
        data.update(resource=self.auth.resource, authorization_servers=[self.auth.issuer])
        await _send_json(send, 200, data, cors)

    async def _refuse(
        self, send: Send, status: int, description: str, *, error: str | None, scope: str = ""
    ) -> None:
        parts = [] if error is None else [f"error={_quoted(error)}"]
        if error is not None:
            parts.append(f"error_description={_quoted(description)}")
        if scope:
            parts.append(f"scope={_quoted(scope)}")
        parts.append(f"resource_metadata={_quoted(self.metadata_url)}")
        body: dict[str, Any] = {"error": error or "invalid_request"}
        body["error_description"] = description
        challenge = ("Bearer " + ", ".join(parts)).encode()
        await _send_json(send, status, body, [(b"www-authenticate", challenge)])


def _bearer(scope: Scope) -> str | None:
    """The token of an ``Authorization: Bearer`` header (``None``: none given)."""
    for key, value in scope.get("headers", ()):
        if key == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            return token if kind.lower() == "bearer" and token else None
    return None


async def _send_json(
    send: Send, status: int, data: dict[str, Any], headers: list[tuple[bytes, bytes]]
) -> None:
    body = json.dumps(data).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})

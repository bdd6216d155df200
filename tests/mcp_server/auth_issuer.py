"""A local OAuth issuer for the resource-server tests: an RSA key made here, its JWKS and
authorization-server metadata served on 127.0.0.1, tokens signed with PyJWT.

``mode`` makes the JWKS endpoint misbehave: ``down`` (HTTP 500), ``garbage`` (not JSON),
``empty`` (a JSON object that is no key set), ``slow`` (answers after ``slow_seconds``)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from asgi_server import serve_asgi


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass
class Issuer:
    """The issuer's state; ``url`` is set once it listens."""

    key: rsa.RSAPrivateKey = field(default_factory=new_key)
    kid: str = "k1"
    url: str = ""
    mode: str = "ok"
    slow_seconds: float = 3.0
    jwks_hits: int = 0

    def jwks(self) -> dict[str, Any]:
        public = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [{**public, "kid": self.kid, "use": "sig", "alg": "RS256"}]}

    def token(
        self,
        *,
        scope: str = "tools:read tools:write tools:destructive",
        audience: str | list[str] = "",
        lifetime: float = 300,
        key: Any = None,
        kid: str | None = None,
        algorithm: str = "RS256",
        **claims: Any,
    ) -> str:
        """A signed access token (``audience`` must be given: the resource's URL, say)."""
        now = int(time.time())
        payload = {
            "iss": self.url,
            "sub": "user-1",
            "client_id": "client-1",
            "aud": audience,
            "iat": now,
            "exp": now + int(lifetime),
            "scope": scope,
            **claims,
        }
        headers = {"kid": kid or self.kid}
        signer = self.key if key is None else key
        return jwt.encode(payload, signer, algorithm=algorithm, headers=headers)

    def app(self) -> Starlette:
        async def metadata(request: Request) -> Response:
            return JSONResponse(
                {
                    "issuer": self.url,
                    "jwks_uri": f"{self.url}/jwks",
                    "authorization_endpoint": f"{self.url}/authorize",
                    "token_endpoint": f"{self.url}/token",
                    "response_types_supported": ["code"],
                }
            )

        async def jwks(request: Request) -> Response:
            self.jwks_hits += 1
            if self.mode == "down":
                return PlainTextResponse("down", status_code=500)
            if self.mode == "garbage":
                return PlainTextResponse("<html>not json")
            if self.mode == "empty":
                return JSONResponse({"keys": "none"})
            if self.mode == "slow":
                await asyncio.sleep(self.slow_seconds)
            return JSONResponse(self.jwks())

        return Starlette(
            routes=[
                Route("/.well-known/oauth-authorization-server", metadata),
                Route("/jwks", jwks),
            ]
        )


@contextmanager
def running_issuer() -> Iterator[Issuer]:
    """An `Issuer` listening on 127.0.0.1 until the block ends."""
    issuer = Issuer()
    with serve_asgi(issuer.app()) as url:
        issuer.url = url
        yield issuer

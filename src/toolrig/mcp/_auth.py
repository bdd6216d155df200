"""OAuth 2.1 resource-server mode of ``toolrig serve``: who may call, and what.

`ResourceAuth` says which issuer's tokens count: JWT access tokens signed with a key of the
issuer's JWKS (``_jwks``), for this server's audience, unexpired, by that issuer, with an
asymmetric algorithm (``none`` and shared-secret ones are refused). `JWTVerifier` checks a
token with PyJWT and gives the SDK's ``AccessToken`` (it is an ``mcp`` ``TokenVerifier``).
What the HTTP app answers (401, 403, 503 and the protected-resource metadata) is
``_resource_server``; which tools a token's scopes reach is ``_scopes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Final

import jwt
from mcp.server.auth.provider import AccessToken

from toolrig.mcp._jwks import IssuerUnavailable, KeySet
from toolrig.mcp._scopes import ScopePolicy

__all__ = ["ASYMMETRIC", "InvalidToken", "IssuerUnavailable", "JWTVerifier", "ResourceAuth"]

ASYMMETRIC: Final = (
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
)  # fmt: skip
"""The signature algorithms accepted by default: public-key ones only."""


class InvalidToken(Exception):
    """The bearer token is not one this server accepts (answered 401 ``invalid_token``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceAuth:
    """Serve as an OAuth 2.1 resource server: accept JWT access tokens of ``issuer``.

    ``resource`` is this server's public URL (its MCP endpoint, e.g.
    ``https://tools.example/mcp``; ``None``: the URL it is served at), and tokens must name
    ``audience`` (``None``: the resource URL, as RFC 8707 resource indicators do) in ``aud``.
    The keys come from ``jwks_url`` (``None``: the ``jwks_uri`` of the issuer's metadata).
    """

    issuer: str
    audience: str | None = None
    jwks_url: str | None = None
    resource: str | None = None
    scopes: ScopePolicy = field(default_factory=ScopePolicy)
    """Which scopes tools without declared ``scopes=`` need."""
    algorithms: tuple[str, ...] = ASYMMETRIC
    leeway: float = 30.0
    """Seconds of clock skew allowed on ``exp`` and ``nbf``."""
    jwks_ttl: float = 300.0
    """Seconds the keys are kept before they are fetched again."""
    jwks_min_refresh: float = 30.0
    """Seconds at least between two fetches (a token naming an unknown key asks for one)."""
    jwks_timeout: float = 5.0
    """Seconds a fetch of the metadata or the keys may take."""
    resource_name: str | None = None
    """A human name for the resource, in its metadata."""

    def __post_init__(self) -> None:
        for name in ("issuer", "jwks_url", "resource"):
            value = getattr(self, name)
            if value is not None and not value.startswith(("https://", "http://")):
                raise ValueError(f"{name} must be an http(s) URL, got {value!r}")
        bad = [a for a in self.algorithms if a not in ASYMMETRIC]
        if bad or not self.algorithms:
            raise ValueError(f"algorithms must be public-key ones of {ASYMMETRIC}, got {bad}")
        if self.leeway < 0:
            raise ValueError("leeway must not be negative")

    def at(self, url: str) -> ResourceAuth:
        """These settings with ``resource`` set to ``url`` when it was not given."""
        return self if self.resource is not None else replace(self, resource=url)

    @property
    def expected_audience(self) -> str:
        audience = self.audience or self.resource
        if audience is None:
            raise ValueError("give the resource URL (or an audience) before verifying tokens")
        return audience


class JWTVerifier:
    """Verifies JWT access tokens as `ResourceAuth` says (an ``mcp`` ``TokenVerifier``)."""

    def __init__(self, auth: ResourceAuth) -> None:
        self.auth = auth
        self.audience = auth.expected_audience
        self.keys = KeySet(
            auth.issuer,
            auth.jwks_url,
            ttl=auth.jwks_ttl,
            min_refresh=auth.jwks_min_refresh,
            timeout=auth.jwks_timeout,
        )

    async def verify_token(self, token: str) -> AccessToken | None:
        """The SDK's interface: the token's grant, or ``None`` when it is not accepted.
        Raises `IssuerUnavailable` when the issuer's keys cannot be had."""
        try:
            return await self.verify(token)
        except InvalidToken:
            return None

    async def verify(self, token: str) -> AccessToken:
        """The grant of ``token``; `InvalidToken` saying why it is refused, or
        `IssuerUnavailable`."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise InvalidToken("the token is not a JWT") from None
        alg = header.get("alg")
        if alg not in self.auth.algorithms:
            raise InvalidToken(f"the token's algorithm {alg!r} is not accepted")
        kid = header.get("kid")
        if kid is not None and not isinstance(kid, str):
            raise InvalidToken("the token's key id is not a string")
        key = await self.keys.key(kid)
        if key is None:
            raise InvalidToken("the token is signed with a key the issuer does not publish")
        claims = self._decode(token, key, alg)
        return _access_token(token, claims)

    def _decode(self, token: str, key: jwt.PyJWK, alg: str) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[alg],
                audience=self.audience,
                issuer=self.auth.issuer,
                leeway=self.auth.leeway,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.ExpiredSignatureError:
            raise InvalidToken("the token has expired") from None
        except jwt.InvalidAudienceError:
            raise InvalidToken("the token was issued for another audience") from None
        except jwt.InvalidIssuerError:
            raise InvalidToken("the token was issued by another issuer") from None
        except jwt.InvalidSignatureError:
            raise InvalidToken("the token's signature does not verify") from None
        except jwt.MissingRequiredClaimError as exc:
            raise InvalidToken(f"the token has no {exc.claim!r} claim") from None
        except jwt.ImmatureSignatureError:
            raise InvalidToken("the token is not valid yet") from None
        except (jwt.PyJWTError, ValueError, TypeError):
            raise InvalidToken("the token cannot be verified") from None
        return claims


def _access_token(token: str, claims: dict[str, Any]) -> AccessToken:
    """The SDK's ``AccessToken`` of verified ``claims`` (scopes from ``scope`` or ``scp``)."""
    raw = claims.get("scope", claims.get("scp", ""))
    if isinstance(raw, str):
        scopes = raw.split()
    elif isinstance(raw, list) and all(isinstance(s, str) for s in raw):
        scopes = list(raw)
    else:
        raise InvalidToken("the token's scope claim is neither a string nor a list of strings")
    subject = claims.get("sub")
    client = claims.get("client_id", claims.get("azp", subject))
    audience = claims.get("aud")
    exp = claims.get("exp")
    return AccessToken(
        token=token,
        client_id=str(client) if client is not None else "",
        scopes=scopes,
        expires_at=int(exp) if isinstance(exp, int | float) else None,
        resource=audience if isinstance(audience, str) else None,
        subject=str(subject) if subject is not None else None,
        claims=claims,
    )

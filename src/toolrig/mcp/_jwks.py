"""An issuer's signing keys (its JWKS), fetched over HTTP and cached with bounded refresh.

The keys' URL is given, or read from the issuer's authorization-server metadata (RFC 8414,
then OpenID Connect discovery), whose ``issuer`` must be the one configured. Keys are kept
``ttl`` seconds; a token naming a key not held triggers a refetch, at most once every
``min_refresh`` seconds, so tokens with made-up key ids cannot make the server hammer the
issuer. A fetch that fails (down, slow past ``timeout``, not a JWKS) raises
`IssuerUnavailable` when no keys are held; with keys held, they stay in use until the next
allowed refresh. Parsing the keys is PyJWT's (``PyJWKSet``), never code of ours.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import urlsplit

import httpx
import jwt

__all__ = ["IssuerUnavailable", "KeySet"]


class IssuerUnavailable(Exception):
    """The issuer's metadata or keys cannot be had right now (answered 503, not 401)."""


def metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata may live: RFC 8414 (path inserted after the host), then
    OpenID Connect discovery (path appended)."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    origin = f"{parts.scheme}://{parts.netloc}"
    return [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}{path}/.well-known/openid-configuration",
    ]


class KeySet:
    """The signing keys of ``issuer`` (from ``jwks_url``, or found through its metadata)."""

    def __init__(
        self,
        issuer: str,
        jwks_url: str | None = None,
        *,
        ttl: float = 300.0,
        min_refresh: float = 30.0,
        timeout: float = 5.0,
    ) -> None:
        if ttl <= 0 or min_refresh < 0 or timeout <= 0:
            raise ValueError("ttl and timeout must be positive, min_refresh not negative")
        self.issuer = issuer
        self.jwks_url = jwks_url
        self.ttl, self.min_refresh, self.timeout = ttl, min_refresh, timeout
        self._keys: dict[str, jwt.PyJWK] = {}
        self._fetched_at: float | None = None  # of the last attempt, good or bad
        self._good_at: float | None = None
        self._lock = asyncio.Lock()
        self.fetches = 0
        """How many times the keys were fetched (successfully or not)."""

    async def key(self, kid: str | None) -> jwt.PyJWK | None:
        """The key ``kid`` names (the only key when ``kid`` is ``None`` and one is held), or
        ``None`` when the issuer has no such key. Raises `IssuerUnavailable`."""
        now = time.monotonic()
        stale = self._good_at is None or now - self._good_at > self.ttl
        if stale or self._find(kid) is None:
            await self._refresh()
        return self._find(kid)

    def _find(self, kid: str | None) -> jwt.PyJWK | None:
        if kid is None:
            return next(iter(self._keys.values())) if len(self._keys) == 1 else None
        return self._keys.get(kid)

    async def _refresh(self) -> None:
        async with self._lock:
            now = time.monotonic()
            last = self._fetched_at
            if last is not None and now - last < self.min_refresh:
                if not self._keys:
                    raise IssuerUnavailable("the issuer's keys could not be fetched lately")
                return  # refetched lately: answer from what is held
            self._fetched_at = now
            self.fetches += 1
            try:
                keys = await self._fetch()
            except IssuerUnavailable:
                if not self._keys:
                    raise
                return  # keep the keys held until the next allowed refresh
            self._keys, self._good_at = keys, time.monotonic()

    async def _fetch(self) -> dict[str, jwt.PyJWK]:
        async with httpx.AsyncClient(timeout=self.timeout, follow_redirects=False) as client:
            url = self.jwks_url or await self._discover(client)
            document = await _get_json(client, url)
        try:
            found = jwt.PyJWKSet.from_dict(document)
        except (jwt.PyJWKSetError, jwt.InvalidKeyError, TypeError, ValueError) as exc:
            raise IssuerUnavailable(f"{url} is not a usable JWKS: {exc}") from None
        keys: dict[str, jwt.PyJWK] = {}
        for index, key in enumerate(found.keys):
            if key.public_key_use in (None, "sig"):
                keys[key.key_id or f"#{index}"] = key
        if not keys:
            raise IssuerUnavailable(f"{url} holds no signing key")
        return keys

    async def _discover(self, client: httpx.AsyncClient) -> str:
        reasons = []
        for url in metadata_urls(self.issuer):
            try:
                metadata = await _get_json(client, url)
            except IssuerUnavailable as exc:
                reasons.append(str(exc))
                continue
            if metadata.get("issuer") != self.issuer:
                raise IssuerUnavailable(f"{url} names issuer {metadata.get('issuer')!r}")
            jwks_uri = metadata.get("jwks_uri")
            if not isinstance(jwks_uri, str) or not jwks_uri.startswith(("https://", "http://")):
                raise IssuerUnavailable(f"{url} gives no jwks_uri")
            self.jwks_url = jwks_uri
            return jwks_uri
        raise IssuerUnavailable("no issuer metadata: " + "; ".join(reasons))


async def _get_json(client: httpx.AsyncClient, url: str) -> dict[str, Any]:
    """The JSON object at ``url``, or `IssuerUnavailable` saying why not."""
    try:
        response = await client.get(url, headers={"accept": "application/json"})
    except httpx.HTTPError as exc:
        raise IssuerUnavailable(f"{url}: {type(exc).__name__}") from None
    if response.status_code != 200:
        raise IssuerUnavailable(f"{url} answered HTTP {response.status_code}")
    if len(response.content) > 1_000_000:
        raise IssuerUnavailable(f"{url} answered more than 1 MB")
    try:
        document = response.json()
    except ValueError:
        raise IssuerUnavailable(f"{url} did not answer JSON") from None
    if not isinstance(document, dict):
        raise IssuerUnavailable(f"{url} did not answer a JSON object")
    return document

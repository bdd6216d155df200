"""A client command for the MCP conformance suite, built on ``add_mcp_server``.

    python examples/conformance_client.py URL        (the suite appends URL)

The suite names the scenario in ``MCP_CONFORMANCE_SCENARIO`` (and passes credentials for some
in ``MCP_CONFORMANCE_CONTEXT``). The client imports the server's tools into a registry and
calls them as any toolrig tool:

- a server's elicitation is answered by the same kind of hook an application gives its own
  tools (an :class:`~toolrig.core.Elicitor`); this one accepts and leaves every field out,
  so the schema's defaults are applied (SEP-1034);
- ``auth/*`` scenarios use the ``mcp`` SDK's OAuth flow (``auth=OAuthClientProvider(...)``);
  the suite's authorization server approves at once, so the "browser" step is one request.
  When done, the command checks that no token it held appeared in its log output.
- ``TOOLRIG_MCP_PROTOCOL=auto`` (or ``2026-07-28``) speaks the 2026-07-28 revision where the
  server does: the server's questions come as input-required rounds, answered by the same
  hooks (and a sampler that gives a fixed answer).
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any, Literal, cast

from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata

from toolrig import ToolExecutor
from toolrig.core import Elicitation
from toolrig.mcp import MemoryTokenStorage, add_mcp_server
from toolrig.registry import Registry

CALLBACK = "http://localhost:3000/callback"
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
ARGUMENTS: dict[str, dict[str, Any]] = {"add_numbers": {"a": 5, "b": 3}}


async def accept_with_defaults(message: str, schema: Mapping[str, Any]) -> Elicitation:
    """The input hook of this command: accept, giving no value (defaults fill them)."""
    return Elicitation(action="accept", content={})


Era = Literal["handshake", "auto", "2026-07-28"]


def suggested_arguments() -> dict[str, dict[str, Any]]:
    """The arguments the suite asks some tools to be called with (its ``toolCalls``)."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    calls = context.get("toolCalls") if isinstance(context, dict) else None
    return {  # a null for an optional parameter: leave it out (its header is then omitted)
        str(call["name"]): {k: v for k, v in (call.get("arguments") or {}).items() if v is not None}
        for call in calls or []
        if isinstance(call, dict) and "name" in call
    }


def protocol() -> Era:
    """The era to speak: ``TOOLRIG_MCP_PROTOCOL`` (``handshake``, ``auto``, ``2026-07-28``);
    the 2025 handshake by default."""
    chosen = os.environ.get("TOOLRIG_MCP_PROTOCOL", "handshake")
    return cast("Era", chosen)  # ServerParams refuses any other value


async def answer_briefly(messages: Any, system: str | None, max_tokens: int) -> str:
    """The model of this command (a server's sampling question gets a fixed answer)."""
    return "a brief answer"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any) -> None:
        return None


class HeadlessAuthorization:
    """The user-agent step of the authorization-code flow, for a server that approves at
    once: open the authorization URL and read the code from the redirect."""

    def __init__(self) -> None:
        self._result: AuthorizationCodeResult | None = None

    async def redirect(self, url: str) -> None:
        opener = urllib.request.build_opener(_NoRedirect)
        try:
            response = await asyncio.to_thread(opener.open, url)
            location = response.headers.get("Location", "")
        except urllib.error.HTTPError as exc:  # the 302 itself
            location = exc.headers.get("Location", "")
        query = urllib.parse.parse_qs(urllib.parse.urlparse(location).query)
        self._result = AuthorizationCodeResult(
            code=query["code"][0],
            state=query.get("state", [None])[0],
            iss=query.get("iss", [None])[0],
        )

    async def callback(self) -> AuthorizationCodeResult:
        if self._result is None:
            raise RuntimeError("the authorization server gave no code")
        return self._result


def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def enterprise_auth(url: str, context: Mapping[str, Any], storage: MemoryTokenStorage) -> Any:
    """Enterprise-managed authorization (SEP-990): the enterprise identity provider exchanges
    the user's ID token for an ID-JAG, which the SDK's provider trades for an access token.
    How to reach the identity provider is the deployment's business; here, the suite's."""
    parts = urllib.parse.urlparse(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    resource = _get_json(f"{origin}/.well-known/oauth-protected-resource{parts.path}")
    server = resource["authorization_servers"][0].rstrip("/")
    issuer = _get_json(f"{server}/.well-known/oauth-authorization-server")["issuer"]

    async def id_jag(audience: str, resource_id: str) -> str:
        form = urllib.parse.urlencode(
            {
                "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "audience": audience,
                "resource": resource_id,
                "subject_token": context["idp_id_token"],
                "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                "client_id": context["idp_client_id"],
            }
        ).encode()
        request = urllib.request.Request(context["idp_token_endpoint"], data=form)
        answer = await asyncio.to_thread(urllib.request.urlopen, request, timeout=10)
        return str(json.loads(answer.read())["access_token"])

    return IdentityAssertionOAuthProvider(
        url,
        storage,
        client_id=context["client_id"],
        client_secret=context["client_secret"],
        issuer=issuer,
        assertion_provider=id_jag,
        token_endpoint_auth_method="client_secret_basic",
    )


def oauth(url: str, scenario: str, storage: MemoryTokenStorage) -> Any:
    """The SDK's OAuth flow for ``scenario``."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if scenario == "auth/client-credentials-basic":
        return ClientCredentialsOAuthProvider(
            url, storage, client_id=context["client_id"], client_secret=context["client_secret"]
        )
    if scenario == "auth/client-credentials-jwt":
        signer = SignedJWTParameters(
            issuer=context["client_id"],
            subject=context["client_id"],
            signing_key=context["private_key_pem"],
            signing_algorithm=context.get("signing_algorithm") or "ES256",
        )
        return PrivateKeyJWTOAuthProvider(
            url,
            storage,
            client_id=context["client_id"],
            assertion_provider=signer.create_assertion_provider(),
        )
    if scenario == "auth/cross-app-access-complete-flow":
        return enterprise_auth(url, context, storage)
    if scenario == "auth/pre-registration":  # registered beforehand: no dynamic registration
        asyncio.run(
            storage.set_client_info(
                OAuthClientInformationFull(
                    client_id=context["client_id"],
                    client_secret=context.get("client_secret"),
                    redirect_uris=[CALLBACK],  # type: ignore[list-item]
                    token_endpoint_auth_method="client_secret_basic",
                )
            )
        )
    browser = HeadlessAuthorization()
    metadata = OAuthClientMetadata(
        client_name="toolrig-conformance-client",
        redirect_uris=[CALLBACK],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
    )
    return OAuthClientProvider(
        url,
        metadata,
        storage,
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
        client_metadata_url=CLIENT_METADATA_URL,
    )


def main(url: str, scenario: str) -> int:
    log = io.StringIO()
    handler = logging.StreamHandler(log)
    logging.basicConfig(level=logging.DEBUG, handlers=[handler, logging.StreamHandler()])
    storage = MemoryTokenStorage()
    auth = oauth(url, scenario, storage) if scenario.startswith("auth/") else None
    arguments = {**ARGUMENTS, **suggested_arguments()}
    with Registry() as registry, ToolExecutor(registry) as executor:
        source = add_mcp_server(
            registry,
            prefix="server",
            url=url,
            auth=auth,
            elicitor=accept_with_defaults,
            sampler=answer_briefly,
            protocol=protocol(),
        )
        for local, remote in source.tools.items():
            result = executor.execute_sync(local, arguments.get(remote, {}))
            print(f"{remote}: {result.to_text()}")
    tokens = asyncio.run(storage.get_tokens())
    if scenario.startswith("auth/") and tokens is None:
        print("the OAuth flow left no token in the storage", file=sys.stderr)
        return 1
    if tokens is not None and tokens.access_token in log.getvalue():
        print("an access token appeared in the log", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    url = sys.argv[-1] if len(sys.argv) > 1 else ""
    if not url.startswith(("http://", "https://")):
        sys.exit("usage: python examples/conformance_client.py URL  (the MCP server's URL)")
    sys.exit(main(url, os.environ.get("MCP_CONFORMANCE_SCENARIO", "")))

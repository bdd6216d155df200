"""``serve(..., auth=ResourceAuth(...))``: an OAuth 2.1 resource server with scopes per tool.

A local issuer (``auth_issuer``) serves its JWKS and metadata on 127.0.0.1 and signs tokens
with PyJWT. Every refused token is tried on a ``tools/call`` whose tool records its runs:
refused means the HTTP answer says why and the tool did not run."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import jwt
import pytest
from auth_issuer import Issuer, new_key, running_issuer
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.shared.exceptions import MCPError
from mcp_support import WAIT, http_server, serve_argv, server_env, serving, session

from toolrig import BaseTool, ToolAnnotations, action, tool
from toolrig.mcp import ResourceAuth, ScopePolicy, ServeOptions, ToolServer, serve_http
from toolrig.mcp._jwks import IssuerUnavailable, KeySet
from toolrig.mcp._scopes import FORBIDDEN, ScopeCheck
from toolrig.providers._names import NameMap
from toolrig.registry import Catalog

runs: list[str] = []
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@tool(annotations=ToolAnnotations(read_only=True))
def read_notes() -> str:
    """Read the notes."""
    runs.append("read_notes")
    return "notes"


@tool(annotations=ToolAnnotations(destructive=False))
def write_note(text: str) -> str:
    """Add a note."""
    runs.append("write_note")
    return text


@tool
def wipe() -> str:
    """Delete every note (no annotations: may destroy)."""
    runs.append("wipe")
    return "wiped"


@tool(scopes=["notes:audit"], annotations=ToolAnnotations(read_only=True))
def audit() -> str:
    """Read the audit trail (a declared scope)."""
    runs.append("audit")
    return "trail"


class Notes(BaseTool):
    """Notes by action."""

    name = "notes"

    @action(annotations=ToolAnnotations(read_only=True))
    def show(self) -> str:
        """Show them."""
        return "shown"

    @action(annotations=ToolAnnotations(destructive=False))
    def purge(self) -> str:
        """Purge them."""
        return "purged"


def tool_server() -> ToolServer:
    return ToolServer(Catalog([read_notes, write_note, wipe, audit]))


@asynccontextmanager
async def protected(
    issuer: Issuer, *, stateless: bool = False, server: ToolServer | None = None, **settings: Any
) -> AsyncIterator[str]:
    """A `ToolServer` (``tool_server()`` unless given) served as a resource server of
    ``issuer``; yields its MCP URL."""
    auth = ResourceAuth(issuer=issuer.url, **settings)
    server = server or tool_server()
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(
        serve_http(server, port=0, on_ready=ready.set_result, auth=auth, stateless=stateless)
    )
    try:
        yield await asyncio.wait_for(ready, WAIT)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, WAIT)
        server.close()


def call(name: str, arguments: dict[str, Any] | None = None, rid: int = 1) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments or {}}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


async def post(url: str, body: Any, token: str | None = None) -> httpx.Response:
    headers = dict(HEADERS)
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    async with httpx.AsyncClient(timeout=WAIT) as client:
        return await client.post(url, content=json.dumps(body), headers=headers)


@pytest.fixture
def issuer() -> Any:
    runs.clear()
    with running_issuer() as running:
        yield running


async def test_no_token_is_401_pointing_at_the_resource_metadata(issuer: Issuer) -> None:
    async with protected(issuer) as url:
        answer = await post(url, call("read_notes"))
        assert answer.status_code == 401
        challenge = answer.headers["www-authenticate"]
        base = url.removesuffix("/mcp")
        metadata_url = f"{base}/.well-known/oauth-protected-resource/mcp"
        assert challenge == f'Bearer resource_metadata="{metadata_url}"'
        async with httpx.AsyncClient() as client:
            metadata = (await client.get(metadata_url)).json()
            root = (await client.get(f"{base}/.well-known/oauth-protected-resource")).json()
            stream = await client.get(url, headers={"accept": "text/event-stream"})
        assert metadata == root
        assert metadata["resource"] == url
        assert metadata["authorization_servers"] == [issuer.url]
        assert metadata["bearer_methods_supported"] == ["header"]
        assert {"tools:read", "tools:write", "tools:destructive", "notes:audit"} <= set(
            metadata["scopes_supported"]
        )
        assert stream.status_code == 401  # the SSE stream too
        async with httpx.AsyncClient() as client:
            preflight = await client.options(
                metadata_url, headers={"origin": "http://localhost:3000"}
            )
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-origin"] == "*"
        assert runs == []


def _hs256_forgery(claims: dict[str, Any], secret: bytes, kid: str) -> str:
    """A token MAC'd with ``secret`` (the public key, in the algorithm-confusion attack),
    built by hand: PyJWT refuses to make one."""

    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    header = part(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
    body = part(json.dumps(claims).encode())
    mac = hmac.new(secret, f"{header}.{body}".encode(), hashlib.sha256).digest()
    return f"{header}.{body}.{part(mac)}"


def _part(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _raw(header: Any, claims: Any) -> str:
    """A token whose parts are given as is (signed by nothing)."""
    return f"{_part(json.dumps(header).encode())}.{_part(json.dumps(claims).encode())}.c2ln"


def _refused_tokens(issuer: Issuer, audience: str) -> dict[str, str]:
    other = new_key()
    public_pem = issuer.jwks()  # an HS256 token "signed" with the public key's numbers
    return {
        "another audience": issuer.token(audience="https://elsewhere.example/mcp"),
        "expired": issuer.token(audience=audience, lifetime=-3600),
        "another issuer": issuer.token(audience=audience, iss="https://evil.example"),
        "bad signature": issuer.token(audience=audience, key=other),
        "key not in the JWKS": issuer.token(audience=audience, key=other, kid="k-unknown"),
        "alg none": jwt.encode(
            {"iss": issuer.url, "aud": audience, "exp": 2**31, "scope": "tools:read"},
            None,
            algorithm="none",
            headers={"kid": issuer.kid},
        ),
        "HS256 with the public key": _hs256_forgery(
            {"iss": issuer.url, "aud": audience, "exp": 2**31, "scope": "tools:read"},
            json.dumps(public_pem).encode(),
            issuer.kid,
        ),
        "no exp": jwt.encode(
            {"iss": issuer.url, "aud": audience, "scope": "tools:read"},
            issuer.key,
            algorithm="RS256",
            headers={"kid": issuer.kid},
        ),
        "not a JWT": "not-a-jwt",
        "a header that is a list": _raw(["RS256"], {"aud": audience}),
        "a numeric key id": _raw({"alg": "RS256", "kid": 7}, {"aud": audience}),
        "a list for alg": _raw({"alg": ["RS256"], "kid": issuer.kid}, {"aud": audience}),
        "a payload that is not JSON": _part(b'{"alg":"RS256","kid":"k1"}')
        + "."
        + _part(b"\xff")
        + ".x",
        "five parts": issuer.token(audience=audience) + ".x.y",
        "a scope claim of numbers": issuer.token(audience=audience, scope=7),  # type: ignore[arg-type]
    }


async def test_each_refused_token_is_401_and_the_tool_does_not_run(issuer: Issuer) -> None:
    async with protected(issuer, stateless=True) as url:
        for why, token in _refused_tokens(issuer, url).items():
            answer = await post(url, call("read_notes"), token)
            assert answer.status_code == 401, why
            challenge = answer.headers["www-authenticate"]
            assert challenge.startswith('Bearer error="invalid_token"'), (why, challenge)
            assert "resource_metadata=" in challenge, why
        assert runs == []
        good = await post(url, call("read_notes"), issuer.token(audience=url))
        assert good.status_code == 200
        assert runs == ["read_notes"]


@pytest.mark.parametrize("stateless", [False, True])
async def test_a_call_beyond_the_tokens_scopes_is_403_and_does_not_run(
    issuer: Issuer, stateless: bool
) -> None:
    async with protected(issuer, stateless=stateless) as url:
        narrow = issuer.token(audience=url, scope="tools:read")
        for name, needed in [
            ("write_note", "tools:write"),
            ("wipe", "tools:destructive"),
            ("audit", "notes:audit"),
        ]:
            answer = await post(
                url, call(name, {"text": "x"} if name == "write_note" else {}), narrow
            )
            assert answer.status_code == 403, name
            challenge = answer.headers["www-authenticate"]
            assert 'error="insufficient_scope"' in challenge
            assert f'scope="{needed}"' in challenge
            assert "resource_metadata=" in challenge
        # a batch hiding a refused call among allowed ones, and a round's retry
        batch = [call("read_notes", rid=1), call("wipe", rid=2)]
        assert (await post(url, batch, narrow)).status_code == 403
        retry = call("wipe")
        retry["params"].update(inputResponses={"q": {"action": "accept"}}, requestState="x")
        assert (await post(url, retry, narrow)).status_code == 403
        assert runs == []


async def test_tools_list_under_a_narrow_scope_lists_only_the_allowed_tools(
    issuer: Issuer,
) -> None:
    async with protected(issuer) as url:
        narrow = issuer.token(audience=url, scope="tools:read notes:audit")
        async with session("http", url, token=narrow) as client:
            listed = await client.list_tools()
            assert sorted(t.name for t in listed.tools) == ["audit", "read_notes"]
            done = await client.call_tool("read_notes", {})
            assert not done.is_error
        wide = issuer.token(audience=url)
        async with session("http", url, token=wide) as client:
            listed = await client.list_tools()
            assert sorted(t.name for t in listed.tools) == ["read_notes", "wipe", "write_note"]
            assert not (await client.call_tool("wipe", {})).is_error
        assert runs == ["read_notes", "wipe"]


async def test_an_audience_list_naming_the_resource_is_accepted(issuer: Issuer) -> None:
    async with protected(issuer, audience="api://notes", stateless=True) as url:
        token = issuer.token(audience=["https://other.example", "api://notes"])
        assert (await post(url, call("read_notes"), token)).status_code == 200
        assert (await post(url, call("read_notes"), issuer.token(audience=url))).status_code == 401


async def test_stateless_direct_calls_check_scopes_too(issuer: Issuer) -> None:
    async with protected(issuer, stateless=True) as url:
        narrow = issuer.token(audience=url, scope="tools:read")
        assert (await post(url, call("wipe"), narrow)).status_code == 403
        good = await post(url, call("read_notes"), narrow)
        assert good.status_code == 200
        assert good.json()["result"]["content"][0]["text"] == "notes"
        listed = await post(url, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, narrow)
        assert [t["name"] for t in listed.json()["result"]["tools"]] == ["read_notes"]
        unknown = (await post(url, call("wip"), narrow)).json()["error"]
        assert "read_notes" in unknown["message"]  # the names it may call, no other
        assert "wipe" not in unknown["message"] and "write_note" not in unknown["message"]
        assert runs == ["read_notes"]


@pytest.mark.parametrize("mode", ["down", "garbage", "empty", "slow"])
async def test_an_unusable_jwks_is_503_then_recovers(issuer: Issuer, mode: str) -> None:
    issuer.mode, issuer.slow_seconds = mode, 3.0
    async with protected(issuer, jwks_timeout=0.5, jwks_min_refresh=0.2, stateless=True) as url:
        token = issuer.token(audience=url)
        answer = await post(url, call("read_notes"), token)
        assert answer.status_code == 503, answer.text
        assert answer.headers["retry-after"]
        assert answer.json()["error"] == "temporarily_unavailable"
        assert runs == []
        issuer.mode = "ok"
        await asyncio.sleep(0.3)  # past the minimum time between fetches
        assert (await post(url, call("read_notes"), token)).status_code == 200
        assert runs == ["read_notes"]


async def test_keys_are_cached_and_unknown_key_ids_refetch_at_a_bounded_rate(
    issuer: Issuer,
) -> None:
    async with protected(issuer, jwks_min_refresh=60, stateless=True) as url:
        for _ in range(5):
            assert (
                await post(url, call("read_notes"), issuer.token(audience=url))
            ).status_code == 200
        assert issuer.jwks_hits == 1
        other = new_key()
        for n in range(20):
            forged = issuer.token(audience=url, key=other, kid=f"made-up-{n}")
            assert (await post(url, call("read_notes"), forged)).status_code == 401
        assert issuer.jwks_hits == 1  # within the minimum refresh time: no refetch at all
        issuer.mode = "down"  # the held keys keep working while the issuer is down
        assert (await post(url, call("read_notes"), issuer.token(audience=url))).status_code == 200


async def test_a_rotated_key_is_fetched_once_the_refresh_time_allows(issuer: Issuer) -> None:
    rotated = new_key()
    keys = KeySet(issuer.url, min_refresh=0, ttl=2.0)
    assert await keys.key("k1") is not None
    issuer.key, issuer.kid = rotated, "k2"
    assert await keys.key("k1") is not None  # held until they expire
    assert await keys.key("k2") is not None  # an unknown key id: fetched again
    assert keys.fetches == 2
    await asyncio.sleep(2.2)
    assert await keys.key("k1") is None  # expired, and gone from the issuer's set
    assert keys.jwks_url == f"{issuer.url}/jwks"  # found through the issuer's metadata
    with pytest.raises(IssuerUnavailable, match="names issuer"):
        await KeySet(issuer.url + "/", min_refresh=0).key("k2")  # not the same issuer


async def test_the_handlers_fail_closed_without_a_grant() -> None:
    """Scopes checked with no verified token in sight: nothing is listed, nothing runs (the
    guard of any path that reaches the handlers without the HTTP check)."""
    runs.clear()
    server = tool_server()
    server.scopes = ScopeCheck(ScopePolicy())
    async with serving(server) as url:
        async with session("http", url) as client:
            assert (await client.list_tools()).tools == []
            with pytest.raises(MCPError) as refused:
                await client.call_tool("read_notes", {})
            assert refused.value.error.code == FORBIDDEN
            assert "insufficient_scope" in refused.value.error.message
        with pytest.raises(MCPError):
            await server.call_without_channel("read_notes", {})
        user = AuthenticatedUser(AccessToken(token="t", client_id="c", scopes=["tools:read"]))
        reset = auth_context_var.set(user)
        try:
            done = await server.call_without_channel("read_notes", {})
            assert not done.get("isError")
            with pytest.raises(MCPError):
                await server.call_without_channel("wipe", {})
        finally:
            auth_context_var.reset(reset)
    assert runs == ["read_notes"]


def test_scopes_are_declared_or_derived_from_annotations() -> None:
    policy = ScopePolicy(read="r", write="w", destructive="d")
    names = NameMap.from_tools([read_notes, write_note, wipe, audit, Notes()])
    needed = {entry.provider_name: policy.required(entry) for entry in names}
    assert needed == {
        "read_notes": {"r"},
        "write_note": {"w"},
        "wipe": {"d"},
        "audit": {"notes:audit"},
        "notes__show": {"r"},
        "notes__purge": {"w"},
    }
    assert ScopeCheck().missing(next(iter(names)), None) == frozenset()  # unchecked: open


def test_settings_refuse_what_would_weaken_them() -> None:
    with pytest.raises(ValueError, match="public-key"):
        ResourceAuth(issuer="https://id.example", algorithms=("HS256",))
    with pytest.raises(ValueError, match="http"):
        ResourceAuth(issuer="id.example")
    with pytest.raises(ValueError, match="replaces a static token"):
        ServeOptions(transport="http", token="t", auth=ResourceAuth(issuer="https://id.example"))
    with pytest.raises(ValueError, match="must be a list"):

        @tool(scopes="tools:read")  # type: ignore[arg-type]
        def one_string() -> None:
            """A scope list given as one string."""


async def test_toolrig_serve_auth_issuer(issuer: Issuer) -> None:
    """The command line: ``--auth-issuer`` (keys found through the issuer's metadata)."""
    with http_server("--demo", "--auth-issuer", issuer.url) as (url, _proc):
        assert (await post(url, {"jsonrpc": "2.0", "id": 1, "method": "ping"})).status_code == 401
        every = issuer.token(audience=url)
        async with session("http", url, token=every) as client:
            all_tools = {t.name: t for t in (await client.list_tools()).tools}
        reading = issuer.token(audience=url, scope="tools:read")
        async with session("http", url, token=reading) as client:
            shown = {t.name for t in (await client.list_tools()).tools}
        read_only = {
            n for n, t in all_tools.items() if t.annotations and t.annotations.read_only_hint
        }
        assert shown == read_only
        assert read_only and shown < set(all_tools)


def test_toolrig_serve_auth_options_are_checked() -> None:
    import subprocess

    for argv, said in [
        (["--auth-issuer", "http://127.0.0.1:9", "--token", "t"], "replaces --token"),
        (["--auth-issuer", "http://127.0.0.1:9"], "--transport http"),
        (["--jwks-url", "http://127.0.0.1:9/jwks", "--transport", "http"], "need --auth-issuer"),
        (["--auth-issuer", "ftp://x", "--transport", "http"], "http(s) URL"),
    ]:
        done = subprocess.run(
            serve_argv("--demo", *argv), capture_output=True, text=True, env=server_env(),
            timeout=WAIT, check=False,
        )  # fmt: skip
        assert done.returncode == 2, (argv, done.stderr)
        assert said in done.stderr, (argv, done.stderr)


async def test_each_request_of_a_session_is_judged_by_its_own_token(issuer: Issuer) -> None:
    """A session opened with a wide token, then used with a narrower one of the same user:
    the list and the calls follow the token of each request, not the session's first."""
    async with protected(issuer) as url:
        wide, narrow = issuer.token(audience=url), issuer.token(audience=url, scope="tools:read")
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        headers = {**HEADERS, "authorization": f"Bearer {wide}"}
        async with httpx.AsyncClient(timeout=WAIT) as client:
            opened = await client.post(url, json=init, headers=headers)
            assert opened.status_code == 200
            headers["mcp-session-id"] = opened.headers["mcp-session-id"]
            headers["mcp-protocol-version"] = "2025-06-18"
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert (await client.post(url, json=done, headers=headers)).status_code == 202
            headers["authorization"] = f"Bearer {narrow}"
            listed = await client.post(
                url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers
            )
            assert listed.status_code == 200
            assert '"read_notes"' in listed.text and '"wipe"' not in listed.text
            refused = await client.post(url, json=call("wipe", rid=3), headers=headers)
            assert refused.status_code == 403
            other = {
                **headers,
                "authorization": f"Bearer {issuer.token(audience=url, sub='mallory')}",
            }
            stolen = await client.post(url, json=call("read_notes", rid=4), headers=other)
            assert stolen.status_code == 404  # another user cannot use the session (the SDK's rule)
        assert runs == []


async def test_toolrig_serve_workers_verify_tokens_in_each_process(issuer: Issuer) -> None:
    args = ("--demo", "--auth-issuer", issuer.url, "--workers", "2")
    with http_server(*args) as (url, _proc):
        narrow, wide = issuer.token(audience=url, scope="tools:read"), issuer.token(audience=url)
        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        for _ in range(4):  # any worker may answer
            assert (await post(url, listing)).status_code == 401
            few = (await post(url, listing, narrow)).json()["result"]["tools"]
            every = (await post(url, listing, wide)).json()["result"]["tools"]
            assert 0 < len(few) < len(every)

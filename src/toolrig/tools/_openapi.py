"""``openapi_tool``: the operations of an OpenAPI 3.x document as the actions of one tool.

Each operation (its ``operationId``, else method and path) is an action: path, query and
header parameters and the JSON request body (under ``body``) make its parameter schema, so a
bad call is refused before any request is sent; the 2xx JSON responses make its output schema,
so an answer that breaks it is an ``invalid_output`` result. Calls go through httpx under the
same address policy as ``web_tool`` (:class:`~toolrig.tools.NetPolicy`, checked after DNS
resolution); a non-2xx answer is a structured error result carrying the status and the body.
Credentials come only from the configuration (a header value, or an environment variable read
at call time), never from the document.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urljoin

import httpx

from toolrig.core.define._action import Action, action_from_schema
from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ErrorCode, RetryableToolError, ToolDefinitionError, ToolError
from toolrig.core.model._names import ActionRef
from toolrig.core.model._spec import build_tool_spec, tool_options
from toolrig.providers._names import provider_safe_name
from toolrig.tools._netguard import NetPolicy, guarded_stream
from toolrig.tools._openapi_doc import Operation, operations, parse_document
from toolrig.tools._openapi_path import fill_path

__all__ = ["HeaderAuth", "openapi_tool"]

_MAX_BODY: Final = 5_000_000
_STATUS_CODES: Final = {
    400: ErrorCode.INVALID_ARGUMENTS,
    401: ErrorCode.PERMISSION_DENIED,
    403: ErrorCode.PERMISSION_DENIED,
    404: ErrorCode.NOT_FOUND,
    409: ErrorCode.EXECUTION_ERROR,
    410: ErrorCode.NOT_FOUND,
    422: ErrorCode.INVALID_ARGUMENTS,
    429: ErrorCode.RATE_LIMITED,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class HeaderAuth:
    """A credential sent as ``header``: the value of environment variable ``env`` (read at
    each call, so a rotated secret is picked up) or a fixed ``value``, after ``scheme``
    (``"Bearer"`` gives ``Authorization: Bearer <token>``). Its value is never shown in a repr
    or an error."""

    header: str = "Authorization"
    env: str | None = None
    value: str | None = None
    scheme: str | None = None

    def __post_init__(self) -> None:
        if (self.env is None) == (self.value is None):
            raise ValueError("HeaderAuth needs exactly one of `env` or `value`")

    def __repr__(self) -> str:
        source = f"env={self.env!r}" if self.env else "value=<hidden>"
        return f"HeaderAuth(header={self.header!r}, {source}, scheme={self.scheme!r})"

    def pair(self) -> tuple[str, str]:
        """The header to send; a permission error when the variable is unset or empty."""
        secret = self.value if self.env is None else os.environ.get(self.env, "")
        if not secret:
            raise ToolError(
                f"The credential for this service is not configured (${self.env} is unset).",
                code=ErrorCode.PERMISSION_DENIED,
                hint="The operator must set the environment variable; retrying will not help.",
            )
        return self.header, f"{self.scheme} {secret}" if self.scheme else secret


AuthConfig = HeaderAuth | Mapping[str, str] | Sequence[HeaderAuth | Mapping[str, str]]


def openapi_tool(
    source: str | Path | Mapping[str, Any],
    *,
    base_url: str | None = None,
    auth: AuthConfig | None = None,
    name: str | None = None,
    network: NetPolicy | None = None,
    timeout: float = 30.0,
) -> BaseTool:
    """The operations of the OpenAPI 3.x document ``source`` (a file path, an http(s) URL or
    the parsed document) as one tool, one action per operation.

    ``base_url``: where to send requests (default: the document's first ``servers`` entry,
    relative to the document's URL). ``auth``: one or more :class:`HeaderAuth` (or dicts of its
    fields, e.g. ``{"header": "Authorization", "env": "TOKEN", "scheme": "Bearer"}``).
    ``name``: the tool's name (default: from the document's title). ``network``: which
    addresses may be reached, the document's URL included (default: public ones only; allow a
    private service explicitly, ``NetPolicy(allow=("10.1.2.3",))``). ``timeout``: seconds for
    one request. Raises :class:`~toolrig.ToolDefinitionError` naming every operation that
    cannot be imported.
    """
    policy = network or NetPolicy()
    doc, where, folder = _load(source, policy, timeout)
    target = _base_url(doc, base_url, where)
    auths = _auths(auth)
    ops = operations(doc, folder=folder, hidden=frozenset(a.header.lower() for a in auths))
    if not ops:
        raise ToolDefinitionError(where, "the document has no operations")
    title = str((doc.get("info") or {}).get("title") or "openapi")
    tool_name = name or provider_safe_name(title.strip().lower().replace(" ", "_"))[:64]
    caller = _Caller(target, auths, policy, timeout)
    actions: dict[str, Action] = {}
    problems: list[str] = []
    for op in ops:
        try:
            actions[op.name] = _action(op, caller, tool_name)
        except ToolDefinitionError as exc:
            problems.extend(f"{op.method} {op.path}: {p}" for p in exc.problems)
    if problems:
        raise ToolDefinitionError(tool_name, problems)
    description = str((doc.get("info") or {}).get("description") or f"The {title} HTTP API.")
    options = tool_options(tool_name, {"tags": ("openapi",), "layer": "tools"})
    spec = build_tool_spec(tool_name, description, {n: a.spec for n, a in actions.items()}, options)
    return BaseTool.from_actions(spec, actions)


def _action(op: Operation, caller: _Caller, tool: str) -> Action:
    async def call(**arguments: Any) -> Any:
        return await caller.call(op, arguments)

    call.__name__ = op.name
    return action_from_schema(
        call,
        name=op.name,
        subject=ActionRef(tool, op.name, True).call_name,
        description=op.description,
        parameters=op.input_schema,
        output_schema=op.output_schema,
        annotations=op.annotations,
    )


class _Caller:
    """Sends one operation's request and reads its answer."""

    def __init__(
        self, base: str, auths: list[HeaderAuth], policy: NetPolicy, timeout: float
    ) -> None:
        self.base = base.rstrip("/")
        self.auths = auths
        self.policy = policy
        self.timeout = timeout

    def request(self, op: Operation, arguments: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
        path_values: dict[str, str] = {}
        query: list[tuple[str, str]] = []
        headers = {"Accept": "application/json"}
        for p in op.parameters:
            if p.name not in arguments:
                continue
            value = arguments[p.name]
            if p.location == "path":
                path_values[p.name] = _text(value)
            elif p.location == "query":
                query.extend(_query_pairs(p.name, value, p.style_explode))
            else:
                text = _text(value)
                if "\r" in text or "\n" in text or "\0" in text:
                    raise ToolError(
                        f"The header parameter `{p.name}` must be one line of text.",
                        code=ErrorCode.INVALID_ARGUMENTS,
                    )
                headers[p.name] = text
        path = fill_path(op.path, path_values)  # refuses a value that would change the route
        for auth in self.auths:
            key, value = auth.pair()
            headers[key] = value
        url = str(httpx.URL(self.base + path, params=query)) if query else self.base + path
        return url, headers

    async def call(self, op: Operation, arguments: Mapping[str, Any]) -> Any:
        url, headers = self.request(op, arguments)
        content = None
        if op.body_key is not None and op.body_key in arguments:
            content = json.dumps(arguments[op.body_key]).encode()
            headers["Content-Type"] = "application/json"
        try:
            async with (
                httpx.AsyncClient(
                    timeout=httpx.Timeout(self.timeout), follow_redirects=False, trust_env=False
                ) as client,
                guarded_stream(
                    client,
                    url,
                    self.policy,
                    max_redirects=0,
                    headers=headers,
                    method=op.method,
                    content=content,
                ) as hop,
            ):
                body = await _read(hop.response)
                status = hop.response.status_code
                kind = hop.response.headers.get("content-type", "")
        except httpx.TimeoutException:
            raise RetryableToolError(
                f"{op.method} {op.path} took longer than {self.timeout:g} s.",
                code=ErrorCode.TIMEOUT,
            ) from None
        except httpx.TransportError as exc:
            raise RetryableToolError(
                f"Could not reach the service for {op.method} {op.path} ({type(exc).__name__}).",
                hint="The service may be down; try again later.",
            ) from None
        data = _decode(body, kind)
        if 200 <= status < 300:
            return data
        raise _status_error(op, status, data)


def _status_error(op: Operation, status: int, data: Any) -> ToolError:
    code = _STATUS_CODES.get(status, ErrorCode.EXECUTION_ERROR)
    hint = (
        "The service refused these arguments; read `details.body` and fix the call."
        if code is ErrorCode.INVALID_ARGUMENTS
        else None
    )
    return ToolError(
        f"{op.method} {op.path} answered HTTP {status}.",
        code=code,
        hint=hint,
        details={"status": status, "body": data},
        retryable=status == 429 or status >= 500,
    )


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value)


def _query_pairs(name: str, value: Any, explode: bool) -> list[tuple[str, str]]:
    """OpenAPI's default query style (``form``): arrays repeat the key (``explode``) or join
    with commas; objects send each property as its own key (``explode``)."""
    if isinstance(value, list):
        if explode:
            return [(name, _text(v)) for v in value]
        return [(name, ",".join(_text(v) for v in value))]
    if isinstance(value, dict):
        if explode:
            return [(k, _text(v)) for k, v in value.items()]
        return [(name, ",".join(f"{k},{_text(v)}" for k, v in value.items()))]
    return [(name, _text(value))]


async def _read(response: httpx.Response) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > _MAX_BODY:
            raise ToolError(f"The answer is larger than {_MAX_BODY} bytes.")
        chunks.append(chunk)
    return b"".join(chunks)


def _decode(body: bytes, content_type: str) -> Any:
    if not body:
        return None
    text = body.decode("utf-8", errors="replace")
    if "json" in content_type.split(";")[0]:
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _auths(auth: AuthConfig | None) -> list[HeaderAuth]:
    if auth is None:
        return []
    items = [auth] if isinstance(auth, HeaderAuth | Mapping) else list(auth)
    out = []
    for item in items:
        try:
            out.append(item if isinstance(item, HeaderAuth) else HeaderAuth(**item))
        except (TypeError, ValueError) as exc:
            raise ToolDefinitionError("openapi auth", str(exc)) from None
    return out


def _refusal(exc: BaseException) -> str:
    """What went wrong fetching the document; for an address the network policy refuses, how
    to allow it (a service on this machine or a private network is refused by default)."""
    if not isinstance(exc, ToolError) or exc.code != ErrorCode.PERMISSION_DENIED:
        return str(exc)
    address = (exc.details or {}).get("address")
    if address is None:
        return str(exc)
    return (
        f"{exc.message} To import from it, allow that address: "
        f"openapi_tool(..., network=NetPolicy(allow=({address!r},))) "
        "(from toolrig.tools import NetPolicy)"
    )


def _base_url(doc: Mapping[str, Any], given: str | None, where: str) -> str:
    """``given``, else the document's first server; a document without ``servers`` is served
    from ``/`` (OpenAPI's default), which a document fetched by URL resolves against it."""
    if given:
        return given
    servers = doc.get("servers") or [{"url": "/"}]
    server = servers[0]
    url = str(server.get("url", ""))
    for var, spec in (server.get("variables") or {}).items():
        url = url.replace(f"{{{var}}}", str(spec.get("default", "")))
    if where.startswith(("http://", "https://")):
        return urljoin(where, url)
    if not url.startswith(("http://", "https://")):
        raise ToolDefinitionError(
            where,
            f"the server URL {url!r} is relative and the document was not read from a URL: "
            "give base_url= (the address the API is served at)",
        )
    return url


def _load(
    source: str | Path | Mapping[str, Any], policy: NetPolicy, timeout: float
) -> tuple[dict[str, Any], str, Path | None]:
    """The checked document, where it came from, and its folder (for references to files)."""
    if isinstance(source, Mapping):
        return parse_document(json.dumps(source), "OpenAPI document"), "OpenAPI document", None
    text = str(source)
    if text.startswith(("http://", "https://")):
        return parse_document(_fetch(text, policy, timeout), text), text, None
    path = Path(source).expanduser()
    try:
        body = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ToolDefinitionError(str(path), f"cannot read the document: {exc}") from None
    return parse_document(body, str(path), path.parent), str(path), path.parent


def _fetch(url: str, policy: NetPolicy, timeout: float) -> str:
    """GET the document under ``policy`` (on a thread of its own, so this works inside a
    running event loop too)."""

    async def get() -> str:
        async with (
            httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False) as c,
            guarded_stream(c, url, policy) as hop,
        ):
            if hop.response.status_code != 200:
                raise ToolDefinitionError(url, f"HTTP {hop.response.status_code}")
            return (await _read(hop.response)).decode("utf-8", errors="replace")

    result: list[str] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(asyncio.run(get()))
        except BaseException as exc:
            failure.append(exc)

    worker = threading.Thread(target=run, name="toolrig-openapi-fetch")
    worker.start()
    worker.join()
    if failure:
        exc = failure[0]
        if isinstance(exc, ToolDefinitionError):
            raise exc
        raise ToolDefinitionError(url, f"cannot fetch the document: {_refusal(exc)}") from None
    return result[0]

"""Remote MCP tools as toolrig tools: names, definitions and results.

Pure conversions, no connection: a remote ``Tool`` definition becomes a toolrig
`Tool` whose function forwards the call, and a ``CallToolResult`` becomes the
tool's output, or a `ToolError` carrying the remote error (its code, hint and
details when the remote is a toolrig server that sent them under ``_meta["toolrig/error"]``).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types

from toolrig.core.context._context import ToolContext
from toolrig.core.define._function_tool import Tool
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._options import ToolIcon
from toolrig.core.model._spec import ToolAnnotations
from toolrig.core.model._unset import UNSET, Unset
from toolrig.core.result._content import (
    Audio,
    EmbeddedResource,
    Image,
    ResourceLink,
    TextContent,
)
from toolrig.providers._mcp_format import ERROR_META_KEY, WRAP_MARKER
from toolrig.providers._names import provider_safe_name

__all__ = [
    "RemoteCall",
    "build_remote_tool",
    "is_wrapped",
    "local_name",
    "output_of",
    "validate_prefix",
]

RemoteCall = Callable[
    [str, dict[str, Any], ToolContext | None], Awaitable[mcp_types.CallToolResult]
]
"""``call(remote_name, arguments, ctx)``: runs a remote tool and returns its result."""

_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,39}$")
SEPARATOR = "__"


def validate_prefix(prefix: str) -> str:
    """``prefix`` if it can start a provider-safe name, else ``ValueError``."""
    if not _PREFIX.match(prefix):
        raise ValueError(
            f"invalid MCP server prefix {prefix!r}: use 1-40 letters, digits, '_' or '-', "
            "starting with a letter or '_'"
        )
    return prefix


def local_name(prefix: str, remote: str) -> str:
    """The toolrig name of remote tool ``remote``: ``prefix__remote``, made provider-safe."""
    return provider_safe_name(f"{prefix}{SEPARATOR}{remote}")


def _annotations(remote: mcp_types.Tool) -> ToolAnnotations | None:
    given = remote.annotations
    if given is None and remote.title is None:
        return None
    return ToolAnnotations(
        title=remote.title or (given.title if given is not None else None),
        read_only=None if given is None else given.read_only_hint,
        destructive=None if given is None else given.destructive_hint,
        idempotent=None if given is None else given.idempotent_hint,
        open_world=None if given is None else given.open_world_hint,
    )


def _icons(remote: mcp_types.Tool) -> tuple[ToolIcon, ...]:
    """The remote tool's icons that toolrig would serve itself (https or data:image/)."""
    kept = []
    for icon in remote.icons or ():
        try:
            kept.append(ToolIcon.model_validate(icon.model_dump(by_alias=True, exclude_none=True)))
        except ValueError:
            continue
    return tuple(kept)


def build_remote_tool(
    remote: mcp_types.Tool,
    *,
    name: str,
    call: RemoteCall,
    source: str,
    timeout: float | Unset | None = UNSET,
    max_retries: int = 0,
) -> Tool:
    """A toolrig tool named ``name`` that runs ``remote`` through ``call``.

    Its parameters and output schema are the remote's, so arguments are validated here before
    anything crosses the wire. Raises `ToolDefinitionError` for a schema
    toolrig cannot compile.
    """
    remote_name = remote.name
    output_schema = dict(remote.output_schema) if remote.output_schema is not None else None
    wrapped = is_wrapped(output_schema)
    if wrapped:  # the tool returns the value under "result": its schema is that property's
        assert output_schema is not None
        output_schema = dict(output_schema["properties"]["result"])

    async def forward(_toolrig_ctx: ToolContext, **arguments: Any) -> Any:
        result = await call(remote_name, arguments, _toolrig_ctx)
        return output_of(result, remote_name, wrapped=wrapped)

    forward.__name__ = name
    return Tool(
        name=name,
        description=remote.description or f"`{remote_name}` from the MCP server {source}.",
        parameters=dict(remote.input_schema),
        output_schema=output_schema,
        func=forward,
        annotations=_annotations(remote),
        icons=_icons(remote),
        timeout=timeout,
        max_retries=max_retries,
        tags=("mcp",),
    )


def is_wrapped(schema: dict[str, Any] | None) -> bool:
    """True for an output schema the server marked as wrapping its value under ``result``."""
    return (
        schema is not None
        and schema.get(WRAP_MARKER) is True
        and isinstance((schema.get("properties") or {}).get("result"), dict)
    )


def output_of(result: mcp_types.CallToolResult, remote_name: str, *, wrapped: bool = False) -> Any:
    """The output of a remote call: its structured content when given (the value under
    ``result`` when the tool's schema is ``wrapped``), else its text (or its blocks as typed
    content: images, audio, resources, when they are not all text); a failure raises
    `ToolError`."""
    if result.is_error:
        raise _error_of(result, remote_name)
    content = result.structured_content
    if content is not None:
        return content["result"] if wrapped and "result" in content else content
    texts = [block.text for block in result.content if isinstance(block, mcp_types.TextContent)]
    if len(texts) == len(result.content):
        return "\n".join(texts)
    return [_content_of(block) for block in result.content]


def _content_of(block: mcp_types.ContentBlock) -> Any:
    """A content block as toolrig's typed content (so an image stays an image), or as data
    for the kinds toolrig has no type for (resource links)."""
    if isinstance(block, mcp_types.TextContent):
        return TextContent(text=block.text)
    if isinstance(block, mcp_types.ImageContent):
        return Image(data=block.data, mime_type=block.mime_type)
    if isinstance(block, mcp_types.AudioContent):
        return Audio(data=block.data, mime_type=block.mime_type)
    if isinstance(block, mcp_types.EmbeddedResource):
        res = block.resource
        mime = res.mime_type or "application/octet-stream"
        if isinstance(res, mcp_types.TextResourceContents):
            return EmbeddedResource(uri=str(res.uri), mime_type=mime, text=res.text)
        return EmbeddedResource(uri=str(res.uri), mime_type=mime, blob=res.blob)
    if isinstance(block, mcp_types.ResourceLink):
        return ResourceLink(
            uri=str(block.uri),
            name=block.name,
            mime_type=block.mime_type,
            description=block.description,
            size=block.size,
        )
    return block.model_dump(by_alias=True, mode="json", exclude_none=True)


def _error_of(result: mcp_types.CallToolResult, remote_name: str) -> ToolError:
    text = "\n".join(
        block.text for block in result.content if isinstance(block, mcp_types.TextContent)
    )
    structured = (result.meta or {}).get(ERROR_META_KEY)
    if isinstance(structured, dict) and isinstance(structured.get("message"), str):
        return ToolError(
            structured["message"],
            code=str(structured.get("code") or ErrorCode.EXECUTION_ERROR),
            hint=structured.get("hint"),
            details=structured.get("details"),
            retryable=bool(structured.get("retryable", False)),
        )
    return ToolError(text or f"the remote tool `{remote_name}` failed without a message")

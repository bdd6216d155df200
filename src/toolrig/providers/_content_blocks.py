"""Rich tool output (`toolrig.core.result._content`) in each provider's own blocks.

Each provider carries what its API accepts and says the rest in words, so the model knows a
result held something it cannot see:

- MCP: every kind (``text``, ``image``, ``audio``, ``resource``, ``resource_link`` blocks).
- Anthropic ``tool_result``: text and images (``image/jpeg``, ``png``, ``gif``, ``webp``, as
  base64 sources); audio, other image types and binary resources become a text notice.
- OpenAI Responses ``function_call_output``: ``input_text`` and ``input_image`` (a data URL)
  items; the rest a notice. Chat Completions tool messages carry text only: a notice there.
"""

from __future__ import annotations

from typing import Any, Final

from toolrig.core.result._content import (
    Audio,
    Content,
    EmbeddedResource,
    Image,
    ResourceLink,
    TextContent,
    content_notice,
)

__all__ = ["anthropic_blocks", "mcp_blocks", "openai_responses_items"]

ANTHROPIC_IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def mcp_blocks(blocks: list[Content]) -> list[dict[str, Any]]:
    """MCP ``content`` blocks (camelCase, base64 data)."""
    out: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContent):
            out.append({"type": "text", "text": block.text})
        elif isinstance(block, Image | Audio):
            out.append({"type": block.type, "data": block.data, "mimeType": block.mime_type})
        elif isinstance(block, ResourceLink):
            link: dict[str, Any] = {"type": "resource_link", "uri": block.uri, "name": block.name}
            for key, value in (
                ("mimeType", block.mime_type),
                ("description", block.description),
                ("size", block.size),
            ):
                if value is not None:
                    link[key] = value
            out.append(link)
        else:
            resource: dict[str, Any] = {"uri": block.uri, "mimeType": block.mime_type}
            if block.text is not None:
                resource["text"] = block.text
            else:
                resource["blob"] = block.blob
            out.append({"type": "resource", "resource": resource})
    return out


def _text_of(block: EmbeddedResource | ResourceLink | Audio | Image, reason: str) -> dict[str, Any]:
    return {"type": "text", "text": content_notice(block, reason=reason)}


def anthropic_blocks(blocks: list[Content]) -> list[dict[str, Any]]:
    """The ``content`` of an Anthropic ``tool_result`` block."""
    out: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContent):
            out.append({"type": "text", "text": block.text})
        elif isinstance(block, Image) and block.mime_type in ANTHROPIC_IMAGE_TYPES:
            source = {"type": "base64", "media_type": block.mime_type, "data": block.data}
            out.append({"type": "image", "source": source})
        else:
            out.append(_text_of(block, "the Anthropic API cannot carry it in a tool result"))
    return out


def openai_responses_items(blocks: list[Content]) -> list[dict[str, Any]]:
    """The ``output`` list of an OpenAI Responses ``function_call_output`` item."""
    out: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContent):
            out.append({"type": "input_text", "text": block.text})
        elif isinstance(block, Image):
            url = f"data:{block.mime_type};base64,{block.data}"
            out.append({"type": "input_image", "image_url": url})
        else:
            notice = content_notice(block, reason="the OpenAI API cannot carry it here")
            out.append({"type": "input_text", "text": notice})
    return out

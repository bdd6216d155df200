"""Rich tool output: text, images, audio and embedded resources, kept typed.

A tool returns one of these (or a list mixing them) and declares it in its return type
(``-> Image``, ``-> list[TextContent | Image]``). The result keeps the objects; each edge
renders them in its own form: MCP content blocks, Anthropic image blocks, OpenAI Responses
``input_image`` items, and a short text notice where a kind cannot be carried. Binary data is
held as base64 text, the form every protocol sends, so the JSON rendering of a result stays
valid and plain.
"""

from __future__ import annotations

import base64
import binascii
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "Audio",
    "Content",
    "EmbeddedResource",
    "Image",
    "ResourceLink",
    "TextContent",
    "content_blocks",
    "content_notice",
    "is_content_annotation",
]


def _checked_base64(data: str, what: str) -> str:
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{what}: `data` must be base64 text ({exc})") from None
    return data


@dataclass(frozen=True, slots=True, kw_only=True)
class TextContent:
    """Text, as one block of a mixed result."""

    text: str
    type: Literal["text"] = field(default="text", init=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Binary:
    data: str
    """The bytes, base64-encoded (build from raw bytes with `from_bytes`)."""
    mime_type: str

    def __post_init__(self) -> None:
        _checked_base64(self.data, type(self).__name__)

    @property
    def raw(self) -> bytes:
        """The decoded bytes."""
        return base64.b64decode(self.data)

    @property
    def size(self) -> int:
        """Bytes once decoded."""
        return len(self.data) * 3 // 4 - self.data[-2:].count("=")


@dataclass(frozen=True, slots=True, kw_only=True)
class Image(_Binary):
    """An image (PNG, JPEG, GIF, WebP, ...)."""

    mime_type: str = "image/png"
    type: Literal["image"] = field(default="image", init=False)

    @classmethod
    def from_bytes(cls, raw: bytes, mime_type: str = "image/png") -> Image:
        """An image from raw bytes."""
        return cls(data=base64.b64encode(raw).decode("ascii"), mime_type=mime_type)

    @classmethod
    def from_file(cls, path: str | Path, mime_type: str | None = None) -> Image:
        """An image read from ``path`` (its type guessed from the name unless given)."""
        import mimetypes  # on first use: its import costs more than the rest of this module
        from pathlib import Path

        kind = mime_type or mimetypes.guess_type(str(path))[0] or "application/octet-stream"
        return cls.from_bytes(Path(path).read_bytes(), kind)


@dataclass(frozen=True, slots=True, kw_only=True)
class Audio(_Binary):
    """A sound clip (WAV, MP3, ...)."""

    mime_type: str = "audio/wav"
    type: Literal["audio"] = field(default="audio", init=False)

    @classmethod
    def from_bytes(cls, raw: bytes, mime_type: str = "audio/wav") -> Audio:
        """A clip from raw bytes."""
        return cls(data=base64.b64encode(raw).decode("ascii"), mime_type=mime_type)


@dataclass(frozen=True, slots=True, kw_only=True)
class EmbeddedResource:
    """A resource carried inside the result: a URI with its text or its (base64) bytes."""

    uri: str
    mime_type: str = "text/plain"
    text: str | None = None
    blob: str | None = None
    """Base64 bytes, for binary resources (exactly one of ``text`` and ``blob``)."""
    type: Literal["resource"] = field(default="resource", init=False)

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError("EmbeddedResource: give exactly one of `text` or `blob`")
        if self.blob is not None:
            _checked_base64(self.blob, "EmbeddedResource")


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceLink:
    """A pointer to a resource the client can read (MCP ``resource_link``), not its content:
    a cut result's whole output (``toolrig://results/<handle>``), a file, a report."""

    uri: str
    name: str
    mime_type: str | None = None
    description: str | None = None
    size: int | None = None
    """The resource's size in bytes, when known."""
    type: Literal["resource_link"] = field(default="resource_link", init=False)

    def __post_init__(self) -> None:
        if not self.uri or not self.name:
            raise ValueError("ResourceLink: `uri` and `name` must not be empty")


Content: TypeAlias = TextContent | Image | Audio | EmbeddedResource | ResourceLink
"""One block of rich output."""

_KINDS = (TextContent, Image, Audio, EmbeddedResource, ResourceLink)


def content_blocks(output: Any) -> list[Content] | None:
    """The blocks of ``output`` when it is rich content (one block, or a non-empty list or
    tuple of blocks only); ``None`` for any other output (plain data)."""
    if isinstance(output, _KINDS):
        return [output]
    if isinstance(output, list | tuple) and output and all(isinstance(b, _KINDS) for b in output):
        return list(output)
    return None


def is_content_annotation(annotation: Any) -> bool:
    """True for a return type made only of content types: ``Image``, ``Image | TextContent``,
    ``list[Content]``, ``Sequence[Image]``, ..."""
    if annotation in _KINDS:
        return True
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return bool(args) and all(is_content_annotation(a) for a in args)
    if origin in (list, tuple, Sequence) and args:
        items = [a for a in args if a is not Ellipsis]
        return all(is_content_annotation(a) for a in items)
    return False


def _size(count: int) -> str:
    return f"{count} bytes" if count < 1024 else f"{count / 1024:.1f} KB"


def content_notice(block: Content, *, reason: str = "not shown here") -> str:
    """A text stand-in for a block an edge cannot carry (so the model knows it exists)."""
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ResourceLink):
        what = ", ".join(x for x in (block.mime_type, block.description) if x)
        return f"[resource link {block.uri} ({block.name}{': ' + what if what else ''})]"
    if isinstance(block, EmbeddedResource):
        if block.text is not None:
            return f"[resource {block.uri} ({block.mime_type})]\n{block.text}"
        size = _size(len(block.blob or "") * 3 // 4)
        return f"[resource {block.uri}: {block.mime_type}, {size}; {reason}]"
    kind = "image" if isinstance(block, Image) else "audio"
    return f"[{kind}: {block.mime_type}, {_size(block.size)}; {reason}]"

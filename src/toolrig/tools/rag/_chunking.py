"""Cutting documents into overlapping chunks that remember where they came from.

A chunk ends at the best break before the size limit: a paragraph break, else the end of a
sentence, else a space, else wherever the limit falls. The next chunk starts ``overlap``
characters earlier (at a word start), so a passage cut in two is still whole in one chunk.
Offsets are character positions in the original text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["Chunk", "chunk_text"]

_PARAGRAPH: Final = re.compile(r"\n[ \t]*\n")
_SENTENCE: Final = re.compile(r"[.!?][\"')\]]*\s")
_SPACE: Final = re.compile(r"\s")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a document: its text and where it sits in the document."""

    position: int
    """0 for the first chunk of the document, then 1, 2, ..."""
    start: int
    """Offset of the first character in the document."""
    end: int
    """Offset just after the last character."""
    text: str


def _last_break(text: str, lo: int, hi: int) -> int | None:
    """The best place to end a chunk within ``text[lo:hi]`` (an offset), if any."""
    for pattern in (_PARAGRAPH, _SENTENCE, _SPACE):
        found = None
        for match in pattern.finditer(text, lo, hi):
            found = match.end() if pattern is not _PARAGRAPH else match.start()
        if found is not None and found > lo:
            return found
    return None


def chunk_text(text: str, *, size: int = 1200, overlap: int = 200) -> list[Chunk]:
    """``text`` cut into chunks of at most ``size`` characters overlapping by about ``overlap``.

    Whitespace at the edges of a chunk is dropped (offsets follow); empty text gives no chunk.
    """
    if size < 50:
        raise ValueError("chunk size must be at least 50 characters")
    overlap = max(0, min(overlap, size // 2))
    chunks: list[Chunk] = []
    start = 0
    length = len(text)
    while start < length:
        hard_end = min(start + size, length)
        end = hard_end
        if hard_end < length:
            end = _last_break(text, start + size // 2, hard_end) or hard_end
        _append(chunks, text, start, end)
        if end >= length:
            break
        nxt = max(end - overlap, start + 1)
        if overlap:
            space = _SPACE.search(text, nxt, end)
            nxt = space.end() if space else nxt
        start = nxt if nxt < end else end
    return chunks


def _append(chunks: list[Chunk], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    piece = piece.strip()
    if piece:
        begin = start + lead
        chunks.append(Chunk(len(chunks), begin, begin + len(piece), piece))

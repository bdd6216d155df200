"""Text helpers shared by the built-in tools: binary detection, encoding detection, cutting."""

from __future__ import annotations

import codecs
from typing import Final

__all__ = ["cut_middle", "decode", "detect_encoding", "looks_binary", "split_lines"]

SNIFF_BYTES: Final = 8192
_WESTERN: Final = frozenset({"cp1252", "latin_1", "iso8859_15"})
_NEAR_TIE: Final = 0.1
_BOMS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _bom_encoding(data: bytes) -> str | None:
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    return None


def looks_binary(head: bytes) -> bool:
    """True when the first bytes of a file contain NUL and no UTF-16/32 byte-order mark."""
    return b"\x00" in head[:SNIFF_BYTES] and _bom_encoding(head) is None


def detect_encoding(data: bytes) -> str | None:
    """The text encoding of ``data``: a BOM wins, then UTF-8, then charset-normalizer's guess.

    ``None`` means the data is binary (or no encoding fits).
    """
    bom = _bom_encoding(data)
    if bom is not None:
        return bom
    if b"\x00" in data[:SNIFF_BYTES]:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return "utf-8"  # a multi-byte character cut by a read limit
    else:
        return "utf-8"
    from charset_normalizer import from_bytes

    results = from_bytes(data)
    best = results.best()
    if best is None:
        return None
    # Short Western texts fit many single-byte code pages about equally well; the most common
    # of them (Windows-1252, a superset of Latin-1) wins such near ties.
    for match in results:
        if match.encoding in _WESTERN and match.chaos <= best.chaos + _NEAR_TIE:
            return str(match.encoding)
    return str(best.encoding)


def decode(data: bytes, encoding: str | None = None) -> tuple[str, str]:
    """``(text, encoding)``; raises ``ValueError`` when the data is binary."""
    enc = encoding or detect_encoding(data)
    if enc is None:
        raise ValueError("binary data")
    return data.decode(enc, errors="replace"), enc


def cut_middle(text: str, limit: int, what: str = "characters") -> tuple[str, bool]:
    """``text`` cut to about ``limit`` characters keeping its head and tail, with a visible
    marker saying how much was cut; the flag says whether anything was."""
    if len(text) <= limit:
        return text, False
    head = limit // 2
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... {cut} {what} cut ...]\n{text[len(text) - tail :]}", True


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` with their endings, split at ``\\n`` only (``\\r\\n`` stays whole;
    form feeds and Unicode separators inside a line are left alone)."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines

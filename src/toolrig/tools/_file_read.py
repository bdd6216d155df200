"""Reading a text file for ``file_tool.read``: whole, a range of lines, or a range of lines of a
file over the read limit, with memory bounded by the limit whatever the file holds (a sparse
file of 400 MB without a newline is read a piece at a time, never built as one line)."""

from __future__ import annotations

import io
import os
from typing import BinaryIO, Final

from typing_extensions import TypedDict

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._text import SNIFF_BYTES, decode, detect_encoding, looks_binary, split_lines

__all__ = ["ReadOutput", "binary_error", "read_text"]

_PIECE: Final = 65536
"""Characters read at a time from a line of a large file."""
_ENDS: Final = ("\n", "\r")


class ReadOutput(TypedDict):
    path: str
    content: str
    encoding: str
    start_line: int
    end_line: int
    """Last line returned (0 when the file is empty)."""
    total_lines: int | None
    """Lines in the file; ``None`` when only part of a large file was read."""
    size: int


def binary_error(shown: str, size: int) -> ToolError:
    return ToolError(
        f"`{shown}` is a binary file ({size:,} bytes), not text.",
        code=ErrorCode.INVALID_ARGUMENTS,
        hint="Use the documents tool for PDF or DOCX files; other binary files cannot be read "
        "as text.",
    )


def read_text(
    handle: BinaryIO, shown: str, start: int | None, end: int | None, limit: int
) -> ReadOutput:
    """Lines ``start``..``end`` (1-based, inclusive; ``None`` for the ends) of the open file,
    at most ``limit`` bytes of them. A file over ``limit`` must be read by range."""
    size = os.fstat(handle.fileno()).st_size
    head = handle.read(SNIFF_BYTES)
    if looks_binary(head):
        raise binary_error(shown, size)
    ranged = start is not None or end is not None
    if size > limit and not ranged:
        raise ToolError(
            f"`{shown}` is {size:,} bytes, over the {limit:,}-byte read limit.",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Read part of it with start_line and end_line (e.g. start_line=1, "
            "end_line=200), or find the lines you need with the search tool first.",
            details={"path": shown, "size": size, "limit": limit},
        )
    if size <= limit:
        text, encoding = decode(head + handle.read(max(limit - len(head), 0)))
        return _slice(shown, text, encoding, size, start, end)
    handle.seek(0)
    return _stream_lines(handle, shown, size, start or 1, end, limit)


def _stream_lines(
    handle: BinaryIO, shown: str, size: int, start: int, end: int | None, limit: int
) -> ReadOutput:
    peek = handle.peek(_PIECE)[:_PIECE] if isinstance(handle, io.BufferedReader) else b""
    encoding = detect_encoding(peek) or "utf-8"
    text = io.TextIOWrapper(handle, encoding=encoding, errors="replace", newline="")
    parts: list[str] = []
    used = 0
    number = 0
    while True:
        piece = text.readline(_PIECE)
        if not piece:
            break
        number += 1
        if number < start:
            _skip_rest(text, piece)
            continue
        if end is not None and number > end:
            break
        line = _take_line(text, piece, limit - used)
        if line is None:
            if not parts:
                raise ToolError(
                    f"line {number} of `{shown}` is longer than the {limit:,}-byte read limit.",
                    code=ErrorCode.INVALID_ARGUMENTS,
                    hint="Find what you need in it with the search tool instead.",
                )
            break
        parts.append(line)
        used += len(line)
    if not parts and number < start:
        raise ToolError(
            f"`{shown}` has only {number} lines; start_line {start} is past the end.",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint=f"Use a start_line between 1 and {number}.",
        )
    text.detach()
    return ReadOutput(
        path=shown,
        content="".join(parts),
        encoding=encoding,
        start_line=start,
        end_line=start + len(parts) - 1,
        total_lines=None,
        size=size,
    )


def _skip_rest(text: io.TextIOWrapper, piece: str) -> None:
    """Read past the end of the line that ``piece`` began, a piece at a time."""
    while not piece.endswith(_ENDS):
        piece = text.readline(_PIECE)
        if not piece:
            return


def _take_line(text: io.TextIOWrapper, piece: str, budget: int) -> str | None:
    """The whole line that ``piece`` began, or ``None`` when it is longer than ``budget``
    (reading at most ``budget`` + one piece)."""
    pieces = [piece]
    length = len(piece)
    while not pieces[-1].endswith(_ENDS) and length <= budget:
        more = text.readline(_PIECE)
        if not more:
            break
        pieces.append(more)
        length += len(more)
    return None if length > budget else "".join(pieces)


def _slice(
    shown: str, text: str, encoding: str, size: int, start: int | None, end: int | None
) -> ReadOutput:
    if start is None and end is None:
        count = len(split_lines(text))
        return ReadOutput(
            path=shown,
            content=text,
            encoding=encoding,
            start_line=1,
            end_line=count,
            total_lines=count,
            size=size,
        )
    lines = split_lines(text)
    first = start or 1
    if first > max(len(lines), 1):
        raise ToolError(
            f"`{shown}` has only {len(lines)} lines; start_line {first} is past the end.",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint=f"Use a start_line between 1 and {max(len(lines), 1)}.",
        )
    last = len(lines) if end is None else min(end, len(lines))
    return ReadOutput(
        path=shown,
        content="".join(lines[first - 1 : last]),
        encoding=encoding,
        start_line=first,
        end_line=last,
        total_lines=len(lines),
        size=size,
    )

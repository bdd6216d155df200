"""Replacing matches in one file for ``search_and_replace``, refusing a result over the write
limit before it is built, and the diff of the changes, cut while it is made.

The size of the result is known before it is built: counted for a plain text (``bytes.count``),
measured match by match in a first pass otherwise (see :meth:`Template.size`), refusing as soon
as it passes the limit. Replacing one character by 100 in a 2 MB file is refused in 10 ms with
no memory spent; it used to build a 200 MB string (and 500 MB of memory) and write it.
"""

from __future__ import annotations

import difflib
from typing import Final

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._budget import Meter
from toolrig.tools._regex import Query, Template

__all__ = ["Diffs", "substitute", "too_large"]

_DIFF_LINES_PER_CHECK: Final = 1024


def too_large(rel: str, size: int, limit: int) -> ToolError:
    return ToolError(
        f"replacing in `{rel}` would make it at least {size:,} bytes, over the {limit:,}-byte "
        "write limit; nothing was changed",
        code=ErrorCode.INVALID_ARGUMENTS,
        hint="Replace fewer matches (count), a shorter replacement, or a narrower pattern.",
        details={"path": rel, "size_at_least": size, "limit": limit},
    )


def substitute(
    query: Query, template: Template, data: bytes, count: int, limit: int, rel: str, meter: Meter
) -> tuple[bytes, int] | None:
    """``data`` with the matches of ``query`` replaced (at most ``count``, 0 for all) and
    their number; ``None`` when nothing matched. A result over ``limit`` bytes is refused
    before anything is built: counted ahead for a plain text, else measured in a first pass."""
    if query.needle is not None and template.fixed is not None:
        n = data.count(query.needle)
        n = min(n, count) if count else n
        size = len(data) + n * (len(template.fixed) - len(query.needle))
        if size > limit:
            raise too_large(rel, size, limit)
    n = _measure(query, template, data, count, limit, rel, meter)
    if n == 0:
        return None
    view = memoryview(data)
    out = bytearray()
    last = 0
    fixed = template.fixed
    for done, match in enumerate(query.regex.finditer(data), start=1):
        start, end = match.span()
        out += view[last:start]
        if fixed is not None:
            out += fixed
        else:
            template.expand_into(out, template.spans(match), view)
        last = end
        meter.tick(rel)
        if done == n:
            break
    out += view[last:]
    return bytes(out), n


def _measure(
    query: Query, template: Template, data: bytes, count: int, limit: int, rel: str, meter: Meter
) -> int:
    """How many matches will be replaced, having checked that the result stays within
    ``limit`` bytes: a first pass that builds nothing, refusing as soon as the result passes
    the limit."""
    size = len(data)
    fixed = template.fixed
    n = 0
    for match in query.regex.finditer(data):
        start, end = match.span()
        piece = len(fixed) if fixed is not None else template.size(template.spans(match))
        size += piece - (end - start)
        if size > limit:
            raise too_large(rel, size, limit)
        n += 1
        meter.tick(rel)
        if n == count:
            break
    return n


class Diffs:
    """The unified diffs of the changed files, made until ``limit`` characters and cut there
    with a marker (the rest is not computed)."""

    def __init__(self, limit: int, meter: Meter) -> None:
        self._limit = limit
        self._meter = meter
        self._parts: list[str] = []
        self._size = 0
        self._cut = False

    def add(self, rel: str, old: str, new: str) -> None:
        if self._cut:
            return
        lines = difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{rel}",
            tofile=f"b/{rel}",
        )
        for index, line in enumerate(lines):
            if index % _DIFF_LINES_PER_CHECK == 0:
                self._meter.check(f"diffing `{rel}`")
            if self._size + len(line) > self._limit:
                self._parts.append(line[: self._limit - self._size])
                self._cut = True
                return
            self._parts.append(line)
            self._size += len(line)

    def text(self) -> str:
        body = "".join(self._parts)
        return body + "\n[... diff cut at its limit ...]\n" if self._cut else body

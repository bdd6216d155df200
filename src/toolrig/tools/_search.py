"""``search``: find text in the files of the sandbox, like ``grep -rn`` with ``.gitignore``.

Fast on large trees: folders are walked with ``os.scandir`` on folder descriptors and ignored
ones pruned before they are entered; each file is opened relative to its folder's descriptor
(never by a path that could have changed, see ``_walk``) and read whole as bytes in one call when
its size allows, binaries (NUL in the first 8 KiB) are skipped, one compiled regex scans the whole
text and line numbers are computed only around matches; a literal query first looks for its
bytes (its lower case in the lower-cased bytes of ASCII text, for ``ignore_case``), so most
files are never decoded. Pipes, devices and (unless the sandbox allows them) files with several
hard links are skipped without being read.
"""

from __future__ import annotations

import os
import stat
from typing import Final, NotRequired

from typing_extensions import TypedDict

from toolrig.core.context._context import ToolContext
from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.tools._budget import Budget, Meter
from toolrig.tools._fd import Unreadable, read_regular
from toolrig.tools._regex import Query, compile_query
from toolrig.tools._sandbox import Sandbox
from toolrig.tools._text import SNIFF_BYTES
from toolrig.tools._walk import PathFilter, walk

__all__ = ["SearchTool", "compile_query"]

_MAX_LINE: Final = 400


class Match(TypedDict):
    path: str
    line: int
    text: str
    before: NotRequired[list[str]]
    after: NotRequired[list[str]]


class SearchOutput(TypedDict):
    matches: list[Match]
    files_searched: int
    truncated: bool
    """True when more matches exist than were returned."""
    stopped: NotRequired[str]
    """Why the search stopped before the end (its time budget), when it did."""


class SearchTool(BaseTool):
    """Search the content of the workspace's text files for a regular expression or text."""

    name = "search"
    tags = ("search", "files", "local")
    layer = "tools"
    annotations = ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=False
    )

    def __init__(
        self,
        root: str | os.PathLike[str] | Sandbox,
        *,
        max_file_bytes: int = 20_000_000,
        max_results_limit: int = 2000,
        budget: Budget | None = None,
    ) -> None:
        """``budget``: time, CPU and memory of one call, checked file by file; when it is
        spent, the matches found so far come back with ``truncated`` and ``stopped``."""
        super().__init__()
        self.sandbox = root if isinstance(root, Sandbox) else Sandbox(root)
        self.max_file_bytes = max_file_bytes
        self.max_results_limit = max_results_limit
        self.budget = budget or Budget()

    @action(
        name="search",
        output_description="Matching lines: path, line number and line text, plus context.",
    )
    def find(
        self,
        pattern: str,
        path: str = ".",
        literal: bool = False,
        ignore_case: bool = False,
        include: list[str] | None = None,
        exclude: list[str] | None = None,
        context_lines: int = 0,
        max_results: int = 100,
        respect_gitignore: bool = True,
        ctx: ToolContext | None = None,
    ) -> SearchOutput:
        """Search file contents and return each matching line with its path and line number.

        Binary files, `.git` and files ignored by `.gitignore` are skipped.

        Args:
            pattern: Regular expression (RE2 syntax, like Python's without backreferences
                or lookaround; `^`/`$` match at line ends), or plain text when `literal` is
                true.
            path: Folder (or single file) to search, relative to the workspace root.
            literal: Treat the pattern as plain text, not a regular expression.
            ignore_case: Match regardless of letter case.
            include: Only files matching one of these globs, e.g. ["*.py", "docs/**"]. A
                glob without `/` matches the file name at any depth.
            exclude: Skip files and folders matching any of these globs, e.g. ["tests/**"].
            context_lines: Lines of context to return before and after each match (0-10).
            max_results: Stop after this many matching lines.
            respect_gitignore: Skip what `.gitignore` files exclude.
        """
        rx = compile_query(pattern, literal=literal, ignore_case=ignore_case)
        if pattern == "":
            raise ToolError(
                "the pattern is empty", code=ErrorCode.INVALID_ARGUMENTS, hint="Give a pattern."
            )
        context_lines = max(0, min(context_lines, 10))
        limit = max(1, min(max_results, self.max_results_limit))
        target = self.sandbox.resolve(path)
        found = self.sandbox.lstat(target)
        if found is None:
            raise ToolError(
                f"`{path}` does not exist.",
                code=ErrorCode.NOT_FOUND,
                hint="Search `.` (the whole workspace) or list folders first.",
            )
        meter = self.budget.start()
        needle = pattern.encode("utf-8") if literal and not ignore_case else None
        # On ASCII text, an ASCII literal matches regardless of case exactly where its lower
        # case occurs in the text's lower case (the Unicode case folds that make `re` differ,
        # such as the Kelvin sign for "k", are not ASCII): a file without it is skipped before
        # it is decoded and scanned.
        folded = pattern.lower().encode() if literal and ignore_case and pattern.isascii() else None
        matches: list[Match] = []
        searched = 0
        if not stat.S_ISDIR(found.st_mode):
            data = self.sandbox.read_bytes(target, self.max_file_bytes + 1)
            if len(data) <= self.max_file_bytes and data.find(b"\x00", 0, SNIFF_BYTES) == -1:
                searched = 1
                rel = self.sandbox.relative(target)
                truncated = _scan(rx, data, rel, context_lines, limit, matches)
                return SearchOutput(matches=matches, files_searched=1, truncated=truncated)
            return SearchOutput(matches=matches, files_searched=0, truncated=False)
        filters = PathFilter(include or (), exclude or ())
        links = self.sandbox.allow_hard_links
        truncated = False
        for entry in walk(self.sandbox, target, gitignore=respect_gitignore, filters=filters):
            if ctx is not None and ctx.cancelled:
                break
            if _spent(meter, entry.rel):  # checked before each file: ~0.1 µs
                return SearchOutput(
                    matches=matches,
                    files_searched=searched,
                    truncated=True,
                    stopped=f"the search budget was spent before `{entry.rel}`; narrow `path` "
                    "or `include` to search the rest",
                )
            try:
                data = read_regular(
                    entry.name, entry.dir_fd, self.max_file_bytes, allow_hard_links=links
                )
            except (OSError, Unreadable):
                continue
            if data.find(b"\x00", 0, SNIFF_BYTES) != -1:
                continue
            searched += 1
            if needle is not None and needle not in data:
                continue
            if folded is not None and data.isascii() and folded not in data.lower():
                continue
            if _scan(rx, data, entry.rel, context_lines, limit, matches):
                truncated = True
                break
        return SearchOutput(matches=matches, files_searched=searched, truncated=truncated)


def _spent(meter: Meter, where: str) -> bool:
    try:
        meter.check(where)
    except ToolError:
        return True
    return False


def _scan(rx: Query, data: bytes, rel: str, context: int, limit: int, out: list[Match]) -> bool:
    """Append the matching lines of the UTF-8 ``data``; True when the limit was hit with more
    left. Only the lines returned are decoded."""
    line = 1
    pos = 0
    last_line = 0
    for m in rx.regex.finditer(data):
        start = m.start()
        line += data.count(b"\n", pos, start)
        pos = start
        if line == last_line:
            continue
        if len(out) >= limit:
            return True
        last_line = line
        begin = data.rfind(b"\n", 0, start) + 1
        end = data.find(b"\n", start)
        end = len(data) if end == -1 else end
        match = Match(path=rel, line=line, text=_clip(data[begin:end]))
        if context:
            match["before"] = _before(data, begin, context)
            match["after"] = _after(data, end, context)
        out.append(match)
    return False


def _clip(raw: bytes) -> str:
    line = raw[: _MAX_LINE * 4 + 4].decode("utf-8", errors="replace").rstrip("\r")
    return line if len(line) <= _MAX_LINE else line[:_MAX_LINE] + " [... line cut ...]"


def _before(data: bytes, begin: int, count: int) -> list[str]:
    lines: list[str] = []
    end = begin - 1
    while count and end >= 0:
        start = data.rfind(b"\n", 0, end) + 1
        lines.append(_clip(data[start:end]))
        end = start - 1
        count -= 1
    return lines[::-1]


def _after(data: bytes, end: int, count: int) -> list[str]:
    lines: list[str] = []
    start = end + 1
    while count and start <= len(data) - 1:
        stop = data.find(b"\n", start)
        stop = len(data) if stop == -1 else stop
        lines.append(_clip(data[start:stop]))
        start = stop + 1
        count -= 1
    return lines

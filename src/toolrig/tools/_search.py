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
import re
import stat
from typing import Final, NotRequired

from typing_extensions import TypedDict

from toolrig.core.context._context import ToolContext
from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.tools._fd import Unreadable, read_regular
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


def compile_query(pattern: str, *, literal: bool, ignore_case: bool) -> re.Pattern[str]:
    """The compiled regex for a query; a bad regex becomes an ``invalid_arguments`` error."""
    flags = re.MULTILINE | (re.IGNORECASE if ignore_case else 0)
    try:
        return re.compile(re.escape(pattern) if literal else pattern, flags)
    except re.error as exc:
        raise ToolError(
            f"invalid regular expression {pattern!r}: {exc}",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Fix the expression (Python `re` syntax) or pass literal=true to search for "
            "the text as it is.",
        ) from None


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
    ) -> None:
        super().__init__()
        self.sandbox = root if isinstance(root, Sandbox) else Sandbox(root)
        self.max_file_bytes = max_file_bytes
        self.max_results_limit = max_results_limit

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
            pattern: Regular expression (Python syntax, `^`/`$` match at line ends), or
                plain text when `literal` is true.
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
                text = data.decode("utf-8", errors="replace")
                truncated = _scan(rx, text, rel, context_lines, limit, matches)
                return SearchOutput(matches=matches, files_searched=1, truncated=truncated)
            return SearchOutput(matches=matches, files_searched=0, truncated=False)
        filters = PathFilter(include or (), exclude or ())
        links = self.sandbox.allow_hard_links
        truncated = False
        for entry in walk(self.sandbox, target, gitignore=respect_gitignore, filters=filters):
            if ctx is not None and ctx.cancelled:
                break
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
            text = data.decode("utf-8", errors="replace")
            if _scan(rx, text, entry.rel, context_lines, limit, matches):
                truncated = True
                break
        return SearchOutput(matches=matches, files_searched=searched, truncated=truncated)


def _scan(
    rx: re.Pattern[str], text: str, rel: str, context: int, limit: int, out: list[Match]
) -> bool:
    """Append the matching lines of ``text``; True when the limit was hit with more left."""
    line = 1
    pos = 0
    last_line = 0
    for m in rx.finditer(text):
        start = m.start()
        line += text.count("\n", pos, start)
        pos = start
        if line == last_line:
            continue
        if len(out) >= limit:
            return True
        last_line = line
        begin = text.rfind("\n", 0, start) + 1
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        match = Match(path=rel, line=line, text=_clip(text[begin:end]))
        if context:
            match["before"] = _before(text, begin, context)
            match["after"] = _after(text, end, context)
        out.append(match)
    return False


def _clip(line: str) -> str:
    line = line.rstrip("\r")
    return line if len(line) <= _MAX_LINE else line[:_MAX_LINE] + " [... line cut ...]"


def _before(text: str, begin: int, count: int) -> list[str]:
    lines: list[str] = []
    end = begin - 1
    while count and end >= 0:
        start = text.rfind("\n", 0, end) + 1
        lines.append(_clip(text[start:end]))
        end = start - 1
        count -= 1
    return lines[::-1]


def _after(text: str, end: int, count: int) -> list[str]:
    lines: list[str] = []
    start = end + 1
    while count and start <= len(text) - 1:
        stop = text.find("\n", start)
        stop = len(text) if stop == -1 else stop
        lines.append(_clip(text[start:stop]))
        start = stop + 1
        count -= 1
    return lines

"""``file_tool``: read, write, update, delete and list files inside a sandbox folder.

Every access goes through the sandbox's folder descriptors (see ``_sandbox`` and ``_walk``);
reading a file's lines is ``_file_read``.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Final, Literal

from typing_extensions import TypedDict

from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.tools._file_read import ReadOutput, binary_error, read_text
from toolrig.tools._sandbox import Sandbox
from toolrig.tools._text import decode, split_lines
from toolrig.tools._walk import glob_regex, tree

__all__ = ["FileTool"]

_READ_ONLY: Final = ToolAnnotations(read_only=True, destructive=False, idempotent=True)


class WriteOutput(TypedDict):
    path: str
    bytes: int
    created: bool


class UpdateOutput(TypedDict):
    path: str
    bytes: int
    total_lines: int
    lines_removed: int
    lines_added: int
    first_changed_line: int


class DeleteOutput(TypedDict):
    path: str
    deleted: Literal["file", "folder", "symlink"]


class Entry(TypedDict):
    path: str
    type: Literal["file", "folder", "symlink", "other"]
    size: int | None


class ListOutput(TypedDict):
    folder: str
    entries: list[Entry]
    truncated: bool


class FileTool(BaseTool):
    """Read, write, edit, delete and list text files inside the workspace folder.

    Paths are relative to the workspace root; paths leaving it are refused.
    """

    name = "file_tool"
    tags = ("files", "local")
    layer = "tools"
    annotations = ToolAnnotations(open_world=False)

    def __init__(
        self,
        root: str | os.PathLike[str] | Sandbox,
        *,
        max_read_bytes: int = 1_000_000,
        max_write_bytes: int = 20_000_000,
        max_list_entries: int = 1000,
    ) -> None:
        super().__init__()
        self.sandbox = root if isinstance(root, Sandbox) else Sandbox(root)
        self.max_read_bytes = max_read_bytes
        self.max_write_bytes = max_write_bytes
        self.max_list_entries = max_list_entries

    # -- read --------------------------------------------------------------------------------
    @action(
        annotations=_READ_ONLY,
        output_description="The text read, its encoding and which lines it covers.",
    )
    def read(
        self, path: str, start_line: int | None = None, end_line: int | None = None
    ) -> ReadOutput:
        """Read a text file, whole or a range of lines. The encoding is detected.

        Binary files are refused. Files larger than the read limit must be read in parts with
        `start_line` / `end_line` (or searched with the search tool).

        Args:
            path: File path relative to the workspace root.
            start_line: First line to return (1-based). Default: the first line.
            end_line: Last line to return (inclusive). Default: the last line.
        """
        target = self.sandbox.resolve(path)
        shown = self.sandbox.relative(target)
        if (start_line is not None and start_line < 1) or (
            end_line is not None and end_line < (start_line or 1)
        ):
            raise ToolError(
                f"invalid line range {start_line}..{end_line}",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="Lines are numbered from 1 and end_line must not be below start_line.",
            )
        fd, _ = self.sandbox.open_regular(target)
        with os.fdopen(fd, "rb") as handle:
            return read_text(handle, shown, start_line, end_line, self.max_read_bytes)

    # -- write -------------------------------------------------------------------------------
    @action(
        annotations=ToolAnnotations(read_only=False, destructive=True, idempotent=True),
        output_description="The path written, the number of bytes and whether it was created.",
    )
    def write(self, path: str, content: str, overwrite: bool = False) -> WriteOutput:
        """Write a text file (UTF-8), creating missing folders. The write is atomic.

        An existing file is an error unless `overwrite` is true.

        Args:
            path: File path relative to the workspace root.
            content: The whole new content of the file.
            overwrite: Replace the file if it already exists.
        """
        target = self.sandbox.resolve(path)
        shown = self.sandbox.relative(target)
        data = content.encode("utf-8")
        if len(data) > self.max_write_bytes:
            raise ToolError(
                f"content is {len(data):,} bytes, over the {self.max_write_bytes:,}-byte limit",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="Write a smaller file, or split the content into several files.",
            )
        found = self.sandbox.lstat(target)
        existed = found is not None
        if found is not None and not stat.S_ISREG(found.st_mode):
            raise ToolError(
                f"`{shown}` exists and is not a file.",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="Choose another path.",
            )
        if existed and not overwrite:
            raise ToolError(
                f"`{shown}` already exists.",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="Pass overwrite=true to replace it, use the update action to change part "
                "of it, or choose another path.",
            )
        written = self.sandbox.atomic_write(target, data, create_dirs=True, exclusive=not overwrite)
        return WriteOutput(path=shown, bytes=written, created=not existed)

    # -- update ------------------------------------------------------------------------------
    @action(
        annotations=ToolAnnotations(read_only=False, destructive=True, idempotent=False),
        output_description="The path written, its new size and which lines changed.",
    )
    def update(
        self,
        path: str,
        mode: Literal["replace", "insert", "append"],
        content: str,
        start_line: int | None = None,
        end_line: int | None = None,
    ) -> UpdateOutput:
        """Change part of an existing text file by line numbers; the write is atomic.

        `replace` swaps lines start_line..end_line (inclusive) for `content` (empty content
        deletes them); `insert` puts `content` before start_line (use the line count + 1 to
        add at the end); `append` adds `content` as new lines at the end. The file keeps its
        encoding and line endings. Read the file first to know the line numbers.

        Args:
            path: File path relative to the workspace root.
            mode: replace, insert or append.
            content: The new lines.
            start_line: First line concerned (1-based); needed by replace and insert.
            end_line: Last line replaced (inclusive); replace only, default start_line.
        """
        target = self.sandbox.resolve(path)
        shown = self.sandbox.relative(target)
        data = self.sandbox.read_bytes(target, self.max_write_bytes + 1)
        if len(data) > self.max_write_bytes:
            raise ToolError(
                f"`{shown}` is over the {self.max_write_bytes:,}-byte edit limit.",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="Use the search_and_replace tool for large files.",
            )
        try:
            text, encoding = decode(data)
        except ValueError:
            raise binary_error(shown, len(data)) from None
        lines = split_lines(text)
        newline = "\r\n" if "\r\n" in text[:65536] else "\n"
        new = split_lines(content)
        if new and not new[-1].endswith("\n"):
            new[-1] += newline
        total = len(lines)
        if mode == "append":
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += newline
            first, removed = total + 1, 0
        else:
            first = _require_line(start_line, total + (1 if mode == "insert" else 0), shown)
            if mode == "insert":
                removed = 0
            else:
                last = first if end_line is None else end_line
                if last < first or last > total:
                    raise ToolError(
                        f"end_line {last} is out of range for `{shown}` ({total} lines, "
                        f"start_line {first}).",
                        code=ErrorCode.INVALID_ARGUMENTS,
                        hint=f"Use an end_line between {first} and {total}.",
                    )
                removed = last - first + 1
        lines[first - 1 : first - 1 + removed] = new
        out = "".join(lines).encode(encoding)
        written = self.sandbox.atomic_write(target, out)
        return UpdateOutput(
            path=shown,
            bytes=written,
            total_lines=len(lines),
            lines_removed=removed,
            lines_added=len(new),
            first_changed_line=first,
        )

    # -- delete ------------------------------------------------------------------------------
    @action(
        annotations=ToolAnnotations(read_only=False, destructive=True, idempotent=True),
        output_description="The path deleted and what it was.",
    )
    def delete(self, path: str) -> DeleteOutput:
        """Delete a file, a symlink (not what it points to) or an empty folder.

        Args:
            path: Path relative to the workspace root.
        """
        target = self.sandbox.resolve(path, follow_final=False)
        if target == self.sandbox.root:
            raise self.sandbox.denied(path, "the workspace root itself cannot be deleted")
        shown = self.sandbox.relative(target)
        found = self.sandbox.lstat(target)
        if found is None:
            raise ToolError(
                f"`{shown}` does not exist.",
                code=ErrorCode.NOT_FOUND,
                hint="List the folder to see what is there.",
            )
        mode = found.st_mode
        if stat.S_ISDIR(mode):
            try:
                self.sandbox.rmdir(target)
            except OSError as exc:
                if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                    raise ToolError(
                        f"`{shown}` is a folder that is not empty.",
                        code=ErrorCode.INVALID_ARGUMENTS,
                        hint="Delete the files in it first.",
                    ) from None
                raise
            return DeleteOutput(path=shown, deleted="folder")
        self.sandbox.unlink(target)
        return DeleteOutput(path=shown, deleted="symlink" if stat.S_ISLNK(mode) else "file")

    # -- list --------------------------------------------------------------------------------
    @action(
        name="list",
        annotations=_READ_ONLY,
        output_description="Matching entries with their type and size in bytes.",
    )
    def list_entries(self, path: str = ".", pattern: str = "*") -> ListOutput:
        """List a folder: names matching a glob, with types (file, folder, symlink) and sizes.

        `*` matches within one folder, `**` across folders: `*` lists the folder itself,
        `**/*.py` every Python file below it, `src/*` the folder `src`. Symlinks are shown,
        not followed; `.git` folders are not entered.

        Args:
            path: Folder relative to the workspace root.
            pattern: Glob relative to that folder.
        """
        folder = self.sandbox.resolve(path)
        shown = self.sandbox.relative(folder)
        found = self.sandbox.lstat(folder)
        if found is None or not stat.S_ISDIR(found.st_mode):
            raise ToolError(
                f"`{shown}` is not a folder.",
                code=ErrorCode.NOT_FOUND if found is None else ErrorCode.INVALID_ARGUMENTS,
                hint="Give a folder path; use read for files.",
            )
        rx = glob_regex(pattern.strip("/") or "*")
        depth = None if "**" in pattern else pattern.strip("/").count("/") + 1
        prefix = "" if shown == "." else shown + "/"
        entries: list[Entry] = []
        truncated = False
        for entry in tree(self.sandbox, folder, max_depth=depth):
            if not rx.match(entry.rel):
                continue
            if len(entries) >= self.max_list_entries:
                truncated = True
                break
            entries.append(Entry(path=prefix + entry.rel, type=entry.kind, size=entry.size))
        return ListOutput(folder=shown, entries=entries, truncated=truncated)


def _require_line(value: int | None, maximum: int, shown: str) -> int:
    if value is None or not 1 <= value <= max(maximum, 1):
        raise ToolError(
            f"start_line {value} is out of range for `{shown}` (valid: 1..{max(maximum, 1)}).",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Read the file to see its line numbers; start_line is 1-based.",
        )
    return value

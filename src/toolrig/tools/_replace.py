"""``search_and_replace``: replace text in one file or in every file matching a glob.

A dry run answers with the unified diff and changes nothing. Each file is written atomically
(temporary file + rename) in its own encoding; a call touching many files changes each file
whole, one after the other. A glob is expanded by walking folder descriptors (see ``_walk``) and
each file is read and written through the sandbox, so a folder swapped for a symlink meanwhile
is refused, not followed; files a glob meets that are not read (pipes, devices, files with
several hard links) are skipped.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from typing_extensions import TypedDict

from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.tools._budget import Budget
from toolrig.tools._regex import Template, compile_query
from toolrig.tools._sandbox import Sandbox
from toolrig.tools._substitute import Diffs as _Diffs
from toolrig.tools._substitute import substitute, too_large
from toolrig.tools._text import decode, looks_binary
from toolrig.tools._walk import glob_regex, walk

__all__ = ["SearchReplaceTool"]

_GLOB_CHARS: Final = frozenset("*?[")
_UTF8: Final = frozenset({"utf-8", "ascii"})


class FileChange(TypedDict):
    path: str
    replacements: int


class ReplaceOutput(TypedDict):
    files: list[FileChange]
    """Files with at least one replacement."""
    total_replacements: int
    dry_run: bool
    diff: str
    """Unified diff of the changes (cut with a marker when long)."""


class SearchReplaceTool(BaseTool):
    """Replace text (literal or regular expression) in a file or in all files matching a glob,
    with a dry run that shows the diff first."""

    name = "search_and_replace"
    tags = ("files", "edit", "local")
    layer = "tools"
    annotations = ToolAnnotations(
        read_only=False, destructive=True, idempotent=False, open_world=False
    )

    def __init__(
        self,
        root: str | os.PathLike[str] | Sandbox,
        *,
        max_file_bytes: int = 10_000_000,
        max_files: int = 500,
        max_diff_chars: int = 40_000,
        budget: Budget | None = None,
    ) -> None:
        """``max_file_bytes``: the largest file read, and the largest file written: a
        replacement whose result would be larger is refused before it is built. ``budget``:
        time, CPU and memory of one call, checked file by file."""
        super().__init__()
        self.sandbox = root if isinstance(root, Sandbox) else Sandbox(root)
        self.max_file_bytes = max_file_bytes
        self.max_files = max_files
        self.max_diff_chars = max_diff_chars
        self.budget = budget or Budget()

    @action(
        name="search_and_replace",
        output_description="Replacements per file, the total, and the unified diff.",
    )
    def replace(
        self,
        path: str,
        search: str,
        replace: str,
        regex: bool = False,
        ignore_case: bool = False,
        count: int = 0,
        dry_run: bool = False,
    ) -> ReplaceOutput:
        """Replace `search` with `replace` in a file or in each file matching a glob.

        Run with dry_run=true first to check the diff; each file is written atomically.

        Args:
            path: A file path, or a glob relative to the workspace root: `*` stays in one
                folder, `**` crosses folders (e.g. `src/**/*.py`). Globs skip binary files,
                `.git` and what `.gitignore` excludes.
            search: Text to find (a regular expression when `regex` is true).
            replace: Replacement text; with `regex`, `\\1` or `\\g<name>` insert groups.
            regex: Treat `search` as a regular expression (RE2 syntax, like Python's without
                backreferences or lookaround; `^`/`$` match at line ends).
            ignore_case: Match regardless of letter case.
            count: Most replacements per file; 0 replaces all.
            dry_run: Only report the diff; change no file.
        """
        if not search:
            raise ToolError(
                "`search` is empty", code=ErrorCode.INVALID_ARGUMENTS, hint="Give the text."
            )
        query = compile_query(search, literal=not regex, ignore_case=ignore_case)
        template = Template.parse(replace, query) if regex else Template.literal(replace)
        meter = self.budget.start()
        changes: list[FileChange] = []
        diffs = _Diffs(self.max_diff_chars, meter)
        total = 0
        for rel, target in self._targets(path):
            meter.check(f"before `{rel}`")
            try:
                data = self.sandbox.read_bytes(target, self.max_file_bytes + 1)
            except ToolError:
                if _is_glob(path):
                    continue  # a file a glob met that is not read (a pipe, a hard link, gone)
                raise
            if len(data) > self.max_file_bytes or looks_binary(data):
                if _is_glob(path):
                    continue
                raise ToolError(
                    f"`{rel}` is binary or over the {self.max_file_bytes:,}-byte limit.",
                    code=ErrorCode.INVALID_ARGUMENTS,
                    hint="Only text files can be edited.",
                )
            text, encoding = decode(data)
            utf8 = data if encoding in _UTF8 else text.encode("utf-8", "surrogatepass")
            done = substitute(query, template, utf8, max(count, 0), self.max_file_bytes, rel, meter)
            if done is None:
                continue
            new_utf8, n = done
            if encoding in _UTF8:
                encoded, new = new_utf8, new_utf8.decode("utf-8", "replace")
            else:
                new = new_utf8.decode("utf-8", "surrogatepass")
                encoded = new.encode(encoding)
            if len(encoded) > self.max_file_bytes:
                raise too_large(rel, len(encoded), self.max_file_bytes)
            total += n
            changes.append(FileChange(path=rel, replacements=n))
            diffs.add(rel, text, new)
            if not dry_run:
                self.sandbox.atomic_write(target, encoded)
        return ReplaceOutput(
            files=changes, total_replacements=total, dry_run=dry_run, diff=diffs.text()
        )

    def _targets(self, path: str) -> list[tuple[str, Path]]:
        if not _is_glob(path):
            target = self.sandbox.resolve(path)
            rel = self.sandbox.relative(target)
            status = self.sandbox.lstat(target)
            if status is None or stat.S_ISDIR(status.st_mode):
                raise ToolError(
                    f"`{rel}` is not a file.",
                    code=ErrorCode.NOT_FOUND,
                    hint="Give a file path or a glob such as `src/**/*.py`.",
                )
            return [(rel, target)]
        if os.path.isabs(path):
            raise self.sandbox.denied(path, "absolute paths are not allowed")
        pattern = path.strip("/")
        # Walk only below the part of the glob that has no wildcard.
        fixed: list[str] = []
        for part in pattern.split("/")[:-1]:
            if _is_glob(part):
                break
            fixed.append(part)
        start = self.sandbox.resolve("/".join(fixed) or ".")
        top = self.sandbox.lstat(start)
        if top is None or not stat.S_ISDIR(top.st_mode):
            return []
        rx = glob_regex(pattern)
        found: list[tuple[str, Path]] = []
        for entry in walk(self.sandbox, start):
            if rx.match(entry.rel):
                found.append((entry.rel, self.sandbox.resolve(entry.rel)))
                if len(found) > self.max_files:
                    raise ToolError(
                        f"`{path}` matches more than {self.max_files} files.",
                        code=ErrorCode.INVALID_ARGUMENTS,
                        hint="Use a narrower glob (a folder or a file extension).",
                    )
        return found


def _is_glob(path: str) -> bool:
    return any(ch in _GLOB_CHARS for ch in path)

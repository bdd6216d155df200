"""Walking a sandbox tree fast and without leaving it: ``os.scandir`` on folder descriptors,
each sub-folder opened from its parent's descriptor with ``O_NOFOLLOW`` (see ``_fd``), so a
folder swapped for a symlink while the walk runs is never entered; ``.git`` and gitignored
folders pruned before they are entered; glob filters compiled once.

`walk` yields the regular files; `tree` yields every entry (for listings). Both hold
one descriptor per level they are in, and go at most `MAX_DEPTH` levels down.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from toolrig.tools._fd import Unreadable, open_subdir, read_regular

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

    from toolrig.tools._sandbox import Sandbox

__all__ = ["MAX_DEPTH", "PathFilter", "TreeEntry", "WalkEntry", "glob_regex", "tree", "walk"]

ALWAYS_SKIPPED: Final = frozenset({".git", ".hg", ".svn"})
MAX_DEPTH: Final = 128
"""Folder levels below the start that a walk enters (each holds a descriptor open)."""
_MAX_GITIGNORE: Final = 1_000_000


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A compiled regex for a shell glob over ``/``-separated paths.

    ``*`` and ``?`` stay within one folder, ``**`` crosses folders (``**/`` also matches no
    folder at all), ``[abc]`` / ``[!abc]`` are classes, everything else is literal.
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            if pattern.startswith("**", i):
                i += 2
                if i < n and pattern[i] == "/":
                    out.append("(?:.*/)?")
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 2 if pattern.startswith("[!", i) else i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


class PathFilter:
    """Include / exclude globs. A glob without ``/`` matches the file name at any depth (like
    ``grep --include``); one with ``/`` matches the whole path relative to the search root."""

    __slots__ = ("_exclude", "_include")

    def __init__(self, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> None:
        self._include = [(("/" in p), glob_regex(p.strip("/"))) for p in include if p]
        self._exclude = [(("/" in p), glob_regex(p.strip("/"))) for p in exclude if p]

    @staticmethod
    def _hit(rules: list[tuple[bool, re.Pattern[str]]], rel: str, name: str) -> bool:
        return any(rx.match(rel if whole else name) for whole, rx in rules)

    def wants_file(self, rel: str, name: str) -> bool:
        """Whether a file passes the filters."""
        if self._exclude and self._hit(self._exclude, rel, name):
            return False
        return not self._include or self._hit(self._include, rel, name)

    def prunes_dir(self, rel: str, name: str) -> bool:
        """Whether a folder is excluded as a whole (its files are never looked at)."""
        return bool(self._exclude) and self._hit(self._exclude, rel, name)


@dataclass(frozen=True, slots=True)
class WalkEntry:
    """A regular file met by `walk` (by its folder entry's type; the reader checks the
    opened file again)."""

    rel: str
    """Path relative to the sandbox root, ``/``-separated."""
    name: str
    """The file's name in its folder."""
    dir_fd: int
    """A descriptor of its folder: open the file with ``dir_fd`` and ``name``. Valid only until
    the walk is asked for the next entry."""


Kind = Literal["file", "folder", "symlink", "other"]


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """An entry met by `tree`."""

    rel: str
    """Path relative to the folder listed, ``/``-separated."""
    kind: Kind
    size: int | None
    """Bytes, for files."""


def _open_start(sandbox: Sandbox, start: Path) -> tuple[int, list[tuple[str, int]]]:
    """A descriptor of ``start`` reached from the root without following symlinks, and the
    descriptors of the folders above it (root first, with their relative paths): their
    ``.gitignore`` files apply too. The caller closes them all."""
    parts = start.relative_to(sandbox.root).parts
    fd = os.open(sandbox.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    above: list[tuple[str, int]] = []
    try:
        for depth, part in enumerate(parts):
            above.append(("/".join(parts[:depth]), fd))
            fd = open_subdir(part, fd)
    except BaseException:
        for _, held in above:
            os.close(held)
        raise
    return fd, above


def _load_gitignore(dir_fd: int, allow_hard_links: bool) -> GitIgnoreSpec | None:
    try:
        data = read_regular(".gitignore", dir_fd, _MAX_GITIGNORE, allow_hard_links=allow_hard_links)
    except (OSError, Unreadable):
        return None
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(data.decode("utf-8", errors="replace").splitlines())


def _ignored(specs: list[tuple[str, GitIgnoreSpec]], rel: str, is_dir: bool) -> bool:
    probe_suffix = "/" if is_dir else ""
    for base, spec in specs:
        sub = rel[len(base) + 1 :] if base else rel
        if spec.match_file(sub + probe_suffix):
            return True
    return False


def walk(
    sandbox: Sandbox,
    start: Path,
    *,
    gitignore: bool = True,
    filters: PathFilter | None = None,
) -> Iterator[WalkEntry]:
    """Regular files under ``start`` (a resolved folder inside the sandbox), depth first in
    name order. Symlinks are never followed; VCS folders are skipped; with ``gitignore`` the
    ``.gitignore`` files of the root down to each folder apply. A folder that cannot be opened
    (gone, or swapped for a symlink) is skipped.
    """
    rel_start = sandbox.relative(start)
    rel_start = "" if rel_start == "." else rel_start
    try:
        fd, above = _open_start(sandbox, start)
    except OSError:
        return
    links = sandbox.allow_hard_links
    try:
        specs: list[tuple[str, GitIgnoreSpec]] = []
        if gitignore:
            for base, held in above:
                spec = _load_gitignore(held, links)
                if spec is not None:
                    specs.append((base, spec))
        for _, held in above:
            os.close(held)
        above = []
        yield from _walk_dir(fd, rel_start, specs, gitignore, filters, links, 0)
    finally:
        for _, held in above:
            os.close(held)
        os.close(fd)


def _walk_dir(
    fd: int,
    rel: str,
    specs: list[tuple[str, GitIgnoreSpec]],
    gitignore: bool,
    filters: PathFilter | None,
    links: bool,
    depth: int,
) -> Iterator[WalkEntry]:
    if gitignore:
        spec = _load_gitignore(fd, links)
        if spec is not None:
            specs = [*specs, (rel, spec)]
    try:
        with os.scandir(fd) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    subdirs: list[tuple[str, str]] = []
    for entry in entries:
        name = entry.name
        child = f"{rel}/{name}" if rel else name
        try:
            if entry.is_dir(follow_symlinks=False):
                if name in ALWAYS_SKIPPED or depth >= MAX_DEPTH:
                    continue
                if specs and _ignored(specs, child, True):
                    continue
                if filters is not None and filters.prunes_dir(child, name):
                    continue
                subdirs.append((name, child))
            elif entry.is_file(follow_symlinks=False):
                if specs and _ignored(specs, child, False):
                    continue
                if filters is not None and not filters.wants_file(child, name):
                    continue
                yield WalkEntry(child, name, fd)
        except OSError:
            continue
    for name, child in subdirs:
        try:
            sub = open_subdir(name, fd)
        except OSError:
            continue  # gone, or no longer a folder (a symlink put in its place is refused)
        try:
            yield from _walk_dir(sub, child, specs, gitignore, filters, links, depth + 1)
        finally:
            os.close(sub)


def tree(sandbox: Sandbox, folder: Path, *, max_depth: int | None = None) -> Iterator[TreeEntry]:
    """Every entry under ``folder`` (a resolved folder inside the sandbox), each folder's
    entries in name order before its sub-folders' (pre-order), ``max_depth`` levels deep at
    most (1 is the folder's own entries). Symlinks are shown, never followed; VCS folders are
    not entered.
    """
    fd = sandbox.open_dir(folder)
    limit = MAX_DEPTH if max_depth is None else min(max_depth, MAX_DEPTH)
    try:
        yield from _tree_dir(fd, "", 1, limit)
    finally:
        os.close(fd)


def _kind(entry: os.DirEntry[str]) -> Kind:
    if entry.is_symlink():
        return "symlink"
    if entry.is_dir(follow_symlinks=False):
        return "folder"
    if entry.is_file(follow_symlinks=False):
        return "file"
    return "other"


def _tree_dir(fd: int, rel: str, level: int, limit: int) -> Iterator[TreeEntry]:
    try:
        with os.scandir(fd) as it:
            found = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    deeper: list[tuple[str, str]] = []
    for entry in found:
        child = f"{rel}/{entry.name}" if rel else entry.name
        kind = _kind(entry)
        size = None
        if kind == "file":
            with suppress(OSError):
                size = entry.stat(follow_symlinks=False).st_size
        yield TreeEntry(child, kind, size)
        if kind == "folder" and level < limit and entry.name not in ALWAYS_SKIPPED:
            deeper.append((entry.name, child))
    for name, child in deeper:
        try:
            sub = open_subdir(name, fd)
        except OSError:
            continue
        try:
            yield from _tree_dir(sub, child, level + 1, limit)
        finally:
            os.close(sub)

"""Walking a sandbox tree fast: ``os.scandir``, no symlinks followed, ``.git`` and gitignored
folders pruned before they are entered, glob filters compiled once."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

__all__ = ["PathFilter", "WalkEntry", "glob_regex", "walk"]

ALWAYS_SKIPPED: Final = frozenset({".git", ".hg", ".svn"})


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
    """A regular file met by :func:`walk`."""

    rel: str
    """Path relative to the sandbox root, ``/``-separated."""
    path: str
    """Absolute path."""
    size: int


def _load_gitignore(folder: str) -> GitIgnoreSpec | None:
    try:
        with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(lines)


def _ignored(specs: list[tuple[str, GitIgnoreSpec]], rel: str, is_dir: bool) -> bool:
    probe_suffix = "/" if is_dir else ""
    for base, spec in specs:
        sub = rel[len(base) + 1 :] if base else rel
        if spec.match_file(sub + probe_suffix):
            return True
    return False


def walk(
    root: str,
    start: str,
    *,
    gitignore: bool = True,
    filters: PathFilter | None = None,
) -> Iterator[WalkEntry]:
    """Regular files under ``start`` (an absolute folder inside ``root``), depth first in name
    order. Symlinks are never followed (so the walk cannot leave the sandbox); VCS folders are
    skipped; with ``gitignore`` the ``.gitignore`` files of ``root`` down to each folder apply.
    """
    rel_start = os.path.relpath(start, root)
    rel_start = "" if rel_start == "." else rel_start.replace(os.sep, "/")
    specs: list[tuple[str, GitIgnoreSpec]] = []
    if gitignore and rel_start:
        # The .gitignore files of the folders above the start folder apply too.
        parts = rel_start.split("/")
        for depth in range(len(parts)):
            base = "/".join(parts[:depth])
            spec = _load_gitignore(os.path.join(root, base))
            if spec is not None:
                specs.append((base, spec))
    yield from _walk_dir(start, rel_start, specs, gitignore, filters)


def _walk_dir(
    folder: str,
    rel: str,
    specs: list[tuple[str, GitIgnoreSpec]],
    gitignore: bool,
    filters: PathFilter | None,
) -> Iterator[WalkEntry]:
    if gitignore:
        spec = _load_gitignore(folder)
        if spec is not None:
            specs = [*specs, (rel, spec)]
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    subdirs: list[tuple[str, str]] = []
    for entry in entries:
        name = entry.name
        child = f"{rel}/{name}" if rel else name
        try:
            if entry.is_dir(follow_symlinks=False):
                if name in ALWAYS_SKIPPED:
                    continue
                if specs and _ignored(specs, child, True):
                    continue
                if filters is not None and filters.prunes_dir(child, name):
                    continue
                subdirs.append((entry.path, child))
            elif entry.is_file(follow_symlinks=False):
                if specs and _ignored(specs, child, False):
                    continue
                if filters is not None and not filters.wants_file(child, name):
                    continue
                yield WalkEntry(child, entry.path, entry.stat(follow_symlinks=False).st_size)
        except OSError:
            continue
    for path, child in subdirs:
        yield from _walk_dir(path, child, specs, gitignore, filters)

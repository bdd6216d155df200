"""Opening and reading relative to a folder's file descriptor, the way ``shutil.rmtree`` walks.

Every name is opened with ``openat`` (``dir_fd``) and ``O_NOFOLLOW``, from a folder that is
itself open, so nothing is looked up by an absolute path that could have changed since it was
checked: a folder renamed and replaced by a symlink after the check is either the folder already
open (still inside the sandbox) or a symlink that the next ``openat`` refuses. Files are opened
with ``O_NONBLOCK`` and checked with ``fstat`` on the open descriptor, so a named pipe, a device or
a socket is refused at once instead of hanging the reader, and a file with more than one hard
link (which may be a link to a file outside the sandbox) is refused unless allowed. Reads stop at
a limit, so memory stays bounded whatever the file says its size is.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Final

__all__ = [
    "DIR_FLAGS",
    "FILE_FLAGS",
    "Unreadable",
    "check_regular",
    "kind_of",
    "open_regular",
    "open_subdir",
    "read_fd",
    "read_regular",
]

DIR_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
FILE_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CHUNK: Final = 1 << 20


class Unreadable(Exception):
    """A file that is not read, and why (in words a model can act on)."""

    def __init__(self, reason: str, *, linked: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.linked = linked
        """True when the only problem is a second hard link."""


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words."""
    for test, words in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symlink"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return words
    return "a special file"


def check_regular(st: os.stat_result, *, allow_hard_links: bool) -> None:
    """Raise `Unreadable` unless ``st`` is a regular file with one link (or links are
    allowed)."""
    if not stat.S_ISREG(st.st_mode):
        raise Unreadable(f"it is {kind_of(st.st_mode)}, not a regular file")
    if st.st_nlink > 1 and not allow_hard_links:
        raise Unreadable(
            f"it has {st.st_nlink} hard links, so it may be the same file as one outside the "
            "workspace",
            linked=True,
        )


def open_subdir(name: str, dir_fd: int) -> int:
    """A descriptor of the folder ``name`` in ``dir_fd``; ``OSError`` if it is not a folder
    (a symlink gives ``ELOOP``, anything else ``ENOTDIR``)."""
    return os.open(name, DIR_FLAGS, dir_fd=dir_fd)


def open_regular(
    name: str, dir_fd: int, *, allow_hard_links: bool, look_first: bool = True
) -> tuple[int, os.stat_result]:
    """``(fd, stat)`` of the regular file ``name`` in ``dir_fd``, opened without blocking.

    ``look_first`` checks the name's type before opening it, so a device is not even opened
    (opening some devices has effects); the type is checked again on the open descriptor, which
    is what settles a race. Raises `Unreadable` or ``OSError``.
    """
    if look_first:
        seen = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if stat.S_ISLNK(seen.st_mode):  # what O_NOFOLLOW would answer
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name)
        check_regular(seen, allow_hard_links=True)
    fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        check_regular(st, allow_hard_links=allow_hard_links)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_fd(fd: int, limit: int, size: int = 0) -> bytes:
    """At most ``limit`` bytes from ``fd``; ``size`` (the expected size) lets a file that has
    not changed be read in one call."""
    want = min(limit, max(size, 0) + 1) if size else min(limit, _CHUNK)
    first = os.read(fd, want)
    if len(first) < want or len(first) >= limit:
        return first
    chunks = [first]
    got = len(first)
    while got < limit:
        chunk = os.read(fd, min(_CHUNK, limit - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_regular(name: str, dir_fd: int, limit: int, *, allow_hard_links: bool) -> bytes:
    """The bytes of the regular file ``name`` in ``dir_fd``, refused (`Unreadable`)
    when it is larger than ``limit``; ``OSError`` when it cannot be opened or read."""
    fd, st = open_regular(name, dir_fd, allow_hard_links=allow_hard_links, look_first=False)
    try:
        if st.st_size > limit:
            raise Unreadable(f"it is larger than {limit:,} bytes")
        data = read_fd(fd, limit + 1, st.st_size)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise Unreadable(f"it is larger than {limit:,} bytes")
    return data

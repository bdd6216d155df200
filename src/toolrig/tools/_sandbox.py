"""The sandbox: one root folder that a built-in tool may touch, and safe ways to touch it.

Every path a model gives is relative to the root. `Sandbox.resolve` refuses absolute
paths, ``..`` that leaves the root and symlinks (of the file or of any parent folder) whose real
location is outside; the answer is a ``permission_denied`` `ToolError` naming
the path.

Checking a path and then using it leaves a window in which a folder could be swapped for a
symlink. The opening helpers close that window: they walk from the root one component at a time
with ``O_NOFOLLOW`` (relative to the folder opened before, see ``_fd``), so a component that
became a symlink after the check makes the call fail instead of following it. Files are read only
when they are regular files (a pipe or a device is refused without blocking) with a single hard
link (``allow_hard_links=True`` lifts that), and never past a limit. Writes go to a temporary file
in the same folder, are flushed to disk, then renamed over the target: readers (and a crash) see
the old content or the new, never a mix. POSIX only (Linux, macOS).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO, Final

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._fd import DIR_FLAGS, Unreadable, open_regular, read_fd

__all__ = ["Sandbox"]

NAME_MAX: Final = 255
"""Longest name of one file or folder, in bytes (Linux and macOS file systems)."""
PATH_MAX: Final = 4096
"""Longest path, in bytes."""
_OUTSIDE_HINT: Final = (
    "Use a path relative to the sandbox root (for example `src/app.py`), without `..` "
    "that leaves it and without symlinks that point outside it."
)
_RACE_CODES: Final = frozenset({errno.ELOOP, errno.ENOTDIR})


class Sandbox:
    """A root folder and the rules for reaching paths under it.

    ``root`` must be an existing folder (``create=True`` makes it). Symlinks in the root's own
    path are resolved once, here; everything under it is checked on each call.

    ``allow_hard_links``: read files that have more than one hard link. Refused by default: a
    hard link made inside the root to a file outside it (by a program the shell tool ran, or an
    unpacked archive) looks like any other file to a path check.
    """

    __slots__ = ("allow_hard_links", "root")

    root: Path
    """The real (symlink-free) absolute path of the root folder."""
    allow_hard_links: bool
    """Whether files with more than one hard link may be read."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        create: bool = False,
        allow_hard_links: bool = False,
    ) -> None:
        path = Path(root).expanduser()
        if create:
            path.mkdir(parents=True, exist_ok=True)
        real = path.resolve(strict=True)
        if not real.is_dir():
            raise NotADirectoryError(f"sandbox root {str(root)!r} is not a folder")
        self.root = real
        self.allow_hard_links = allow_hard_links

    def __repr__(self) -> str:
        return f"Sandbox({str(self.root)!r})"

    # -- checking --------------------------------------------------------------------------
    def resolve(self, path: str, *, follow_final: bool = True) -> Path:
        """The real absolute path for ``path`` (relative to the root), checked to be inside.

        ``follow_final=False`` resolves the parent folders only, so a symlink itself (rather
        than what it points to) can be named, e.g. to delete it; it is still refused when it
        points outside the root.
        """
        if "\x00" in path:
            raise ToolError(
                f"path {path!r} contains a NUL character",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="Give a plain relative path.",
            )
        if path in ("", ".", "./"):
            return self.root
        _check_lengths(path)
        if os.path.isabs(path) or path.startswith("~"):
            raise self.denied(path, "absolute paths are not allowed")
        lexical = os.path.normpath(os.path.join(self.root, path))
        if not _inside(lexical, self.root):
            raise self.denied(path, "`..` leads outside the sandbox root")
        real = os.path.realpath(lexical)
        if not _inside(real, self.root):
            raise self.denied(path, "it is or goes through a symlink pointing outside the root")
        if follow_final or lexical == str(self.root):
            return Path(real)
        parent = os.path.realpath(os.path.dirname(lexical))
        return Path(parent) / os.path.basename(lexical)

    def relative(self, target: Path) -> str:
        """``target`` (a resolved path) as the model should see it: relative, with ``/``."""
        rel = target.relative_to(self.root).as_posix()
        return rel or "."

    def denied(self, path: str, reason: str) -> ToolError:
        """The ``permission_denied`` error for ``path``."""
        return ToolError(
            f"Access to `{path}` is denied: {reason}. Only files under the sandbox root can be "
            "used.",
            code=ErrorCode.PERMISSION_DENIED,
            hint=_OUTSIDE_HINT,
            details={"path": path},
        )

    # -- opening without races -------------------------------------------------------------
    def open_dir(self, target: Path, *, create: bool = False, for_path: Path | None = None) -> int:
        """A file descriptor of the folder ``target``, reached from the root without following
        any symlink; ``create=True`` makes missing folders on the way. Close it with
        ``os.close``. Errors name ``for_path`` (the file wanted in that folder) when given."""
        parts = target.relative_to(self.root).parts
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for part in parts:
                try:
                    if create:
                        with suppress(FileExistsError):
                            os.mkdir(part, dir_fd=fd)
                    nfd = os.open(part, DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise self._open_error(exc, for_path or target) from exc
                os.close(fd)
                fd = nfd
        except BaseException:
            os.close(fd)
            raise
        return fd

    def open_regular(self, target: Path) -> tuple[int, os.stat_result]:
        """``(fd, stat)`` of the regular file ``target``, opened for reading without blocking
        and without following a symlink anywhere on the way. A pipe, a device, a socket, a
        folder or (unless allowed) a file with several hard links is refused with a
        `ToolError` naming the path."""
        dfd = self.open_dir(target.parent, for_path=target)
        try:
            return open_regular(target.name, dfd, allow_hard_links=self.allow_hard_links)
        except Unreadable as exc:
            raise self.unreadable(self.relative(target), exc) from None
        except OSError as exc:
            raise self._open_error(exc, target) from exc
        finally:
            os.close(dfd)

    def read_bytes(self, target: Path, limit: int) -> bytes:
        """The regular file's bytes, at most ``limit`` of them (ask for one more than you
        accept to tell a file over the limit)."""
        fd, st = self.open_regular(target)
        try:
            return read_fd(fd, limit, st.st_size)
        finally:
            os.close(fd)

    def lstat(self, target: Path) -> os.stat_result | None:
        """``target``'s own status (a symlink is not followed), or ``None`` when it does not
        exist; reached through folder descriptors like every other access."""
        if target == self.root:
            return os.stat(self.root)
        try:
            dfd = self.open_dir(target.parent, for_path=target)
        except ToolError as exc:
            if exc.code == ErrorCode.NOT_FOUND:  # a folder on the way is missing
                return None
            raise
        try:
            return os.stat(target.name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self._open_error(exc, target) from exc
        finally:
            os.close(dfd)

    def unreadable(self, shown: str, exc: Unreadable) -> ToolError:
        """The error for a file that is not read (see `Unreadable`)."""
        if exc.linked:
            return ToolError(
                f"`{shown}` is not read: {exc.reason}.",
                code=ErrorCode.PERMISSION_DENIED,
                hint="Files with several hard links are refused; the operator can allow them "
                "with Sandbox(..., allow_hard_links=True).",
                details={"path": shown},
            )
        return ToolError(
            f"`{shown}` is not read: {exc.reason}.",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Only regular files can be read; list the folder to see what is there.",
            details={"path": shown},
        )

    @contextmanager
    def atomic_writer(
        self, target: Path, *, create_dirs: bool = False, exclusive: bool = False
    ) -> Iterator[BinaryIO]:
        """Write ``target`` atomically: yields a binary file; on leaving the block the data is
        flushed to disk and renamed over ``target``. On an error the target is left as it was.

        ``exclusive=True`` never replaces an existing file (the final step is a hard link that
        fails if the name exists, so a file created meanwhile is not clobbered either).
        """
        dfd = self.open_dir(target.parent, create=create_dirs, for_path=target)
        try:
            name = target.name
            mode = _existing_mode(name, dfd)
            tmp = f".{name}.{secrets.token_hex(6)}.tmp"
            fd = os.open(
                tmp,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o666,
                dir_fd=dfd,
            )
            handle = os.fdopen(fd, "wb")
            try:
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
                handle.close()
                if exclusive:
                    try:
                        os.link(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
                    except FileExistsError:
                        raise ToolError(
                            f"`{self.relative(target)}` already exists.",
                            code=ErrorCode.INVALID_ARGUMENTS,
                            hint="Pass overwrite=true to replace it, or choose another path.",
                        ) from None
                    os.unlink(tmp, dir_fd=dfd)
                else:
                    os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
            except BaseException:
                handle.close()
                with suppress(FileNotFoundError):
                    os.unlink(tmp, dir_fd=dfd)
                raise
            with suppress(OSError):  # some file systems cannot sync folders
                os.fsync(dfd)
        finally:
            os.close(dfd)

    def atomic_write(
        self, target: Path, data: bytes, *, create_dirs: bool = False, exclusive: bool = False
    ) -> int:
        """Replace ``target``'s content with ``data`` atomically; returns the bytes written."""
        with self.atomic_writer(target, create_dirs=create_dirs, exclusive=exclusive) as handle:
            handle.write(data)
        return len(data)

    def unlink(self, target: Path) -> None:
        """Remove the file (or symlink) ``target``, reached without following symlinks."""
        dfd = self.open_dir(target.parent, for_path=target)
        try:
            os.unlink(target.name, dir_fd=dfd)
        finally:
            os.close(dfd)

    def rmdir(self, target: Path) -> None:
        """Remove the empty folder ``target``."""
        dfd = self.open_dir(target.parent, for_path=target)
        try:
            os.rmdir(target.name, dir_fd=dfd)
        finally:
            os.close(dfd)

    def _open_error(self, exc: OSError, target: Path) -> Exception:
        shown = self.relative(target)
        if exc.errno == errno.ENAMETOOLONG:
            return _too_long(shown)
        if exc.errno == errno.ENXIO:
            return self.unreadable(shown, Unreadable("it is a socket, not a regular file"))
        if exc.errno in _RACE_CODES:
            return self.denied(shown, "a part of it is a symlink or not a folder")
        if isinstance(exc, FileNotFoundError):
            return ToolError(
                f"`{shown}` does not exist.",
                code=ErrorCode.NOT_FOUND,
                hint="List the folder to see what is there.",
            )
        return exc


def _too_long(shown: str) -> ToolError:
    return ToolError(
        f"`{shown[:80]}{'...' if len(shown) > 80 else ''}` is too long: a name may have at "
        f"most {NAME_MAX} bytes and a path {PATH_MAX}.",
        code=ErrorCode.INVALID_ARGUMENTS,
        hint="Use shorter file and folder names.",
    )


def _check_lengths(path: str) -> None:
    """Refuse a path the file system would refuse for its length, with words instead of
    ``OSError [Errno 36]``."""
    encoded = os.fsencode(path)
    if len(encoded) > PATH_MAX or any(len(p) > NAME_MAX for p in encoded.split(b"/")):
        raise _too_long(path)


def _inside(path: str, root: Path) -> bool:
    return Path(path).is_relative_to(root)


def _existing_mode(name: str, dfd: int) -> int | None:
    """The permission bits of the file ``name`` replaces, or ``None`` (the default mode) when
    there is none or it is a symlink (whose own bits, ``0o777``, are not a file's to keep)."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return None
    return st.st_mode & 0o7777

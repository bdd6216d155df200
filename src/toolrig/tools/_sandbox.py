"""The sandbox: one root folder that a built-in tool may touch, and safe ways to touch it.

Every path a model gives is relative to the root. :meth:`Sandbox.resolve` refuses absolute
paths, ``..`` that leaves the root and symlinks (of the file or of any parent folder) whose real
location is outside; the answer is a ``permission_denied`` :class:`~toolrig.ToolError` naming
the path.

Checking a path and then using it leaves a window in which a folder could be swapped for a
symlink. The opening helpers close that window: they walk from the root one component at a time
with ``O_NOFOLLOW`` (relative to the folder opened before), so a component that became a symlink
after the check makes the call fail instead of following it. Writes go to a temporary file in the
same folder, are flushed to disk, then renamed over the target: readers (and a crash) see the old
content or the new, never a mix. POSIX only (Linux, macOS).
"""

from __future__ import annotations

import errno
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO, Final

from toolrig.core._errors import ErrorCode, ToolError

__all__ = ["Sandbox"]

_DIR_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OUTSIDE_HINT: Final = (
    "Use a path relative to the sandbox root (for example `src/app.py`), without `..` "
    "that leaves it and without symlinks that point outside it."
)
_RACE_CODES: Final = frozenset({errno.ELOOP, errno.ENOTDIR})


class Sandbox:
    """A root folder and the rules for reaching paths under it.

    ``root`` must be an existing folder (``create=True`` makes it). Symlinks in the root's own
    path are resolved once, here; everything under it is checked on each call.
    """

    __slots__ = ("root",)

    root: Path
    """The real (symlink-free) absolute path of the root folder."""

    def __init__(self, root: str | os.PathLike[str], *, create: bool = False) -> None:
        path = Path(root).expanduser()
        if create:
            path.mkdir(parents=True, exist_ok=True)
        real = path.resolve(strict=True)
        if not real.is_dir():
            raise NotADirectoryError(f"sandbox root {str(root)!r} is not a folder")
        self.root = real

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
                if create:
                    with suppress(FileExistsError):
                        os.mkdir(part, dir_fd=fd)
                try:
                    nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise self._open_error(exc, for_path or target) from exc
                os.close(fd)
                fd = nfd
        except BaseException:
            os.close(fd)
            raise
        return fd

    def open_file(self, target: Path, flags: int = os.O_RDONLY) -> int:
        """A file descriptor of the file ``target`` opened with ``flags`` plus ``O_NOFOLLOW``."""
        dfd = self.open_dir(target.parent, for_path=target)
        try:
            return os.open(target.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dfd)
        except OSError as exc:
            raise self._open_error(exc, target) from exc
        finally:
            os.close(dfd)

    def read_bytes(self, target: Path, limit: int | None = None) -> bytes:
        """The file's bytes (at most ``limit`` of them when given)."""
        fd = self.open_file(target)
        with os.fdopen(fd, "rb") as handle:
            return handle.read() if limit is None else handle.read(limit)

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
        if exc.errno in _RACE_CODES:
            return self.denied(shown, "a part of it is a symlink or not a folder")
        if isinstance(exc, FileNotFoundError):
            return ToolError(
                f"`{shown}` does not exist.",
                code=ErrorCode.NOT_FOUND,
                hint="List the folder to see what is there.",
            )
        return exc


def _inside(path: str, root: Path) -> bool:
    return Path(path).is_relative_to(root)


def _existing_mode(name: str, dfd: int) -> int | None:
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return st.st_mode & 0o7777

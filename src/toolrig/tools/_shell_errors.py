"""What the model reads when a shell command could not start, was refused its sandbox, or was
stopped (timeout, output flood, cancellation), from the supervisor's status report."""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._text import cut_middle

__all__ = ["read_status", "start_error", "stopped"]


def read_status(fd: int, argv: list[str]) -> int | None:
    """The command's exit code as the supervisor reported it (``None`` when it was stopped);
    a start failure becomes the error the model reads."""
    with os.fdopen(fd, "rb") as pipe:
        text = pipe.read(64).decode("ascii", "replace").strip()
    if text.startswith("E"):
        raise start_error(argv, int(text[1:] or 0))
    if text.startswith("L"):
        raise ToolError(
            f"`{argv[0]}` was not run: the kernel refused its sandbox "
            f"({os.strerror(int(text[1:] or 0))}).",
            code=ErrorCode.EXECUTION_ERROR,
            hint="This is a problem of the machine, not of the command; tell the operator.",
        )
    return int(text) if text.lstrip("-").isdigit() else None


def start_error(argv: list[str], code: int | None) -> ToolError:
    if code == errno.ENOENT:
        return ToolError(
            f"Program `{argv[0]}` was not found.",
            code=ErrorCode.NOT_FOUND,
            hint="Check the name; give a path relative to the working folder for local "
            "scripts, e.g. ./run.sh.",
        )
    if code in (errno.EACCES, errno.EPERM):
        return ToolError(
            f"Program `{argv[0]}` cannot be run (not executable).",
            code=ErrorCode.PERMISSION_DENIED,
        )
    return ToolError(
        f"Program `{argv[0]}` could not be started: {os.strerror(code or 0)}.",
        code=ErrorCode.EXECUTION_ERROR,
    )


def stopped(
    reason: str, argv: list[str], limit: float, flood: int, partial: Mapping[str, object]
) -> ToolError:
    shown = " ".join(argv)
    shown, _ = cut_middle(shown, 200)
    if reason == "timeout":
        return ToolError(
            f"`{shown}` did not finish within {limit:g} s and was killed.",
            code=ErrorCode.TIMEOUT,
            hint="Give a larger timeout if the command needs it, or run something quicker; "
            "details hold the output produced before the kill.",
            details=partial,
        )
    if reason == "output":
        return ToolError(
            f"`{shown}` wrote more than {flood:,} bytes of output and was killed.",
            code=ErrorCode.EXECUTION_ERROR,
            hint="Reduce the output (filter it, write it to a file and search that file).",
            details=partial,
        )
    return ToolError(
        f"`{shown}` was cancelled and killed.", code=ErrorCode.CANCELLED, details=partial
    )

"""What every command shares: exit codes, the one-line error, consoles and JSON output.

Exit codes are the same for every command: 0 when it did what was asked, 1 when a tool call,
a plan or a check failed, 2 when the command was used wrongly or its input cannot be read.
People get Rich tables on stdout; ``--json`` prints JSON there instead. Errors and warnings go
to stderr, one line each, so a script can read stdout alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "CliError",
    "add_json_option",
    "err_console",
    "out_console",
    "print_json",
    "warn",
]

EXIT_OK: Final = 0
"""The command did what was asked."""
EXIT_FAILED: Final = 1
"""A tool call, a plan run or a check failed."""
EXIT_USAGE: Final = 2
"""The command was used wrongly, or its input (a path, a file, arguments) cannot be read."""


class CliError(Exception):
    """A problem the user must fix, printed as one line on stderr; the process exits with
    ``code`` (2 by default: usage or input)."""

    def __init__(self, message: str, *, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """``--json``: machine output on stdout instead of tables."""
    parser.add_argument(
        "--json", action="store_true", help="print JSON on stdout instead of tables"
    )


def out_console() -> Console:
    """The console for results (stdout); plain text when stdout is not a terminal."""
    from rich.console import Console

    return Console(highlight=False)


def err_console() -> Console:
    """The console for progress and warnings (stderr)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def print_json(data: Any, *, file: IO[str] | None = None) -> None:
    """``data`` as indented JSON (values that are not JSON-native are converted)."""
    from toolrig.core.result._result import to_jsonable

    text = json.dumps(to_jsonable(data), indent=2, ensure_ascii=False)
    print(text, file=file or sys.stdout)


def warn(command: str, message: str) -> None:
    """One warning line on stderr, prefixed with the command."""
    print(f"toolrig {command}: warning: {message}", file=sys.stderr)

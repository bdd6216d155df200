"""Load the tools a command works on: YAML files or folders into a registry, or the demo tools.

A path that does not exist is an input error (exit 2), said once, before anything runs: a
command over a catalogue that silently failed to load would only print "not found" for every
tool. Problems inside single files are printed with their file and line, and the rest loads
(``toolrig validate`` is the command that fails on them).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolrig.cli._output import CliError, warn
from toolrig.registry._registry import Registry

if TYPE_CHECKING:
    from toolrig.registry._report import LoadReport
    from toolrig.search._index import ToolIndex
    from toolrig.storage._log import ExecutionLog

__all__ = [
    "add_catalog_options",
    "add_demo_tools",
    "add_import_paths",
    "check_paths",
    "load_registry",
    "load_usage",
    "open_catalog",
    "report_problems",
]


def add_catalog_options(parser: argparse.ArgumentParser, *, demo_default: bool) -> None:
    """``--catalog PATH`` (repeatable), ``--import-path DIR`` (repeatable) and, when
    ``demo_default``, ``--demo`` (the built-in demo tools, also used when no catalogue is
    given)."""
    parser.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="PATH",
        help="YAML tool definitions (file or folder); repeatable"
        + ("; without one, the built-in demo tools" if demo_default else ""),
    )
    parser.add_argument(
        "--import-path",
        action="append",
        default=[],
        metavar="DIR",
        help="folder to import executors from (like PYTHONPATH); repeatable",
    )
    if demo_default:
        parser.add_argument(
            "--demo", action="store_true", help="add the built-in demo tools to the catalogues"
        )


def add_import_paths(import_paths: Sequence[str]) -> None:
    """Put folders first on ``sys.path`` so definitions' ``executor:`` modules import."""
    for folder in reversed(import_paths):
        resolved = str(Path(folder).resolve())
        if resolved not in sys.path:
            sys.path.insert(0, resolved)


def check_paths(paths: Sequence[str], what: str) -> None:
    """Raise :class:`CliError` (exit 2) naming the first of ``paths`` that does not exist."""
    for raw in paths:
        if not Path(raw).exists():
            raise CliError(f"{what} {raw!r}: no such file or folder")


def load_registry(
    paths: Sequence[str], import_paths: Sequence[str] = (), *, command: str = "catalog"
) -> Registry:
    """A registry with every definition under ``paths`` (checked to exist first: a missing
    one raises :class:`CliError`); ``import_paths`` go on ``sys.path`` so the definitions'
    ``executor:`` modules import. Problems in single files are printed; the rest loads."""
    check_paths(paths, "--catalog")
    add_import_paths(import_paths)
    registry = Registry()
    for path in paths:
        report_problems(command, registry.load(path))
    return registry


def report_problems(command: str, report: LoadReport) -> None:
    """Print each problem of a load report as a warning line (``file:line: field: message``)."""
    for error in report.errors:
        warn(command, str(error))


def open_catalog(args: argparse.Namespace, command: str) -> Registry:
    """The registry a command's options name: the ``--catalog`` paths, plus the demo tools
    when ``--demo`` is given or no catalogue is."""
    registry = load_registry(args.catalog, args.import_path, command=command)
    if getattr(args, "demo", False) or not args.catalog:
        add_demo_tools(registry)
    return registry


def add_demo_tools(registry: Registry) -> None:
    """Add the demo tools; a catalogue tool of the same name is an input error."""
    from toolrig.cli._demo_tools import demo_tools
    from toolrig.core._errors import ToolDefinitionError

    try:
        for tool in demo_tools():
            registry.add(tool)
    except ToolDefinitionError as exc:
        registry.close()
        raise CliError(f"--demo: {exc}") from None


def load_learned(index: ToolIndex, url: str) -> str | None:
    """Give ``index`` the (request, tool) pairs stored in the execution log at ``url`` (see
    ``ToolIndex.learn``); what went wrong, or ``None``."""
    from toolrig.storage._requests import RequestLog

    return _from_log(
        url, lambda log: index.learn((p.request, p.tool) for p in reversed(RequestLog(log).pairs()))
    )


def load_usage(index: ToolIndex, url: str) -> str | None:
    """Give ``index`` the call counts of the execution log at ``url`` (its usage prior); what
    went wrong, or ``None``."""
    return _from_log(url, lambda log: index.set_usage(log.tool_usage()))


def _from_log(url: str, read: Callable[[ExecutionLog], object]) -> str | None:
    """Open the execution log at ``url`` (which must exist) and ``read`` it; what went wrong,
    or ``None``."""
    from toolrig.storage._open import open_log

    if not url.startswith(("postgresql://", "postgres://")):
        path = Path(url.removeprefix("sqlite:///"))
        if not path.is_file():
            return f"no execution log at {str(path)!r}"
    try:
        with open_log(url) as log:
            read(log)
    except Exception as exc:  # a locked, corrupt or unreachable log: say so, do not trace
        return f"{url}: {exc}"
    return None

"""Load the tools a command works on, from one set of sources every command shares.

A catalogue is YAML (a file or a folder), a Python file defining ``tools``, or an importable
module (``--module``), so ``toolrig list mytools.py`` sees what ``toolrig serve mytools.py``
serves. A path that does not exist, or a definition that cannot be read, is an input error
(exit 2), said before anything runs: a command over a catalogue that silently failed to load
would only print "not found" for every tool. Each problem is printed with its file and line.
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
    from toolrig.registry._catalog import ToolLike
    from toolrig.registry._report import LoadReport
    from toolrig.search._index import ToolIndex
    from toolrig.storage._log import ExecutionLog

__all__ = [
    "add_catalog_options",
    "add_demo_tools",
    "add_import_paths",
    "check_paths",
    "load_modules",
    "load_registry",
    "load_usage",
    "open_catalog",
    "report_problems",
]


def add_catalog_options(parser: argparse.ArgumentParser, *, demo_default: bool) -> None:
    """``--catalog PATH`` and ``--module NAME`` (repeatable), ``--import-path DIR``
    (repeatable) and, when ``demo_default``, ``--demo`` (the built-in demo tools, also used
    when no catalogue is given)."""
    parser.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="PATH",
        help="YAML tool definitions (file or folder), or a Python file defining `tools`; "
        "repeatable" + ("; without one, the built-in demo tools" if demo_default else ""),
    )
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        metavar="NAME",
        help="Python module whose tools (@tool, Tool, BaseTool objects) to add; repeatable",
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
    paths: Sequence[str],
    import_paths: Sequence[str] = (),
    *,
    modules: Sequence[str] = (),
    command: str = "catalog",
    what: str = "--catalog",
    watch: bool = False,
) -> Registry:
    """A registry with the tools of ``paths`` (YAML files or folders, Python files defining
    ``tools``) and of ``modules``; ``import_paths`` go on ``sys.path`` first so executors and
    modules import. Raises :class:`CliError` (exit 2) for a path that does not exist or a
    definition that cannot be loaded, after printing each problem with its file and line.
    With ``watch``, YAML folders are kept current (``Registry.watch``)."""
    from toolrig.cli._python_tools import is_python_file, load_python_tools

    check_paths(paths, what)
    add_import_paths(import_paths)
    registry = Registry()
    try:
        problems = 0
        for path in paths:
            if is_python_file(path):
                _add_all(registry, load_python_tools(path).tools, path)
            elif watch and Path(path).is_dir():
                report = registry.watch(path).report
                problems += report_problems(command, report) if report is not None else 0
            else:
                problems += report_problems(command, registry.load(path))
        if problems:
            raise CliError(
                f"{problems} definition problem(s) in the catalogue (printed above); fix them "
                "or leave the file out (`toolrig validate PATH` checks a catalogue)"
            )
        load_modules(registry, modules)
    except BaseException:
        registry.close()
        raise
    return registry


def load_modules(registry: Registry, modules: Sequence[str]) -> None:
    """Add the tools (``BaseTool`` objects) the modules named ``modules`` define at their top
    level; :class:`CliError` for a module that cannot be imported or defines none."""
    import importlib

    from toolrig.core.define._base import BaseTool

    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise CliError(f"--module {name}: {exc} (is its folder on --import-path?)") from None
        found = [value for value in vars(module).values() if isinstance(value, BaseTool)]
        if not found:
            raise CliError(f"--module {name}: defines no tools (@tool, Tool or BaseTool objects)")
        _add_all(registry, [t for t in found if t.spec.name not in registry], f"--module {name}")


def _add_all(registry: Registry, tools: Sequence[ToolLike], source: str) -> None:
    """Add ``tools`` to ``registry``; a tool it cannot take is an input error naming ``source``."""
    from toolrig.core.model._errors import ToolDefinitionError

    for item in tools:
        try:
            registry.add(item)
        except (ToolDefinitionError, TypeError) as exc:
            raise CliError(f"{source}: {exc}") from None


def report_problems(command: str, report: LoadReport) -> int:
    """Print each problem of a load report as a warning line (``file:line: field: message``);
    how many there were."""
    for error in report.errors:
        warn(command, str(error))
    return len(report.errors)


def open_catalog(args: argparse.Namespace, command: str) -> Registry:
    """The registry a command's options name: the ``--catalog`` paths and ``--module``
    modules, plus the demo tools when ``--demo`` is given or no catalogue is."""
    modules = getattr(args, "module", [])
    registry = load_registry(args.catalog, args.import_path, modules=modules, command=command)
    if getattr(args, "demo", False) or not (args.catalog or modules):
        add_demo_tools(registry)
    return registry


def add_demo_tools(registry: Registry) -> None:
    """Add the demo tools; a catalogue tool of the same name is an input error."""
    from toolrig.cli._demo_tools import demo_tools
    from toolrig.core.model._errors import ToolDefinitionError

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

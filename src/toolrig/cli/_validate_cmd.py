"""``toolrig validate PATH...``: check catalogues and plans before they are used.

Catalogues are read as every command reads them (YAML files or folders, Python files defining
``tools``, ``--module`` modules). Every problem is printed with its file and line: definitions
that do not load, Python files that do not import, executors that are missing or fail to
import (loading alone never imports them), and plans whose steps name unknown tools, bad
parameters, missing steps or cycles. The exit code is 1 on any problem, so
the command can guard a deployment or a CI job.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolrig.cli._output import EXIT_FAILED, EXIT_OK, add_json_option

if TYPE_CHECKING:
    from toolrig.registry._registry import Registry
    from toolrig.registry._report import LoadError

__all__ = ["add_validate_parser", "is_plan_file", "run_validate"]


def add_validate_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``validate`` and its options."""
    validate = commands.add_parser(
        "validate",
        help="check catalogues and plans (every problem with file:line)",
        description="Check tool catalogues (YAML files or folders, Python files defining "
        "`tools`, --module modules) and plans: every problem with its file and line, "
        "executors imported now. Plans are checked against the "
        "catalogues given with them. Exit code 1 on any problem.",
    )
    validate.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="definition files or folders, Python files defining `tools`, and plan files",
    )
    validate.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="PATH",
        help="more definitions the plans may use (also checked); repeatable",
    )
    validate.add_argument(
        "--module",
        action="append",
        default=[],
        metavar="NAME",
        help="Python module whose tools the plans may use (also checked); repeatable",
    )
    validate.add_argument(
        "--import-path",
        action="append",
        default=[],
        metavar="DIR",
        help="folder to import executors from (like PYTHONPATH); repeatable",
    )
    add_json_option(validate)
    validate.set_defaults(handler=run_validate)


def is_plan_file(path: Path) -> bool:
    """True for a plan: a file whose data is ``{steps: [...]}`` or a list of steps (mappings
    with a ``tool``); a definition file holds one tool mapping or a list of them (each with a
    ``name``)."""
    from toolrig.registry._yamlsrc import YamlSyntaxError, parse_yaml

    try:
        data = parse_yaml(path.read_text(encoding="utf-8")).data
    except (OSError, UnicodeDecodeError, YamlSyntaxError):
        return False  # not a plan: read as definitions, whose problems are reported
    if isinstance(data, dict):
        return "steps" in data
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(s, dict) and "tool" in s and "name" not in s for s in data)
    )


def run_validate(args: argparse.Namespace) -> int:
    """Check everything given; 0 without problems, 1 with any."""
    from toolrig.cli._catalog import add_import_paths, check_paths
    from toolrig.cli._checks import executor_problems, plan_problems
    from toolrig.cli._python_tools import is_python_file
    from toolrig.registry._registry import Registry

    check_paths(args.paths, "path")
    check_paths(args.catalog, "--catalog")
    add_import_paths(args.import_path)
    given = [Path(p) for p in args.paths]
    plans = [p for p in given if p.is_file() and not is_python_file(p) and is_plan_file(p)]
    sources = [p for p in given if p not in plans] + [Path(p) for p in args.catalog]
    problems: list[LoadError] = []
    with Registry() as registry:
        loaded: list[str] = []
        for source in sources:
            if is_python_file(source):
                problems.extend(_load_python(registry, source, loaded))
                continue
            report = registry.load(source)
            loaded.extend(report.loaded)
            problems.extend(report.errors)
        for module in args.module:
            problems.extend(_load_module(registry, module, loaded))
        problems.extend(executor_problems(registry))
        for plan in plans:
            problems.extend(plan_problems(plan, registry))
    if args.json:
        from toolrig.cli._output import print_json

        print_json(
            {
                "ok": not problems,
                "tools": loaded,
                "plans": [str(p) for p in plans],
                "problems": [_as_data(p) for p in problems],
            }
        )
    else:
        _print(problems, tools=len(loaded), plans=len(plans))
    return EXIT_FAILED if problems else EXIT_OK


def _load_python(registry: Registry, path: Path, loaded: list[str]) -> list[LoadError]:
    """Add the tools of the Python file ``path``; why it cannot be read, as problems."""
    from toolrig.cli._output import CliError
    from toolrig.cli._python_tools import load_python_tools

    try:
        tools = load_python_tools(path).tools
    except CliError as exc:
        message = str(exc).removeprefix(f"{path}: ")
        return [_problem(path, message)]
    return _add(registry, tools, loaded, path)


def _load_module(registry: Registry, name: str, loaded: list[str]) -> list[LoadError]:
    """Add the tools module ``name`` defines; why it cannot be read, as problems."""
    from toolrig.cli._catalog import load_modules
    from toolrig.cli._output import CliError
    from toolrig.registry._report import LoadError

    before = set(registry.names())
    try:
        load_modules(registry, [name])
    except CliError as exc:
        return [LoadError(path=None, line=None, field=None, message=str(exc))]
    loaded.extend(n for n in registry.names() if n not in before)
    return []


def _add(registry: Registry, tools: list[Any], loaded: list[str], path: Path) -> list[LoadError]:
    from toolrig.core.model._errors import ToolDefinitionError

    problems: list[LoadError] = []
    for item in tools:
        try:
            loaded.append(registry.add(item).spec.name)
        except (ToolDefinitionError, TypeError) as exc:
            problems.append(_problem(path, str(exc)))
    return problems


def _problem(path: Path, message: str) -> LoadError:
    from toolrig.registry._report import LoadError

    return LoadError(path=path, line=None, field=None, message=message)


def _as_data(problem: LoadError) -> dict[str, Any]:
    return {
        "path": None if problem.path is None else str(problem.path),
        "line": problem.line,
        "field": problem.field,
        "tool": problem.tool,
        "message": problem.message,
    }


def _print(problems: list[LoadError], *, tools: int, plans: int) -> None:
    from rich.markup import escape

    from toolrig.cli._output import out_console

    console = out_console()
    for problem in problems:
        where, _, message = str(problem).partition(": ")
        console.print(f"[bold red]{escape(where)}[/]: {escape(message)}", soft_wrap=True)
    checked = f"{tools} tool{'s' * (tools != 1)}, {plans} plan{'s' * (plans != 1)}"
    if problems:
        console.print(f"[red]{len(problems)} problem{'s' * (len(problems) != 1)}[/] ({checked})")
    else:
        console.print(f"[green]ok[/]: {checked}, no problems")

"""Checks that need more than loading: executors that must import, and plans that must fit
the catalogue. Each problem is a `LoadError`, with its file and line.

Loading a catalogue never imports executors (they are imported on a tool's first call, so a
catalogue loads fast and one broken module does not stop the rest). A check before deploying
wants the opposite: every ``executor:`` imported now, and its failure reported at the line
that names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode

from toolrig.registry._definition import ToolDefinition
from toolrig.registry._executors import ExecutorNotFound, import_object, target_for
from toolrig.registry._registry import Registry
from toolrig.registry._report import LoadError

__all__ = ["executor_problems", "plan_problems"]

_STEP_NUMBER = re.compile(r"\bstep #(\d+)")
_STEP_ID = re.compile(r"\bstep (?:id )?'([^']+)'")


def executor_problems(registry: Registry, names: Iterable[str] | None = None) -> list[LoadError]:
    """Import the executor of each YAML tool named (all by default) and find the code each
    action runs; one problem per executor that is missing or fails to import."""
    problems: list[LoadError] = []
    wanted = registry.names() if names is None else [n for n in names if registry.find(n)]
    for name in dict.fromkeys(wanted):
        definition = registry.definition(name)
        if definition is None or registry.yaml.is_bound(name):
            continue  # code given in Python: nothing to import
        path = registry.source(name)
        for loc, target, action, multi in _executors(definition):
            message = _import_problem(target, tool=name, action=action, multi=multi)
            if message is not None:
                line = _line(path, loc)
                problems.append(
                    LoadError(path=path, line=line, field=None, message=message, tool=name)
                )
    return problems


def _executors(d: ToolDefinition) -> list[tuple[tuple[str, ...], str, str, bool]]:
    """``(where in the file, import path, action, multi)`` for each action with an executor,
    as the registry resolves them on the first call."""
    if d.actions is None:
        return [(("executor",), d.executor, d.name, False)] if d.executor else []
    found: list[tuple[tuple[str, ...], str, str, bool]] = []
    for name, a in d.actions.items():
        if a.executor:
            found.append((("actions", name, "executor"), a.executor, name, False))
        elif d.executor:
            found.append((("executor",), d.executor, a.method or name, True))
    return found


def _import_problem(target: str, *, tool: str, action: str, multi: bool) -> str | None:
    try:
        target_for(import_object(target), tool=tool, action=action, multi=multi)
    except ExecutorNotFound as exc:
        return f"executor {target!r} of tool {tool!r} was not found: {exc}"
    except Exception as exc:  # the user's module raised while importing: report, go on
        return f"executor {target!r} of tool {tool!r} failed to import: {type(exc).__name__}: {exc}"
    return None


def _line(path: Path | None, loc: tuple[str | int, ...]) -> int | None:
    """The line of ``loc`` in the YAML file ``path`` (``None`` when it cannot be read)."""
    if path is None:
        return None
    from toolrig.registry._yamlsrc import YamlSyntaxError, locate, parse_yaml

    try:
        node = parse_yaml(path.read_text(encoding="utf-8")).node
    except (OSError, UnicodeDecodeError, YamlSyntaxError):
        return None
    return locate(node, loc)[0]


def plan_problems(path: Path, registry: Registry) -> list[LoadError]:
    """Every problem of the plan file ``path`` over ``registry``: its shape, its steps'
    tools, actions and parameters, references, cycles, and executors that do not import."""
    from toolrig.runtime._executor import ToolExecutor
    from toolrig.runtime._plan import Plan, PlanError
    from toolrig.runtime._plan_check import check_plan

    node, syntax = _plan_node(path)
    if syntax is not None:
        return [syntax]
    try:
        plan = Plan.load(path)
    except (OSError, UnicodeDecodeError) as exc:
        return [LoadError(path=path, line=None, field=None, message=f"cannot read: {exc}")]
    except PlanError as exc:
        return [_plan_error(path, node, None, text) for text in exc.problems]
    with ToolExecutor(registry) as executor:
        report = check_plan(plan, executor)
    found = [_plan_error(path, node, plan.steps, text) for text in report.problems]
    tools = [step.tool for step in plan.steps]
    for problem in executor_problems(registry, tools):
        found.append(problem)
    return found


def _plan_node(path: Path) -> tuple[Any, LoadError | None]:
    """The YAML node tree of a plan (for lines), or the syntax error that stops reading it."""
    from toolrig.registry._yamlsrc import YamlSyntaxError, parse_yaml

    try:
        return parse_yaml(path.read_text(encoding="utf-8")).node, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, LoadError(path=path, line=None, field=None, message=f"cannot read: {exc}")
    except YamlSyntaxError as exc:
        return None, LoadError(path=path, line=exc.line, field=None, message=exc.message)


def _plan_error(path: Path, node: Any, steps: Any, text: str) -> LoadError:
    """A plan problem at the line of the step it names (``step #3``, ``step 'fetch'``)."""
    from toolrig.registry._yamlsrc import locate

    index: int | None = None
    number = _STEP_NUMBER.search(text)
    if number:
        index = int(number.group(1)) - 1
    elif steps is not None and (named := _STEP_ID.search(text)):
        index = next((i for i, s in enumerate(steps) if s.id == named.group(1)), None)
    loc: list[str | int] = [] if index is None else [index]
    if isinstance(node, MappingNode):  # {id: ..., steps: [...]}, not a bare list of steps
        loc = ["steps", *loc]
    line = locate(node, loc)[0] if node is not None else None
    return LoadError(path=path, line=line, field=None, message=text)

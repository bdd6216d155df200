"""Turn a :class:`ToolDefinition` into a runnable core tool (validators compiled here, once)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from toolrig.core.action import Action, action_from_schema
from toolrig.core.base import AssembledTool, BaseTool, build_tool_spec
from toolrig.core.errors import ToolDefinitionError
from toolrig.core.function_tool import Tool
from toolrig.core.params import ToolParameter, parameters_to_schema
from toolrig.core.schema_compiler import SchemaCompileError, compile_schema
from toolrig.registry.definition import ToolDefinition

__all__ = ["BuildError", "DeclaredTool", "build_tool"]

Loc = tuple[str | int, ...]
ActionTarget = Callable[[str, bool], Callable[..., Any]]
"""``(action name, multi) -> callable`` supplying the code that runs an action."""

_NAMED = re.compile(r"parameter [`'](?P<name>[^`']+)[`']")
_NUMBERED = re.compile(r"parameter #(?P<n>\d+)")


class BuildError(ValueError):
    """A definition that passed the model but cannot become a tool; problems carry locations."""

    def __init__(self, problems: list[tuple[Loc, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(m for _, m in problems))


class DeclaredTool(AssembledTool):
    """A multi-action tool assembled from a YAML ``actions:`` map."""

    _abstract_tool = True


def _tool_fields(d: ToolDefinition) -> dict[str, Any]:
    return {
        "display_name": d.display_name,
        "version": d.version,
        "when_to_use": d.when_to_use,
        "type": d.type,
        "layer": d.layer,
        "tags": d.tags,
        "annotations": d.annotations,
        "timeout": d.timeout,
        "max_retries": d.max_retries,
        "dependencies": d.dependencies,
        "cost": d.cost,
        "examples": d.examples,
    }


def build_tool(d: ToolDefinition, target: ActionTarget) -> BaseTool:
    """The core tool for ``d``; raises :class:`BuildError` naming each problem's field."""
    if d.actions is None:
        problems = _nested_defaults(d.parameters, ("parameters",))
        if problems:
            raise BuildError(problems)
        try:
            return Tool(
                d.name,
                d.description,
                list(d.parameters),
                target(d.name, False),
                output_schema=d.output_schema,
                output_description=d.output_description,
                **_tool_fields(d),
            )
        except ToolDefinitionError as exc:
            raise BuildError(_locate_problems(exc.problems, d.parameters, ())) from None
    actions: dict[str, Action] = {}
    problems = []
    for name, a in d.actions.items():
        prefix: Loc = ("actions", name)
        nested = _nested_defaults(a.parameters, (*prefix, "parameters"))
        if nested:
            problems.extend(nested)
            continue
        try:
            actions[name] = action_from_schema(
                target(name, True),
                name=name,
                subject=f"{d.name}.{name}",
                description=a.description,
                parameters=parameters_to_schema(a.parameters, subject=f"{d.name}.{name}"),
                output_schema=a.output_schema,
                output_description=a.output_description,
                when_to_use=a.when_to_use,
                annotations=a.annotations,
                examples=a.examples,
            )
        except ToolDefinitionError as exc:
            problems.extend(_locate_problems(exc.problems, a.parameters, prefix))
    if problems:
        raise BuildError(problems)
    try:
        spec = build_tool_spec(
            d.name, d.description, {n: a.spec for n, a in actions.items()}, _tool_fields(d)
        )
    except ToolDefinitionError as exc:
        raise BuildError([((), p) for p in exc.problems]) from None
    return DeclaredTool(spec, actions)


def _locate_problems(
    problems: Sequence[str], params: Sequence[ToolParameter], prefix: Loc
) -> list[tuple[Loc, str]]:
    """Map the core's problem texts back to the fields they concern."""
    index = {p.name: i for i, p in enumerate(params)}
    out: list[tuple[Loc, str]] = []
    for problem in problems:
        loc: Loc = prefix
        message = problem
        named, numbered = _NAMED.search(problem), _NUMBERED.search(problem)
        if named and named["name"] in index:
            i = index[named["name"]]
            loc = (*prefix, "parameters", i)
            if "default" in problem:
                loc = (*loc, "default")
                message = _default_problem(params[i]) or problem
        elif numbered:
            loc = (*prefix, "parameters", int(numbered["n"]) - 1)
        elif problem.startswith("output schema"):
            loc = (*prefix, "output_schema")
        elif problem.startswith("parameter schema"):
            loc = (*prefix, "parameters")
        out.append((loc, message))
    return out


def _default_problem(param: ToolParameter) -> str | None:
    """Why ``param``'s default breaks its own constraints, in one line (``None`` if it doesn't)."""
    schema = {k: v for k, v in param.to_json_schema().items() if k != "default"}
    try:
        compile_schema(schema, forbid_extra=False).validate_python(param.default, strict=True)
    except SchemaCompileError as exc:
        return f"cannot check the default: {exc}"
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        return f"default {param.default!r} breaks its own constraints: " + (
            f"{where}: {first['msg']}" if where else first["msg"]
        )
    return None


def _nested_defaults(params: Sequence[ToolParameter], prefix: Loc) -> list[tuple[Loc, str]]:
    """Defaults inside object parameters (the core checks only the top level)."""
    problems: list[tuple[Loc, str]] = []

    def visit(p: ToolParameter, loc: Loc) -> None:
        for key, child in (p.properties or {}).items():
            child_loc = (*loc, "properties", key)
            if child.has_default:
                problem = _default_problem(child)
                if problem:
                    problems.append(((*child_loc, "default"), problem))
            visit(child, child_loc)

    for i, p in enumerate(params):
        if p.properties:
            visit(p, (*prefix, i))
    return problems

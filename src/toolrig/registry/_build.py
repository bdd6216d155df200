"""Turn a `ToolDefinition` into a runnable core tool (validators compiled here, once).

The definition's options are the core's `ToolOptions`, so they
pass through as one object. Problems come back located (``("actions", "check",
"parameters", 0, "default")``) from the core's structured problems, so the loader can name
the file's line and field.

When the code is a ``BaseTool``, its own actions are the tool's actions (its validation, its
output checks, its context), described by the definition wherever the definition says
something: descriptions and options given in the YAML win, the rest is the class's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolrig.core.define._action import Action
from toolrig.core.define._base import BaseTool
from toolrig.core.define._declare import schema_action, with_output_schema
from toolrig.core.define._function_tool import Tool
from toolrig.core.model._errors import Loc, ToolDefinitionError
from toolrig.core.model._names import ActionRef
from toolrig.core.model._options import ActionOptions, ToolOptions
from toolrig.core.model._spec import build_tool_spec, tool_options
from toolrig.core.schema._params import ToolParameter
from toolrig.registry._definition import ToolDefinition
from toolrig.registry._shapes import parameter_schema

__all__ = ["ActionTarget", "BuildError", "Code", "Targets", "build_tool"]

Code = Callable[..., Any] | Action
"""What runs an action: a callable taking the arguments as keywords, or a tool's own action."""
ActionTarget = Callable[[str, bool], Code]
"""``(action name, multi) -> code`` supplying what runs an action."""

_AREAS = {"parameter schema": "parameters", "output schema": "output_schema"}
"""Problems of the action builder that arrive as text, by their first words -> the field."""


class BuildError(ValueError):
    """A definition that passed the model but cannot become a tool; problems carry locations."""

    def __init__(self, problems: list[tuple[Loc, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(m for _, m in problems))


@dataclass(frozen=True, slots=True)
class Targets:
    """What each action of a definition runs, and the tool object when the code is one."""

    code: ActionTarget
    tool: BaseTool | None = None
    """The bound ``BaseTool`` instance: its options fill in what the definition leaves out."""
    check: Callable[[], list[tuple[Loc, str]]] | None = None
    """Imports the code named by import path for the actions built so far, and returns what
    failed, located (``None``: nothing is imported)."""


def build_tool(d: ToolDefinition, target: Targets | ActionTarget) -> BaseTool:
    """The core tool for ``d``; raises `BuildError` naming each problem's field."""
    targets = target if isinstance(target, Targets) else Targets(target)
    if d.actions is None:
        code = targets.code(d.name, False)
        if not isinstance(code, Action):
            return _function_tool(d, code)
        given = _given(d, ActionOptions, description=d.description)
        given.pop("annotations", None)  # the tool's, here
        action = _adopted(code, d.name, given, d.parameters, ())
        return _assemble(d, {d.name: action}, targets.tool)
    actions: dict[str, Action] = {}
    problems: list[tuple[Loc, str]] = []
    for name, a in d.actions.items():
        prefix: Loc = ("actions", name)
        code = targets.code(name, True)
        try:
            if isinstance(code, Action):
                actions[name] = _adopted(code, name, _given(a, ActionOptions), a.parameters, prefix)
            else:
                subject = ActionRef(d.name, name, True).call_name
                actions[name] = schema_action(
                    code,
                    name=name,
                    subject=subject,
                    parameters=parameter_schema(a.parameters, subject=subject),
                    options=a.options,
                )
        except ToolDefinitionError as exc:
            problems.extend(_located(exc, prefix))
        except BuildError as exc:
            problems.extend(exc.problems)
    if problems:
        raise BuildError(problems)
    return _assemble(d, actions, targets.tool)


def _function_tool(d: ToolDefinition, code: Callable[..., Any]) -> Tool:
    try:
        return Tool(
            d.name,
            d.description,
            parameter_schema(d.parameters, subject=d.name),
            code,
            output_schema=d.output_schema,
            output_description=d.output_description,
            options=d,  # a validated ToolOptions: only its option fields are read
        )
    except ToolDefinitionError as exc:
        raise BuildError(_located(exc, ())) from None


def _assemble(d: ToolDefinition, actions: dict[str, Action], tool: BaseTool | None) -> BaseTool:
    """The tool of ``actions``, with the definition's options over the bound tool's own."""
    try:
        options = d.options
        if tool is not None:
            own = tool.spec.options
            given = {key: getattr(own, key) for key in ToolOptions.model_fields}
            given.update(_given(d, ToolOptions))
            if "annotations" in d.model_fields_set:
                given["annotations"] = own.annotations.merged(d.annotations)
            options = tool_options(d.name, given)
        spec = build_tool_spec(
            d.name, d.description, {n: a.spec for n, a in actions.items()}, options
        )
    except ToolDefinitionError as exc:
        raise BuildError(_located(exc, ())) from None
    return BaseTool.from_actions(spec, actions)


def _given(model: Any, options: type[ToolOptions | ActionOptions], **more: Any) -> dict[str, Any]:
    """The ``options`` fields that the definition ``model`` gives (plus ``more``)."""
    fields = model.model_fields_set & set(options.model_fields)
    return {**{key: getattr(model, key) for key in fields}, **more}


def _adopted(
    code: Action, name: str, given: Mapping[str, Any], declared: Sequence[ToolParameter], at: Loc
) -> Action:
    """A tool class's own action, named ``name`` and described by the definition where it
    says something. Its parameters stay the class's (they are what it validates); the
    definition may list them only by the same names."""
    takes = sorted(code.spec.parameters.get("properties", {}))
    listed = sorted(p.name or "" for p in declared)
    if declared and listed != takes:
        raise BuildError(
            [
                (
                    (*at, "parameters"),
                    f"the bound tool's action `{code.spec.name}` takes "
                    f"{', '.join(takes) or 'no parameters'}; the definition lists "
                    f"{', '.join(listed)} (leave `parameters` out to use the tool's own)",
                )
            ]
        )
    update = {key: value for key, value in given.items() if key != "output_schema"}
    adopted = code.replace(spec=code.spec.model_copy(update={**update, "name": name}))
    schema = given.get("output_schema")
    if schema is not None:
        try:
            adopted = with_output_schema(adopted, schema, subject=name)
        except ToolDefinitionError as exc:
            raise BuildError([((*at, "output_schema"), str(exc))]) from None
    return adopted


def _located(exc: ToolDefinitionError, prefix: Loc) -> list[tuple[Loc, str]]:
    """The core's problems with their fields, inside ``prefix``."""
    out: list[tuple[Loc, str]] = []
    for problem in exc.problems:
        loc = getattr(problem, "loc", None)
        if loc is None:
            area = _AREAS.get(problem.partition(":")[0])
            loc = (area,) if area else ()
        out.append(((*prefix, *loc), str(problem)))
    return out

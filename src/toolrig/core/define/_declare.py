"""Declaring actions: the `action` decorator and the two builders every definition style
uses to turn a callable and its `ActionOptions` into an `Action` (one from the signature,
one from a JSON Schema).

Reading a tool class's body (`class_actions`) lives here too, so
`toolrig.core.define._base` holds only the tool object. The option, spec and parameter
models are imported by the functions that build them: `action` comes with the package, the
models (and pydantic, which ``import toolrig`` does not import) with the first definition."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, Unpack, overload

from toolrig.core.define._action import Action, action_from_function, action_from_schema
from toolrig.core.model._errors import ToolDefinitionError
from toolrig.core.model._names import ActionRef
from toolrig.core.model._option_keys import ActionOptionsDict

if TYPE_CHECKING:
    from toolrig.core.model._options import ActionOptions

__all__ = [
    "action",
    "action_options",
    "class_actions",
    "function_action",
    "schema_action",
    "with_output_schema",
]

F = TypeVar("F", bound=Callable[..., Any])
_MARK = "__toolrig_action__"


@dataclass(frozen=True, slots=True)
class _Mark:
    """What ``@action(...)`` left on a method: the action's name (if not the method's)."""

    name: str | None
    options: ActionOptions


def action_options(subject: str, fields: Mapping[str, Any]) -> ActionOptions:
    """``fields`` validated as `ActionOptions`; problems raise one
    `ToolDefinitionError`."""
    from pydantic import ValidationError

    from toolrig.core.model._options import ActionOptions
    from toolrig.core.model._spec import definition_error

    try:
        return ActionOptions(**fields)
    except ValidationError as exc:
        raise definition_error(subject, exc) from None


@overload
def action(func: F, /) -> F: ...
@overload
def action(
    *, name: str | None = None, **options: Unpack[ActionOptionsDict]
) -> Callable[[F], F]: ...
def action(
    func: F | None = None, /, *, name: str | None = None, **options: Unpack[ActionOptionsDict]
) -> F | Callable[[F], F]:
    """Mark a method of a `BaseTool` subclass as an action (bare or with
    options). The options are checked here, when the class is written."""
    mark_data = _Mark(name, action_options(f"@action {name or ''}".strip(), options))

    def mark(f: F) -> F:
        if not callable(f):
            raise ToolDefinitionError("@action", f"expected a function, got {f!r}")
        setattr(f, _MARK, mark_data)
        return f

    return mark(func) if func is not None else mark


def function_action(
    func: Callable[..., Any],
    *,
    name: str,
    subject: str,
    options: ActionOptions,
    skip_first: bool = False,
) -> Action:
    """An action whose parameters come from ``func``'s type hints and docstring.

    A declared ``output_schema`` replaces the one the return annotation implies; the
    arguments are still validated from the signature (so typed values arrive converted).
    """
    built = action_from_function(
        func,
        name=name,
        subject=subject,
        description=options.description,
        skip_first=skip_first,
        output_description=options.output_description,
        when_to_use=options.when_to_use,
        annotations=options.annotations,
        examples=options.examples,
    )
    if options.output_schema is None:
        return built
    return with_output_schema(built, options.output_schema, subject=subject)


def with_output_schema(action: Action, schema: Mapping[str, Any], *, subject: str) -> Action:
    """``action`` with its output declared and checked by ``schema`` instead.

    A new action (actions are frozen); only the output checker is compiled, the arguments'
    validator is kept.
    """
    checker = action_from_schema(
        action.func,
        name=action.name,
        subject=subject,
        description="",
        parameters={},
        output_schema=schema,
    )
    return action.replace(
        output_validator=checker.output_validator,
        spec=action.spec.model_copy(
            update={
                "output_schema": checker.spec.output_schema,
                "output_type": checker.spec.output_type,
            }
        ),
    )


def schema_action(
    func: Callable[..., Any],
    *,
    name: str,
    subject: str,
    parameters: Mapping[str, Any],
    options: ActionOptions,
    output_type: str | None = None,
) -> Action:
    """An action whose parameters are given as a JSON Schema (declared parameters, YAML,
    imports); ``options.description`` ``None`` means no description."""
    return action_from_schema(
        func,
        name=name,
        subject=subject,
        description=options.description or "",
        parameters=parameters,
        output_schema=options.output_schema,
        output_type=output_type,
        output_description=options.output_description,
        when_to_use=options.when_to_use,
        annotations=options.annotations,
        examples=options.examples,
    )


def class_actions(
    cls: type, subject: str, inherited: Mapping[str, Action], reserved: Collection[str]
) -> dict[str, Action]:
    """The actions declared in the body of tool class ``cls`` (after the ``inherited`` ones);
    every problem is reported in one `ToolDefinitionError`.

    ``reserved`` names the tool base class's own attributes, which no action may replace.
    """
    actions = dict(inherited)
    problems: list[str] = []
    for attr, value in cls.__dict__.items():
        mark = getattr(value, _MARK, None)
        if not isinstance(mark, _Mark):
            continue
        aname = mark.name or attr
        if attr in reserved:
            problems.append(
                f"action method `{attr}` would replace BaseTool.{attr}; name the method "
                f"differently and keep the action's name with @action(name={attr!r})"
            )
            continue
        if isinstance(value, staticmethod | classmethod):
            problems.append(f"action `{aname}`: static and class methods cannot be actions")
            continue
        try:
            actions[aname] = function_action(
                value,
                name=aname,
                subject=ActionRef(subject, aname, True).call_name,
                options=mark.options,
                skip_first=True,
            )
        except ToolDefinitionError as exc:
            problems.extend(str(exc).splitlines())
    for schema in cls.__dict__.get("actions", ()) or ():
        try:
            declared = _declared_action(cls, schema, subject, reserved)
        except ToolDefinitionError as exc:
            problems.extend(str(exc).splitlines())
            continue
        if isinstance(declared, str):
            problems.append(declared)
        else:
            actions[declared.name] = declared
    if problems:
        raise ToolDefinitionError(cls.__name__, [p.strip(" -") for p in problems if p.strip()])
    return actions


def _declared_action(
    cls: type, schema: object, subject: str, reserved: Collection[str]
) -> Action | str:
    """The action of one `ActionSchema` in a class's ``actions`` list, or what is
    wrong with the declaration."""
    from toolrig.core.define._action_schema import ActionSchema
    from toolrig.core.schema._params import parameters_to_schema

    if not isinstance(schema, ActionSchema):
        return f"`actions` must hold ActionSchema objects, got {schema!r}"
    method_name = schema.method or schema.name
    if method_name in reserved:
        return (
            f"action {schema.name!r} would run BaseTool.{method_name}; implement it in a "
            "method with another name and give that name as ActionSchema(method=...)"
        )
    method = getattr(cls, method_name, None)
    if method is None or not callable(method):
        return (
            f"action {schema.name!r} is declared but the class has no method "
            f"`{method_name}` to run it"
        )
    where = ActionRef(subject, schema.name, True).call_name
    options = schema.options
    if options.output_schema is None and schema.output_type:
        options = options.model_copy(update={"output_schema": {"type": schema.output_type}})
    return schema_action(
        method,
        name=schema.name,
        subject=where,
        parameters=parameters_to_schema(schema.parameters, subject=where),
        options=options,
        output_type=schema.output_type,
    )

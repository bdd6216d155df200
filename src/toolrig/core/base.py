"""``BaseTool``: a tool class that groups several named actions (read / write / update / ...).

Two declaration styles, freely mixed in one class:

* concise: methods decorated with :func:`action`, schema taken from type hints and docstrings;
* explicit: ``actions = [ActionSchema(name=..., parameters=[ActionParam(...)], ...)]`` with a
  method of the same name implementing each action.

Actions are compiled once per class (in ``__init_subclass__``) and bound once per instance.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, overload

from pydantic import BaseModel, ConfigDict, ValidationError

from toolrig.core.action import Action, action_from_function, action_from_schema
from toolrig.core.errors import ErrorCode, ToolDefinitionError
from toolrig.core.ids import new_call_id
from toolrig.core.invoke import invoke, invoke_async
from toolrig.core.params import ToolParameter, parameters_to_schema
from toolrig.core.result import ToolResult, error_result
from toolrig.core.spec import ActionSpec, ToolAnnotations, ToolCost, ToolSpec
from toolrig.core.suggest import closest

__all__ = ["ActionSchema", "AssembledTool", "BaseTool", "action"]

F = TypeVar("F", bound=Callable[..., Any])
_MARK = "__toolrig_action__"


@dataclass(frozen=True, slots=True, kw_only=True)
class _ActionOptions:
    name: str | None = None
    description: str | None = None
    output_description: str | None = None
    when_to_use: str | None = None
    annotations: ToolAnnotations | None = None
    examples: tuple[str, ...] = ()


@overload
def action(func: F, /) -> F: ...
@overload
def action(
    *,
    name: str | None = None,
    description: str | None = None,
    output_description: str | None = None,
    when_to_use: str | None = None,
    annotations: ToolAnnotations | None = None,
    examples: Sequence[str] = (),
) -> Callable[[F], F]: ...
def action(
    func: F | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    output_description: str | None = None,
    when_to_use: str | None = None,
    annotations: ToolAnnotations | None = None,
    examples: Sequence[str] = (),
) -> F | Callable[[F], F]:
    """Mark a method of a :class:`BaseTool` subclass as an action (bare or with options)."""
    options = _ActionOptions(
        name=name,
        description=description,
        output_description=output_description,
        when_to_use=when_to_use,
        annotations=annotations,
        examples=tuple(examples),
    )

    def mark(f: F) -> F:
        if not callable(f):
            raise ToolDefinitionError("@action", f"expected a function, got {f!r}")
        setattr(f, _MARK, options)
        return f

    return mark(func) if func is not None else mark


class ActionSchema(BaseModel):
    """An action declared as data (the explicit style); its method has the same name."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    name: str
    description: str = ""
    parameters: list[ToolParameter] = []
    output_type: str | None = None
    output_description: str | None = None
    output_schema: dict[str, Any] | None = None
    when_to_use: str | None = None
    annotations: ToolAnnotations | None = None
    examples: tuple[str, ...] = ()
    method: str | None = None
    """Name of the implementing method, when it differs from ``name``."""


_TOOL_FIELDS = (
    "display_name",
    "version",
    "when_to_use",
    "type",
    "layer",
    "tags",
    "annotations",
    "timeout",
    "max_retries",
    "dependencies",
    "cost",
    "examples",
)


class BaseTool:
    """A tool with one or more named actions. Subclass it, or use :class:`~toolrig.Tool` /
    :func:`~toolrig.tool` for single functions."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    display_name: ClassVar[str | None] = None
    version: ClassVar[str] = "0.1.0"
    when_to_use: ClassVar[str | None] = None
    type: ClassVar[str | None] = None
    layer: ClassVar[str | None] = None
    tags: ClassVar[Sequence[str]] = ()
    annotations: ClassVar[ToolAnnotations | None] = None
    timeout: ClassVar[float | None] = None
    max_retries: ClassVar[int] = 0
    dependencies: ClassVar[Sequence[str]] = ()
    cost: ClassVar[ToolCost | None] = None
    examples: ClassVar[Sequence[str]] = ()
    actions: ClassVar[Sequence[ActionSchema]] = ()
    """Explicitly declared actions (the explicit style)."""

    _class_actions: ClassVar[dict[str, Action]] = {}
    _class_spec: ClassVar[ToolSpec | None] = None

    _spec: ToolSpec
    _bound: dict[str, Action]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("_abstract_tool", False):
            return
        if not cls.__dict__.get("name"):
            cls.name = _snake(cls.__name__)
        if not cls.__dict__.get("description") and cls.__doc__:
            cls.description = cls.__doc__.strip()
        cls._class_actions = _collect_actions(cls)
        if cls._class_actions:
            cls._class_spec = build_tool_spec(
                cls.name,
                cls.description,
                {n: a.spec for n, a in cls._class_actions.items()},
                {f: getattr(cls, f) for f in _TOOL_FIELDS},
            )

    def __init__(self) -> None:
        spec = type(self)._class_spec
        if spec is None:
            raise ToolDefinitionError(
                type(self).__name__,
                "a tool class needs at least one action: decorate a method with @action or "
                "declare `actions = [ActionSchema(...)]`",
            )
        self._install(
            spec, {n: a.bind(self, spec.name) for n, a in type(self)._class_actions.items()}
        )

    def _install(self, spec: ToolSpec, actions: dict[str, Action]) -> None:
        for a in actions.values():
            a.tool = spec.name
        self._spec = spec
        self._bound = actions

    # -- description -------------------------------------------------------------------------
    @property
    def spec(self) -> ToolSpec:
        """The plain-data description of this tool (what providers and prompts read)."""
        return self._spec

    def get_action_names(self) -> list[str]:
        """Names of this tool's actions, in declaration order."""
        return list(self._bound)

    def get_action(self, name: str) -> Action | None:
        """The runnable action by name, or ``None``."""
        return self._bound.get(name)

    def get_schema(self) -> dict[str, Any]:
        """Tool name, description and, per action, description, parameters and output."""
        spec = self._spec
        return {
            "name": spec.name,
            "description": spec.description,
            "version": spec.version,
            "actions": {
                name: {
                    "description": a.description,
                    "parameters": a.parameters,
                    "output": {"type": a.output_type, "description": a.output_description},
                }
                for name, a in spec.actions.items()
            },
        }

    def to_prompt(self) -> str:
        """This tool described for a system prompt: inputs, outputs and when to use it."""
        from toolrig.core.prompt import render_tool

        return render_tool(self._spec)

    # -- calling ---------------------------------------------------------------------------
    def validate_params(self, action: str, params: Mapping[str, Any]) -> tuple[bool, str]:
        """``(True, "")`` if ``params`` are valid for ``action``, else ``(False, message)``."""
        from toolrig.core.validation import ArgumentsInvalid

        bound = self._bound.get(action)
        if bound is None:
            return False, self._unknown_action(action)
        try:
            bound.validator.validate(params)
        except ArgumentsInvalid as exc:
            return False, exc.error.message
        return True, ""

    def execute(
        self,
        action: str,
        params: Mapping[str, Any] | None = None,
        /,
        *,
        strict: bool = False,
        tool_call_id: str | None = None,
        **kwargs: Any,
    ) -> ToolResult:
        """Run ``action`` with ``params`` (or keyword arguments) and return a :class:`ToolResult`.

        Never raises for bad input or a failing tool. Timeouts and retries are applied by
        :class:`~toolrig.ToolExecutor`; this runs the action directly.
        """
        bound = self._bound.get(action)
        if bound is None:
            return self._not_found(action, tool_call_id)
        return invoke(bound, _merge(params, kwargs), strict=strict, tool_call_id=tool_call_id)

    async def aexecute(
        self,
        action: str,
        params: Mapping[str, Any] | None = None,
        /,
        *,
        strict: bool = False,
        tool_call_id: str | None = None,
        **kwargs: Any,
    ) -> ToolResult:
        """Async :meth:`execute`; sync actions run in a worker thread."""
        bound = self._bound.get(action)
        if bound is None:
            return self._not_found(action, tool_call_id)
        return await invoke_async(
            bound, _merge(params, kwargs), strict=strict, tool_call_id=tool_call_id
        )

    def _unknown_action(self, action: str) -> str:
        names = self.get_action_names()
        text = f"Tool `{self._spec.name}` has no action {action!r}; action not found."
        near = closest(str(action), names)
        if near:
            text += f" Did you mean {' or '.join(repr(n) for n in near)}?"
        return text + f" Available actions: {', '.join(names)}."

    def _not_found(self, action: str, tool_call_id: str | None) -> ToolResult:
        return error_result(
            ErrorCode.NOT_FOUND,
            self._unknown_action(action),
            hint="Call one of the available actions.",
            tool=self._spec.name,
            action=str(action),
            tool_call_id=tool_call_id or new_call_id(),
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._spec.name!r} actions={self.get_action_names()}>"


class AssembledTool(BaseTool):
    """A tool assembled from data: a spec and the runnable action for each of its actions
    (YAML ``actions:`` maps, tools imported from other systems)."""

    _abstract_tool = True

    def __init__(self, spec: ToolSpec, actions: Mapping[str, Action]) -> None:
        if set(spec.actions) != set(actions):
            raise ToolDefinitionError(
                spec.name,
                f"the spec's actions {sorted(spec.actions)} differ from those given "
                f"{sorted(actions)}",
            )
        self._install(spec, dict(actions))


def _merge(params: Mapping[str, Any] | None, kwargs: dict[str, Any]) -> Any:
    if not kwargs:
        return {} if params is None else params
    if params is None:
        return kwargs
    if not isinstance(params, Mapping):
        return params  # let validation report it
    return {**params, **kwargs}


def build_tool_spec(
    name: str, description: str, actions: dict[str, ActionSpec], fields: Mapping[str, Any]
) -> ToolSpec:
    """A validated :class:`ToolSpec`; problems become one :class:`ToolDefinitionError`."""
    data = {k: v for k, v in fields.items() if v is not None}
    for key in ("tags", "dependencies", "examples"):
        if key in data:
            if isinstance(data[key], str):
                raise ToolDefinitionError(
                    name, f"`{key}` must be a list of strings, not one string"
                )
            data[key] = tuple(data[key])
    try:
        return ToolSpec(name=name, description=description, actions=actions, **data)
    except ValidationError as exc:
        raise ToolDefinitionError(
            name or "tool",
            [f"{'.'.join(map(str, e['loc'])) or 'tool'}: {e['msg']}" for e in exc.errors()],
        ) from None


def _collect_actions(cls: type[BaseTool]) -> dict[str, Action]:
    actions: dict[str, Action] = {}
    problems: list[str] = []
    for base in reversed(cls.__mro__[1:]):
        actions.update(getattr(base, "_class_actions", {}) or {})
    for attr, value in cls.__dict__.items():
        options = getattr(value, _MARK, None)
        if options is None:
            continue
        aname = options.name or attr
        if attr in _RESERVED:
            problems.append(
                f"action method `{attr}` would replace BaseTool.{attr}; name the method "
                f"differently and keep the action's name with @action(name={attr!r})"
            )
            continue
        if isinstance(value, staticmethod | classmethod):
            problems.append(f"action `{aname}`: static and class methods cannot be actions")
            continue
        try:
            actions[aname] = action_from_function(
                value,
                name=aname,
                subject=f"{cls.name}.{aname}",
                description=options.description,
                skip_first=True,
                output_description=options.output_description,
                when_to_use=options.when_to_use,
                annotations=options.annotations,
                examples=options.examples,
            )
        except ToolDefinitionError as exc:
            problems.extend(str(exc).splitlines())
    for schema in cls.__dict__.get("actions", ()) or ():
        if not isinstance(schema, ActionSchema):
            problems.append(f"`actions` must hold ActionSchema objects, got {schema!r}")
            continue
        method_name = schema.method or schema.name
        method = getattr(cls, method_name, None)
        if method_name in _RESERVED:
            problems.append(
                f"action {schema.name!r} would run BaseTool.{method_name}; implement it in a "
                "method with another name and give that name as ActionSchema(method=...)"
            )
            continue
        if method is None or not callable(method):
            problems.append(
                f"action {schema.name!r} is declared but the class has no method "
                f"`{schema.method or schema.name}` to run it"
            )
            continue
        try:
            actions[schema.name] = action_from_schema(
                method,
                name=schema.name,
                subject=f"{cls.name}.{schema.name}",
                description=schema.description,
                parameters=parameters_to_schema(
                    schema.parameters, subject=f"{cls.name}.{schema.name}"
                ),
                output_schema=schema.output_schema
                or ({"type": schema.output_type} if schema.output_type else None),
                output_type=schema.output_type,
                output_description=schema.output_description,
                when_to_use=schema.when_to_use,
                annotations=schema.annotations,
                examples=schema.examples,
            )
        except ToolDefinitionError as exc:
            problems.extend(str(exc).splitlines())
    if problems:
        raise ToolDefinitionError(cls.__name__, [p.strip(" -") for p in problems if p.strip()])
    return actions


_RESERVED = frozenset(
    name for name in dir(BaseTool) if not name.startswith("__") and name not in ("actions",)
)
"""BaseTool's own attributes and methods: an action method must not take one of these names."""


def _snake(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and not name[i - 1].isupper():
            out.append("_")
        out.append(ch.lower())
    return "".join(out)

"""``BaseTool``: a tool class that groups several named actions (read / write / update / ...).

Two declaration styles, freely mixed in one class:

* concise: methods decorated with `action`, schema taken from type hints and docstrings;
* explicit: ``actions = [ActionSchema(name=..., parameters=[ToolParameter(...)], ...)]`` with a
  method of the same name implementing each action.

Actions are compiled once per class (in ``__init_subclass__``) and bound once per instance.

Tool options are written as class attributes (``name = "file_tool"``, ``timeout = 10``, ...).
They are read once, when the class is created, into the class's spec; on an instance each such
attribute reads the spec, so ``tool.timeout == tool.spec.timeout`` whichever way the tool was
built.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from toolrig.core.context._runner import default_runner
from toolrig.core.define._action import Action
from toolrig.core.define._declare import action, class_actions
from toolrig.core.model._errors import ToolDefinitionError
from toolrig.core.model._names import ActionRef
from toolrig.core.model._option_keys import ToolOptionsDict
from toolrig.core.model._suggest import not_found_message
from toolrig.core.result._result import ToolResult

if TYPE_CHECKING:
    from toolrig.core.define._action_schema import ActionSchema
    from toolrig.core.model._options import ToolAnnotations, ToolCost
    from toolrig.core.model._spec import ToolSpec
    from toolrig.core.model._unset import Unset

__all__ = ["BaseTool", "action"]

_OPTIONS = ("name", "description", *ToolOptionsDict.__annotations__)
"""The tool attributes a class declares and an instance reads from its spec (the keys of
`ToolOptionsDict`, the fields of `ToolOptions`: read without building the model)."""


@functools.cache
def _default(field: str) -> Any:
    """The value of an option a class does not declare (computed on first use: a default
    factory builds a model, which would compile a validator while the package imports)."""
    if field in ("name", "description"):
        return ""
    from toolrig.core.model._options import ToolOptions

    return ToolOptions.model_fields[field].get_default(call_default_factory=True)


class _SpecField:
    """A tool option as an attribute: on an instance, the value in its spec (so the two can
    never disagree); on the class, the value the class declared.

    Setting it on an instance is refused: the spec is frozen, and a second copy of the value
    is exactly what this attribute exists to prevent.
    """

    __slots__ = ("field",)

    def __init__(self, field: str) -> None:
        self.field = field

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is not None:
            spec = getattr(instance, "_spec", None)
            if spec is not None:
                return getattr(spec, self.field)
            owner = type(instance)  # still in __init__: what the class declared
        declared: dict[str, Any] = getattr(owner, "_declared", {})
        return declared[self.field] if self.field in declared else _default(self.field)

    def __set__(self, instance: object, value: Any) -> None:
        raise AttributeError(
            f"cannot set `{self.field}` on {type(instance).__name__} object: it is read from "
            "the tool's spec, which is frozen; declare it on the class (or pass it when the "
            "tool is built)"
        )


class BaseTool:
    """A tool with one or more named actions. Subclass it, or use `Tool` /
    `tool` for single functions."""

    # Declared here for type checkers; at run time each is a _SpecField (installed below).
    name: ClassVar[str]
    description: ClassVar[str]
    display_name: ClassVar[str | None]
    version: ClassVar[str]
    when_to_use: ClassVar[str | None]
    type: ClassVar[str | None]
    layer: ClassVar[str | None]
    tags: ClassVar[Sequence[str]]
    annotations: ClassVar[ToolAnnotations]
    timeout: ClassVar[float | Unset | None]
    max_retries: ClassVar[int]
    max_result_chars: ClassVar[int | str | None]
    isolation: ClassVar[str]
    runs_on: ClassVar[str | None]
    dependencies: ClassVar[Sequence[str]]
    cost: ClassVar[ToolCost | None]
    examples: ClassVar[Sequence[str]]
    icons: ClassVar[Sequence[Any]]
    scopes: ClassVar[Sequence[str]]
    actions: ClassVar[Sequence[ActionSchema]] = ()
    """Explicitly declared actions (the explicit style)."""

    _declared: ClassVar[dict[str, Any]] = {}
    """The options this class declared (its own and inherited), read once from its body."""
    _class_actions: ClassVar[dict[str, Action]] = {}
    _class_spec: ClassVar[ToolSpec | None] = None

    _spec: ToolSpec
    _bound: dict[str, Action]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = {key: cls.__dict__[key] for key in _OPTIONS if key in cls.__dict__}
        for key in own:
            delattr(cls, key)  # from now on the spec answers (see _SpecField)
        declared = {**cls._declared, **own}
        if cls.__dict__.get("_abstract_tool", False):
            cls._declared = declared
            return
        if not own.get("name"):
            declared["name"] = _snake(cls.__name__)
        if not own.get("description") and cls.__doc__:
            declared["description"] = cls.__doc__.strip()
        cls._declared = declared
        name = declared["name"]
        from toolrig.core.model._spec import build_tool_spec, tool_options

        options = tool_options(
            name, {k: v for k, v in declared.items() if k not in ("name", "description")}
        )
        cls._class_actions = class_actions(cls, name, _inherited_actions(cls), reserved=_RESERVED)
        if cls._class_actions:
            cls._class_spec = build_tool_spec(
                name,
                declared.get("description", ""),
                {n: a.spec for n, a in cls._class_actions.items()},
                options,
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
        plain = (
            not isinstance(spec.timeout, float | int)  # unset or None: no limit of its own
            and spec.max_retries == 0
            and spec.isolation == "thread"
            and spec.runs_on is None
        )
        self._spec = spec
        self._bound = {
            name: a
            if (a.tool, a.plain) == (spec.name, plain)
            else a.replace(tool=spec.name, plain=plain)
            for name, a in actions.items()
        }

    @classmethod
    def from_actions(cls, spec: ToolSpec, actions: Mapping[str, Action]) -> BaseTool:
        """A tool built from data: a spec and the runnable action of each of its actions (YAML
        ``actions:`` maps, OpenAPI operations, tools imported from other systems)."""
        _check_actions(spec, actions)
        tool = BaseTool.__new__(BaseTool)
        tool._install(spec, dict(actions))
        return tool

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
        from toolrig.core.model._prompt import render_tool

        return render_tool(self._spec)

    # -- calling ---------------------------------------------------------------------------
    def validate_params(self, action: str, params: Mapping[str, Any]) -> tuple[bool, str]:
        """``(True, "")`` if ``params`` are valid for ``action``, else ``(False, message)``."""
        from toolrig.core.schema._validation import ArgumentsInvalid

        bound = self.get_action(action)
        if bound is None:
            asked = ActionRef(self.spec.name, action, True).call_name
            return False, not_found_message(asked, {self.spec.name: self.spec})
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
        strict: bool | None = None,
        tool_call_id: str | None = None,
        **kwargs: Any,
    ) -> ToolResult:
        """Run ``action`` with ``params`` (or keyword arguments) and return a `ToolResult`.

        The call goes through the same pipeline as `ToolExecutor.execute_sync`
        (validation, the tool's time limit and retries, output checks), on the default
        executor. Never raises for bad input or a failing tool.
        """
        return default_runner().run_tool_sync(
            self, action, _merge(params, kwargs), strict=strict, tool_call_id=tool_call_id
        )

    async def aexecute(
        self,
        action: str,
        params: Mapping[str, Any] | None = None,
        /,
        *,
        strict: bool | None = None,
        tool_call_id: str | None = None,
        **kwargs: Any,
    ) -> ToolResult:
        """Async `execute`; sync actions run in a worker thread."""
        return await default_runner().run_tool(
            self, action, _merge(params, kwargs), strict=strict, tool_call_id=tool_call_id
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._spec.name!r} actions={self.get_action_names()}>"


def _check_actions(spec: ToolSpec, actions: Mapping[str, Action]) -> None:
    if set(spec.actions) != set(actions):
        raise ToolDefinitionError(
            spec.name,
            f"the spec's actions {sorted(spec.actions)} differ from those given {sorted(actions)}",
        )


def _owned(action: Action, tool: str, plain: bool) -> Action:
    """``action`` as ``tool``'s (a copy unless it is already: actions are frozen and shared)."""
    if action.tool == tool and action.plain == plain:
        return action
    return action.replace(tool=tool, plain=plain)


def _merge(params: Mapping[str, Any] | None, kwargs: dict[str, Any]) -> Any:
    if not kwargs:
        return {} if params is None else params
    if params is None:
        return kwargs
    if not isinstance(params, Mapping):
        return params  # let validation report it
    return {**params, **kwargs}


def _inherited_actions(cls: type[BaseTool]) -> dict[str, Action]:
    actions: dict[str, Action] = {}
    for base in reversed(cls.__mro__[1:]):
        actions.update(getattr(base, "_class_actions", {}) or {})
    return actions


for _key in _OPTIONS:
    setattr(BaseTool, _key, _SpecField(_key))

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

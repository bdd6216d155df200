"""Single-action tools: `Tool` (built from data) and the `tool` decorator."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, Unpack, overload

from typing_extensions import ParamSpec, TypeVar

from toolrig.core.define._action import Action
from toolrig.core.define._base import BaseTool
from toolrig.core.define._declare import action_options, function_action, schema_action
from toolrig.core.model._errors import ToolDefinitionError
from toolrig.core.model._option_keys import ToolOptionsDict
from toolrig.core.result._result import ToolResult

if TYPE_CHECKING:
    from toolrig.core.model._options import ActionOptions, ToolOptions
    from toolrig.core.schema._params import ToolParameter

__all__ = ["Tool", "tool"]

Parameters: TypeAlias = "Sequence[ToolParameter] | Mapping[str, Any]"
"""Declared parameters: `ToolParameter` objects, or a JSON Schema of the arguments."""

P = ParamSpec("P", default=...)
"""The wrapped function's parameters, so calling a tool object is checked like calling the
function; a bare ``Tool`` annotation means any parameters (the default)."""
R = TypeVar("R", default=Any)
"""The wrapped function's return type (``Any`` for a bare ``Tool`` annotation)."""


class Tool(BaseTool, Generic[P, R]):
    """A tool with one action that runs ``func``.

    Parameters come from ``parameters`` (a list of `ToolParameter` or a JSON Schema) when
    given, else from ``func``'s type hints and docstring. The tool's options are given as
    keywords (``timeout=5``, ``tags=[...]``, see `ToolOptions`),
    as one ``options`` object, or both (the keywords win). Calling the tool object calls
    ``func`` directly; `run` calls it through validation and returns a
    `ToolResult`. For type checkers the tool keeps ``func``'s signature
    (``Tool[P, R]``), so ``add(1, 2)`` is typed as ``add``'s return value.
    """

    _abstract_tool = True

    def __init__(
        self,
        name: str | None = None,
        description: str | None = None,
        parameters: Parameters | None = None,
        func: Callable[P, R] | None = None,
        *,
        output_schema: Mapping[str, Any] | None = None,
        output_description: str | None = None,
        options: ToolOptions | None = None,
        **more: Unpack[ToolOptionsDict],
    ) -> None:
        if func is None or not callable(func):
            raise ToolDefinitionError(name or "Tool", f"`func` must be a callable, got {func!r}")
        from toolrig.core.model._spec import build_tool_spec, tool_options

        tool_name = name or getattr(func, "__name__", "")
        if not tool_name or tool_name == "<lambda>":
            raise ToolDefinitionError("Tool", "give the tool a `name` (the function has none)")
        if options is not None and not more and _is_name(tool_name):
            # options of a validated model (a spec, a YAML definition) are not checked again
            # (that was a tenth of building a YAML tool), nor copied out of it: only the
            # option fields are read (the copy was another 3-5%)
            checked = options
        else:
            given: dict[str, Any] = {}
            if options is not None:  # only the options (a spec may be given to copy them)
                given = {key: getattr(options, key) for key in options.options.model_fields_set}
            given.update(more)
            checked = tool_options(tool_name, given)
        # a single action shares the tool's "when to use" and examples
        act = action_options(
            tool_name,
            {
                "description": description,
                "output_description": output_description,
                "output_schema": None if output_schema is None else dict(output_schema),
                "when_to_use": checked.when_to_use,
                "examples": checked.examples,
            },
        )
        action = _make_action(func, tool_name, parameters, act)
        spec = build_tool_spec(
            tool_name, action.spec.description, {tool_name: action.spec}, checked
        )
        self._func: Callable[P, R] = func
        self._install(spec, {tool_name: action})
        self.__doc__ = getattr(func, "__doc__", None)
        self.__wrapped__ = func

    @property
    def action(self) -> Action:
        """The tool's only action."""
        return self._bound[self._spec.name]

    def run(
        self,
        arguments: Mapping[str, Any] | None = None,
        /,
        *,
        strict: bool = False,
        tool_call_id: str | None = None,
        **kwargs: Any,
    ) -> ToolResult:
        """Validate and run the tool; always returns a `ToolResult`."""
        return self.execute(
            self._spec.name, arguments, strict=strict, tool_call_id=tool_call_id, **kwargs
        )

    async def arun(
        self,
        arguments: Mapping[str, Any] | None = None,
        /,
        *,
        strict: bool = False,
        tool_call_id: str | None = None,
        **kwargs: Any,
    ) -> ToolResult:
        """Async `run`."""
        return await self.aexecute(
            self._spec.name, arguments, strict=strict, tool_call_id=tool_call_id, **kwargs
        )

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call the underlying function directly (no validation), as if undecorated."""
        return self._func(*args, **kwargs)


@overload
def tool(func: Callable[P, R], /) -> Tool[P, R]: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: Parameters | None = None,
    output_schema: Mapping[str, Any] | None = None,
    output_description: str | None = None,
    options: ToolOptions | None = None,
    **more: Unpack[ToolOptionsDict],
) -> Callable[[Callable[P, R]], Tool[P, R]]: ...
def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: Parameters | None = None,
    output_schema: Mapping[str, Any] | None = None,
    output_description: str | None = None,
    options: ToolOptions | None = None,
    **more: Unpack[ToolOptionsDict],
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a (sync or async) function into a `Tool`; use bare or with options.

    Takes every keyword `Tool` takes. The schema comes from the type hints, defaults
    and docstring (or from ``parameters``). Problems with the signature are reported at
    decoration time, every one of them, naming the parameters.
    """

    def wrap(f: Callable[..., Any]) -> Tool:
        return Tool(
            name,
            description,
            parameters,
            f,
            output_schema=output_schema,
            output_description=output_description,
            options=options,
            **more,
        )

    if func is not None:
        if not callable(func):
            raise ToolDefinitionError("@tool", f"expected a function, got {func!r}")
        return wrap(func)
    return wrap


def _make_action(
    func: Callable[..., Any], name: str, parameters: Parameters | None, options: ActionOptions
) -> Action:
    """The tool's one action: from the signature, or from the declared parameters."""
    if parameters is None:
        return function_action(func, name=name, subject=name, options=options)
    if isinstance(parameters, Mapping):
        schema = dict(parameters)
    else:
        from toolrig.core.schema._params import ToolParameter, parameters_to_schema

        params = list(parameters)
        bad = [p for p in params if not isinstance(p, ToolParameter)]
        if bad:
            raise ToolDefinitionError(
                name, f"`parameters` must be ToolParameter objects, got {bad[0]!r}"
            )
        schema = parameters_to_schema(params, subject=name)
    if options.description is None:
        options = options.model_copy(update={"description": (func.__doc__ or "").strip()})
    return schema_action(func, name=name, subject=name, parameters=schema, options=options)


def _is_name(name: str) -> bool:
    """Whether ``name`` is a valid tool name (`tool_options` reports why not)."""
    from toolrig.core.model._spec import check_name

    try:
        check_name(name)
    except ValueError:
        return False
    return True

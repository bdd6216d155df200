"""Single-action tools: :class:`Tool` (built from data) and the :func:`tool` decorator."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

from toolrig.core.action import Action, action_from_function, action_from_schema
from toolrig.core.base import BaseTool, build_tool_spec
from toolrig.core.errors import ToolDefinitionError
from toolrig.core.params import ToolParameter, parameters_to_schema
from toolrig.core.result import ToolResult
from toolrig.core.spec import ToolAnnotations, ToolCost

__all__ = ["Tool", "tool"]


class Tool(BaseTool):
    """A tool with one action that runs ``func``.

    Parameters come from ``parameters`` (a list of :class:`ToolParameter` or a JSON Schema) when
    given, else from ``func``'s type hints and docstring. Calling the tool object calls ``func``
    directly; :meth:`run` calls it through validation and returns a :class:`ToolResult`.
    """

    _abstract_tool = True

    def __init__(
        self,
        name: str | None = None,
        description: str | None = None,
        parameters: Sequence[ToolParameter] | Mapping[str, Any] | None = None,
        func: Callable[..., Any] | None = None,
        *,
        when_to_use: str | None = None,
        tags: Sequence[str] = (),
        timeout: float | None = None,
        max_retries: int = 0,
        version: str = "0.1.0",
        annotations: ToolAnnotations | None = None,
        output_schema: Mapping[str, Any] | None = None,
        output_description: str | None = None,
        examples: Sequence[str] = (),
        display_name: str | None = None,
        type: str | None = None,
        layer: str | None = None,
        dependencies: Sequence[str] = (),
        cost: ToolCost | None = None,
    ) -> None:
        if func is None or not callable(func):
            raise ToolDefinitionError(name or "Tool", f"`func` must be a callable, got {func!r}")
        tool_name = name or getattr(func, "__name__", "")
        if not tool_name or tool_name == "<lambda>":
            raise ToolDefinitionError("Tool", "give the tool a `name` (the function has none)")
        action = self._make_action(
            func,
            tool_name,
            description,
            parameters,
            output_schema,
            output_description,
            when_to_use,
            tuple(examples),
        )
        spec = build_tool_spec(
            tool_name,
            action.spec.description,
            {tool_name: action.spec},
            {
                "display_name": display_name,
                "version": version,
                "when_to_use": when_to_use,
                "type": type,
                "layer": layer,
                "tags": tags,
                "annotations": annotations,
                "timeout": timeout,
                "max_retries": max_retries,
                "dependencies": dependencies,
                "cost": cost,
                "examples": examples,
            },
        )
        action.tool = tool_name
        self._func = func
        self._install(spec, {tool_name: action})
        self.__doc__ = getattr(func, "__doc__", None)
        self.__wrapped__ = func

    @staticmethod
    def _make_action(
        func: Callable[..., Any],
        name: str,
        description: str | None,
        parameters: Sequence[ToolParameter] | Mapping[str, Any] | None,
        output_schema: Mapping[str, Any] | None,
        output_description: str | None,
        when_to_use: str | None,
        examples: tuple[str, ...],
    ) -> Action:
        if parameters is None:
            action = action_from_function(
                func,
                name=name,
                subject=name,
                description=description,
                output_description=output_description,
                when_to_use=when_to_use,
                examples=examples,
            )
            if output_schema is not None:
                return action_from_schema(
                    func,
                    name=name,
                    subject=name,
                    description=action.spec.description,
                    parameters=action.spec.parameters,
                    output_schema=output_schema,
                    output_description=action.spec.output_description,
                    when_to_use=when_to_use,
                    examples=examples,
                )
            return action
        if isinstance(parameters, Mapping):
            schema = dict(parameters)
        else:
            params = list(parameters)
            bad = [p for p in params if not isinstance(p, ToolParameter)]
            if bad:
                raise ToolDefinitionError(
                    name, f"`parameters` must be ToolParameter objects, got {bad[0]!r}"
                )
            schema = parameters_to_schema(params, subject=name)
        return action_from_schema(
            func,
            name=name,
            subject=name,
            description=description or (func.__doc__ or "").strip(),
            parameters=schema,
            output_schema=output_schema,
            output_description=output_description,
            when_to_use=when_to_use,
            examples=examples,
        )

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
        """Validate and run the tool; always returns a :class:`ToolResult`."""
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
        """Async :meth:`run`."""
        return await self.aexecute(
            self._spec.name, arguments, strict=strict, tool_call_id=tool_call_id, **kwargs
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly (no validation), as if undecorated."""
        return self._func(*args, **kwargs)


@overload
def tool(func: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    when_to_use: str | None = None,
    tags: Sequence[str] = (),
    timeout: float | None = None,
    max_retries: int = 0,
    version: str = "0.1.0",
    annotations: ToolAnnotations | None = None,
    output_description: str | None = None,
    examples: Sequence[str] = (),
    type: str | None = None,
    layer: str | None = None,
    cost: ToolCost | None = None,
) -> Callable[[Callable[..., Any]], Tool]: ...
def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    when_to_use: str | None = None,
    tags: Sequence[str] = (),
    timeout: float | None = None,
    max_retries: int = 0,
    version: str = "0.1.0",
    annotations: ToolAnnotations | None = None,
    output_description: str | None = None,
    examples: Sequence[str] = (),
    type: str | None = None,
    layer: str | None = None,
    cost: ToolCost | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a (sync or async) function into a :class:`Tool`; use bare or with options.

    The schema comes from the type hints, defaults and docstring. Problems with the signature
    are reported at decoration time, every one of them, naming the parameters.
    """

    def wrap(f: Callable[..., Any]) -> Tool:
        return Tool(
            name=name,
            description=description,
            func=f,
            when_to_use=when_to_use,
            tags=tags,
            timeout=timeout,
            max_retries=max_retries,
            version=version,
            annotations=annotations,
            output_description=output_description,
            examples=examples,
            type=type,
            layer=layer,
            cost=cost,
        )

    if func is not None:
        if not callable(func):
            raise ToolDefinitionError("@tool", f"expected a function, got {func!r}")
        return wrap(func)
    return wrap

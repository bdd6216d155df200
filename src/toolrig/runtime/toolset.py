"""A named collection of tools with its call-name index, swapped atomically on change."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

from toolrig.core.action import Action
from toolrig.core.base import BaseTool
from toolrig.core.errors import ToolDefinitionError, ToolNotFoundError
from toolrig.core.function_tool import Tool
from toolrig.core.suggest import closest

__all__ = ["ToolSet"]


class ToolSet:
    """Tools by name, and their actions by call name (``tool``, ``tool.action``,
    ``tool__action``). Readers never lock: every change publishes new tables at once."""

    def __init__(self) -> None:
        self._tools: dict[str, BaseTool] = {}
        self._index: dict[str, tuple[BaseTool, Action]] = {}

    def register(
        self, tool: BaseTool | type[BaseTool] | Callable[..., Any], *, replace: bool = False
    ) -> BaseTool:
        """Add a tool (an instance, a tool class, or a plain function to wrap with ``@tool``).

        A name already taken is an error unless ``replace``; nothing changes when it fails.
        """
        if isinstance(tool, type) and issubclass(tool, BaseTool):
            tool = tool()
        elif not isinstance(tool, BaseTool):
            if not callable(tool):
                raise ToolDefinitionError(
                    "register", f"expected a tool or a function, got {tool!r}"
                )
            tool = Tool(func=tool)
        name = tool.spec.name
        if name in self._tools and not replace:
            raise ToolDefinitionError(
                name, "a tool with this name is already registered; pass replace=True"
            )
        self.swap(add=[tool])
        return tool

    def unregister(self, name: str) -> BaseTool:
        """Remove and return the tool called ``name``; raises :class:`ToolNotFoundError`."""
        tool = self.get(name)
        self.swap(remove=[name])
        return tool

    def swap(self, add: Sequence[BaseTool] = (), remove: Collection[str] = ()) -> None:
        """Register ``add`` (replacing tools of the same names) and drop ``remove`` in one
        atomic step: calls see either the old set or the new one, never a mix.

        Validates first; on a name given twice or a call-name collision it raises
        :class:`ToolDefinitionError` and changes nothing. Building the tables once makes
        loading thousands of tools linear, where registering one by one is quadratic.
        """
        if not add and not remove:
            return
        replaced = {t.spec.name for t in add} | set(remove)
        tools = {k: v for k, v in self._tools.items() if k not in replaced}
        if replaced.isdisjoint(self._tools):
            index = dict(self._index)
        else:
            index = {k: v for k, v in self._index.items() if v[0].spec.name not in replaced}
        for tool in add:
            name = tool.spec.name
            if name in tools:
                raise ToolDefinitionError(name, "the same tool name is given twice")
            for key, entry in _index_entries(tool).items():
                other = index.get(key)
                if other is not None:
                    raise ToolDefinitionError(
                        name, f"call name {key!r} collides with tool {other[0].spec.name!r}"
                    )
                index[key] = entry
            tools[name] = tool
        self._tools, self._index = tools, index  # publish both at once

    def get(self, name: str) -> BaseTool:
        """The tool called ``name``; raises :class:`ToolNotFoundError` with suggestions."""
        try:
            return self._tools[name]
        except KeyError:
            raise ToolNotFoundError(name, closest(name, self._tools)) from None

    def list_tools(self) -> list[BaseTool]:
        """Registered tools in registration order."""
        return list(self._tools.values())

    def tool_names(self) -> list[str]:
        """Registered tool names in registration order."""
        return list(self._tools)

    def resolve(self, name: str) -> Action | None:
        """The action a call name refers to (``tool``, ``tool.action`` or ``tool__action``)."""
        entry = self._index.get(name)
        return None if entry is None else entry[1]

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[BaseTool]:
        return iter(list(self._tools.values()))

    def missing_message(self, name: str) -> str:
        """Why ``name`` names no tool or action here, with the closest valid names."""
        tool_name, _, action_name = str(name).replace("__", ".").partition(".")
        tool = self._tools.get(tool_name) if isinstance(name, str) else None
        if tool is not None and tool.spec.is_multi_action:
            actions = tool.get_action_names()
            near = closest(action_name, actions) if action_name else []
            message = (
                f"Tool `{tool_name}` has no action {action_name!r}; action not found."
                if action_name
                else f"Tool `{tool_name}` has several actions; name one."
            )
            if near:
                message += f" Did you mean {' or '.join(repr(f'{tool_name}.{a}') for a in near)}?"
            message += f" Available: {', '.join(f'{tool_name}.{a}' for a in actions)}."
        else:
            near = closest(str(name), self._index) if isinstance(name, str) else []
            message = f"Tool {name!r} not found."
            if near:
                message += f" Did you mean {' or '.join(repr(n) for n in near)}?"
            listed = sorted({k for k, (t, a) in self._index.items() if "__" not in k})
            message += f" Available tools: {', '.join(listed[:50]) or '(none)'}."
        return message


def _index_entries(tool: BaseTool) -> dict[str, tuple[BaseTool, Action]]:
    spec = tool.spec
    entries: dict[str, tuple[BaseTool, Action]] = {}
    if not spec.is_multi_action:
        entries[spec.name] = (tool, tool._bound[next(iter(spec.actions))])
        return entries
    for name in spec.actions:
        action = tool._bound[name]
        entries[f"{spec.name}.{name}"] = (tool, action)
        entries[f"{spec.name}__{name}"] = (tool, action)
    return entries

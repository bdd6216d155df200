"""``Catalog``: the one place tools live.

A catalogue holds tools by name and their actions by the call names their
`ActionRef` gives (``tool`` for a single-action tool;
``tool.action`` and ``tool__action`` for the actions of a multi-action tool). Each change bumps
its `version` and drops what was derived from the old one (`Catalog.memo`).
Every change is validated first and then published at once (readers never lock and see either
the old set or the new one), and listeners are told what changed. Executors, providers, the MCP
server and search all take a catalogue."""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from toolrig.core.context._events import Listeners
from toolrig.core.define._action import Action
from toolrig.core.define._base import BaseTool
from toolrig.core.define._function_tool import Tool
from toolrig.core.model._errors import ToolDefinitionError, ToolNotFoundError
from toolrig.core.model._names import ActionRef
from toolrig.core.model._suggest import closest, not_found_message
from toolrig.registry._events import ChangeEvent, ChangeKind, ChangeListener

if TYPE_CHECKING:
    from toolrig.core.model._spec import ToolSpec

__all__ = ["Catalog", "ToolLike", "as_tool"]

T = TypeVar("T")

ToolLike = BaseTool | type[BaseTool] | Callable[..., Any]
"""What `Catalog.add` accepts: a tool, a tool class, or a plain function to wrap."""


def as_tool(item: ToolLike) -> BaseTool:
    """``item`` as a tool: instances as they are, classes instantiated, functions wrapped."""
    if isinstance(item, BaseTool):
        return item
    if isinstance(item, type) and issubclass(item, BaseTool):
        return item()
    if not callable(item):
        raise ToolDefinitionError("catalog", f"expected a tool or a function, got {item!r}")
    return Tool(func=item)


class Catalog:
    """Tools by name, their actions by call name, and listeners told of every change."""

    def __init__(self, tools: Iterable[ToolLike] = ()) -> None:
        self._tools: dict[str, BaseTool] = {}
        self._calls: dict[str, tuple[BaseTool, Action]] = {}
        self._lock = threading.RLock()
        self._listeners: Listeners[ChangeEvent] = Listeners()
        self._version = 0
        self._memo: dict[Hashable, Any] = {}
        items = [as_tool(t) for t in tools]
        if items:
            self.swap(add=items)

    # -- changes ---------------------------------------------------------------------------
    def add(self, tool: ToolLike, *, replace: bool = False) -> BaseTool:
        """Add a tool (an instance, a tool class, or a function to wrap with ``@tool``).

        A name already taken is an error unless ``replace``; nothing changes when it fails.
        """
        added = as_tool(tool)
        with self._lock:
            if added.spec.name in self._tools and not replace:
                raise ToolDefinitionError(
                    added.spec.name,
                    "a tool with this name is already registered; pass replace=True",
                )
            self.swap(add=[added])
        return added

    def remove(self, name: str) -> BaseTool:
        """Remove and return the tool ``name``; raises `ToolNotFoundError`."""
        with self._lock:
            tool = self.get(name)
            self.swap(remove=[name])
        return tool

    def swap(
        self,
        add: Sequence[BaseTool] = (),
        remove: Collection[str] = (),
        *,
        events: Sequence[ChangeEvent] | None = None,
    ) -> None:
        """Put ``add`` in (replacing tools of the same names) and take ``remove`` out, at once.

        Validates first: a name given twice or a call name that collides raises
        `ToolDefinitionError` and changes nothing. Listeners are then told what was
        added, updated and removed, or ``events`` when the caller knows more (such as the file
        each change came from). Building the tables once keeps loading thousands of tools
        linear.
        """
        if not add and not remove:
            self.announce(events or ())
            return
        with self._lock:
            before = self._tools
            replaced = {t.spec.name for t in add} | set(remove)
            tools = {k: v for k, v in before.items() if k not in replaced}
            if replaced.isdisjoint(before):
                calls = dict(self._calls)
            else:
                calls = {k: v for k, v in self._calls.items() if v[0].spec.name not in replaced}
            for tool in add:
                name = tool.spec.name
                if name in tools:
                    raise ToolDefinitionError(name, "the same tool name is given twice")
                for key, entry in _call_entries(tool).items():
                    other = calls.get(key)
                    if other is not None:
                        raise ToolDefinitionError(
                            name, f"call name {key!r} collides with tool {other[0].spec.name!r}"
                        )
                    calls[key] = entry
                tools[name] = tool
            # publish at once: the tables, a new version, and no memo of the old one
            self._tools, self._calls, self._memo = tools, calls, {}
            self._version += 1
            if events is None:
                events = _changes(before, add, remove)
        self._listeners.emit_all(events)

    # -- change events ---------------------------------------------------------------------
    def add_change_listener(self, listener: ChangeListener) -> None:
        """``listener(event)`` is told of tools added, updated and removed (and failed loads)."""
        self._listeners.add(listener)

    def remove_change_listener(self, listener: ChangeListener) -> None:
        """Stop telling ``listener``."""
        self._listeners.remove(listener)

    def announce(self, events: Iterable[ChangeEvent]) -> None:
        """Tell listeners of events that changed no tool (such as a file that failed to load:
        its tools stay in service)."""
        self._listeners.emit_all(events)

    # -- lookups ---------------------------------------------------------------------------
    def get(self, name: str) -> BaseTool:
        """The tool ``name``; raises `ToolNotFoundError` with the closest names."""
        tool = self._tools.get(name)
        if tool is None:
            raise ToolNotFoundError(
                name, closest(str(name), self._tools), message=self.missing_message(name)
            )
        return tool

    def find(self, name: str) -> BaseTool | None:
        """The tool ``name``, or ``None``."""
        return self._tools.get(name)

    def resolve(self, call_name: str) -> Action | None:
        """The action a call name refers to (``tool``, ``tool.action`` or ``tool__action``)."""
        entry = self._calls.get(call_name)
        return None if entry is None else entry[1]

    @property
    def version(self) -> int:
        """A number that changes with every change of the catalogue."""
        return self._version

    def memo(self, key: Hashable, build: Callable[[], T]) -> T:
        """``build()``, made once per version of the catalogue and kept until it changes:
        what is derived from the whole catalogue (the providers' name map, exported tool
        lists) costs a lookup on every later use."""
        memo = self._memo
        try:
            return cast(T, memo[key])
        except KeyError:
            pass
        value = build()
        if memo is self._memo:  # not kept when the catalogue changed meanwhile
            return cast(T, memo.setdefault(key, value))  # two builds at once: the first kept
        return value

    def locate(self, tool: str, action: str) -> tuple[BaseTool, Action] | None:
        """The tool named ``tool`` and its action ``action``, or ``None`` (no call name is
        involved: a record's or a message's two names are enough)."""
        found = self._tools.get(tool)
        bound = None if found is None else found.get_action(action)
        return None if found is None or bound is None else (found, bound)

    def entry(self, call_name: str) -> tuple[BaseTool, Action] | None:
        """The tool and action a call name refers to, or ``None``."""
        return self._calls.get(call_name)

    def missing_message(self, name: object) -> str:
        """Why ``name`` names no tool or action here, with the closest valid names."""
        return not_found_message(name, {n: t.spec for n, t in self._tools.items()})

    def tools(self) -> list[BaseTool]:
        """The tools, in the order they were added."""
        return list(self._tools.values())

    def names(self) -> list[str]:
        """The tool names, in the order they were added."""
        return list(self._tools)

    def specs(
        self,
        *,
        type: str | None = None,
        layer: str | None = None,
        tags: Iterable[str] | None = None,
        match: Literal["any", "all"] = "any",
        name: str | None = None,
    ) -> list[ToolSpec]:
        """Specs of the tools matching every filter given: ``type``, ``layer``, ``tags`` (any
        or all of them, per ``match``) and ``name`` (a glob such as ``"*_analyzer"``)."""
        if match not in ("any", "all"):
            raise ValueError(f"match must be 'any' or 'all', not {match!r}")
        wanted = None if tags is None else ({tags} if isinstance(tags, str) else set(tags))
        out = []
        for tool in self._tools.values():
            spec = tool.spec
            if type is not None and spec.type != type:
                continue
            if layer is not None and spec.layer != layer:
                continue
            if wanted is not None:
                have = set(spec.tags)
                if not (wanted <= have if match == "all" else wanted & have):
                    continue
            if name is not None and not fnmatchcase(spec.name, name):
                continue
            out.append(spec)
        return out

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[BaseTool]:
        return iter(list(self._tools.values()))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} tools={len(self._tools)}>"


def _call_entries(tool: BaseTool) -> dict[str, tuple[BaseTool, Action]]:
    """``tool``'s actions by every call name their `ActionRef` gives."""
    spec = tool.spec
    entries: dict[str, tuple[BaseTool, Action]] = {}
    for name in spec.actions:
        action = tool.get_action(name)
        assert action is not None
        for key in ActionRef(spec.name, name, spec.is_multi_action).call_names:
            entries[key] = (tool, action)
    return entries


def _changes(
    before: dict[str, BaseTool], add: Sequence[BaseTool], remove: Collection[str]
) -> list[ChangeEvent]:
    added = {t.spec.name for t in add}
    events = [
        ChangeEvent(kind=ChangeKind.REMOVED, name=name, version=before[name].spec.version)
        for name in remove
        if name in before and name not in added
    ]
    for tool in add:
        kind = ChangeKind.UPDATED if tool.spec.name in before else ChangeKind.ADDED
        events.append(ChangeEvent(kind=kind, name=tool.spec.name, version=tool.spec.version))
    return events

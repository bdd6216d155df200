"""Provider-safe, reversible function names for every exported action.

LLM APIs accept only ``^[a-zA-Z0-9_-]{1,64}$`` (Gemini also wants a letter or ``_`` first),
while toolrig names may hold dots and spaces and multi-action tools export one function per
action. A `NameMap` gives each action one name valid everywhere and maps it back to the
executor's call name; two actions that would share a name are an error naming both.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ToolDefinitionError
from toolrig.core.model._names import MAX_NAME_LENGTH, ActionRef, provider_safe_name
from toolrig.core.model._spec import ActionSpec, ToolSpec
from toolrig.core.result._result import ToolResult
from toolrig.registry._catalog import Catalog
from toolrig.runtime._executor import ToolExecutor

__all__ = [
    "MAX_NAME_LENGTH",
    "ExportedAction",
    "NameMap",
    "ToolSource",
    "collect_tools",
    "provider_safe_name",
]

ToolSource: TypeAlias = "BaseTool | Catalog | ToolExecutor | NameMap | Iterable[BaseTool]"
"""What export and parse functions accept: a tool, tools, a catalogue (such as a
``Registry``), an executor (its catalogue) or a ready name map."""


def collect_tools(source: ToolSource) -> list[BaseTool]:
    """The tools in ``source`` (a tool, tools, a catalogue or an executor), in order.

    The same tool object given twice counts once.
    """
    if isinstance(source, NameMap):
        raise TypeError("a NameMap holds specs, not tools; pass the tools themselves")
    if isinstance(source, BaseTool):
        items: Iterable[Any] = [source]
    elif isinstance(source, Catalog):
        items = source.tools()
    elif isinstance(source, ToolExecutor):
        items = source.catalog.tools()
    else:
        items = source
    tools: list[BaseTool] = []
    seen: set[int] = set()
    for item in items:
        if not isinstance(item, BaseTool):
            raise TypeError(f"expected toolrig tools, got {item!r:.100}")
        if id(item) not in seen:
            seen.add(id(item))
            tools.append(item)
    return tools


@dataclass(frozen=True, slots=True, kw_only=True)
class ExportedAction:
    """One action as a provider sees it: its function name and what it stands for."""

    provider_name: str
    """The function name sent to the provider (valid everywhere)."""
    call_name: str
    """The name `ToolExecutor` runs: ``tool`` or ``tool__action``."""
    tool: ToolSpec
    action: ActionSpec
    described: str | None = None
    """What the model reads instead of the spec's description (an agent's ``prepare``)."""
    strict: bool | None = None
    """OpenAI strict mode for this action, over the export's (``None``: the export's)."""

    @property
    def ref(self) -> ActionRef:
        """The action by name."""
        return ActionRef(self.tool.name, self.action.name, self.tool.is_multi_action)

    @property
    def description(self) -> str:
        """What the model reads: the action's description (else the tool's) and when to use it
        (``described`` instead, when set)."""
        if self.described is not None:
            return self.described
        text = self.action.description or self.tool.description
        when = self.action.when_to_use or self.tool.when_to_use
        if when:
            text = f"{text}\n\nWhen to use: {when}" if text else f"When to use: {when}"
        return text

    @property
    def title(self) -> str | None:
        """A human-readable title, when one was given."""
        annotations = self.tool.action_annotations(self.action.name)
        return annotations.title or self.tool.display_name


_RECENT_LISTS: Final = 8
"""Name maps (and, in them, their exports) kept for the last lists of tools exported: an agent
that offers the same list every turn pays a lookup. Specs are immutable; a tool whose spec is
replaced is a new key."""
_RECENT: OrderedDict[tuple[int, ...], NameMap] = OrderedDict()
_RECENT_LOCK = threading.Lock()


class NameMap:
    """The exported actions of some tools, by provider name and by executor call name."""

    __slots__ = (
        "_by_call",
        "_by_key",
        "_by_provider",
        "built",
        "entries",
        "exports",
        "reused",
        "strict",
    )

    def __init__(self, entries: Iterable[ExportedAction]) -> None:
        self.entries: tuple[ExportedAction, ...] = tuple(entries)
        self.exports: dict[Hashable, list[dict[str, Any]]] = {}
        """What each provider's exporter made of this map (a map never changes)."""
        self.built = 0
        self.reused = 0
        """How many exports of this map were made, and how many were served from ``exports``."""
        self.strict = False
        """Whether these actions were last exported in OpenAI's strict mode: what the OpenAI
        parsers assume when not told. Each export sets it on the map it exported (a
        catalogue's map is its version's), so two exports of the same tools parse apart."""
        self._by_provider: dict[str, ExportedAction] = {}
        self._by_call: dict[str, ExportedAction] = {}
        self._by_key: dict[tuple[str, str], ExportedAction] = {}
        problems: list[str] = []
        for entry in self.entries:
            other = self._by_provider.get(entry.provider_name)
            if other is not None:
                problems.append(
                    f"`{_label(other)}` and `{_label(entry)}` would both be exported as "
                    f"{entry.provider_name!r}; rename one of them"
                )
                continue
            self._by_provider[entry.provider_name] = entry
            self._by_call[entry.call_name] = entry
            ref = entry.ref
            if entry.call_name == ref.wire_name:  # the catalogue's own names, not an alias
                for key in ref.call_names:
                    self._by_call[key] = entry
            self._by_key[(entry.tool.name, entry.action.name)] = entry
        if problems:
            raise ToolDefinitionError("provider names", problems)

    @classmethod
    def from_specs(cls, specs: Iterable[ToolSpec]) -> NameMap:
        """The map for these tool specs; two tools with one name are an error."""
        entries: list[ExportedAction] = []
        seen: set[str] = set()
        for spec in specs:
            if spec.name in seen:
                raise ToolDefinitionError(
                    "provider names", f"two different tools are both named {spec.name!r}"
                )
            seen.add(spec.name)
            for action in spec.actions.values():
                ref = ActionRef(spec.name, action.name, spec.is_multi_action)
                entries.append(
                    ExportedAction(
                        provider_name=ref.provider_name,
                        call_name=ref.wire_name,
                        tool=spec,
                        action=action,
                    )
                )
        return cls(entries)

    @classmethod
    def from_tools(cls, source: ToolSource) -> NameMap:
        """The map for ``source``; a `NameMap` is returned as it is, and a catalogue's
        (or an executor's) is built once per version of the catalogue."""
        if isinstance(source, NameMap):
            return source
        catalog = source.catalog if isinstance(source, ToolExecutor) else source
        if isinstance(catalog, Catalog):
            return catalog.memo(NameMap, lambda: cls.from_specs(catalog.specs()))
        specs = tuple(t.spec for t in collect_tools(source))
        key = tuple(map(id, specs))  # stable while the map below holds the specs
        with _RECENT_LOCK:
            names = _RECENT.get(key)
            if names is not None:
                _RECENT.move_to_end(key)
                return names
        names = cls.from_specs(specs)
        with _RECENT_LOCK:
            _RECENT[key] = names
            while len(_RECENT) > _RECENT_LISTS:
                _RECENT.popitem(last=False)
        return names

    def __iter__(self) -> Iterator[ExportedAction]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, name: str) -> ExportedAction | None:
        """The action a model called ``name`` (a provider name, or a call name as a fallback)."""
        return self._by_provider.get(name) or self._by_call.get(name)

    def call_name(self, provider_name: str) -> str:
        """The executor call name for ``provider_name``; unknown names come back unchanged
        (so the executor answers ``not_found`` with suggestions)."""
        entry = self.lookup(provider_name)
        return provider_name if entry is None else entry.call_name

    def provider_name(self, call_name: str) -> str:
        """The provider name of an executor call name; unknown names come back unchanged."""
        entry = self._by_call.get(call_name) or self._by_provider.get(call_name)
        return call_name if entry is None else entry.provider_name

    def for_result(self, result: ToolResult) -> ExportedAction | None:
        """The action a result came from, read from its metadata."""
        meta = result.metadata
        if meta is None:
            return None
        entry = self._by_key.get((meta.tool, meta.action or meta.tool))
        return entry if entry is not None else self.lookup(meta.tool)


def _label(entry: ExportedAction) -> str:
    return entry.ref.call_name

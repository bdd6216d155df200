"""Toolsets: which tools a run offers, and under which names, as views over catalogues.

A `Toolset` lists `ToolEntry` items (the name the model calls, the tool and
action that run, and a reason when disabled) for a run. `CatalogToolset` reads a
catalogue live each time (nothing is copied); the others wrap a toolset and change one thing:
combine, filter, prefix, rename, disable. The calls still run through the agent's executor
(``run_tool``), so its middleware, time limits and retries hold for every toolset.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from toolrig.agent._result import RunContext
from toolrig.core.define._base import BaseTool
from toolrig.core.model._names import ActionRef
from toolrig.core.model._options import ToolAnnotations
from toolrig.core.model._spec import ActionSpec, ToolSpec
from toolrig.providers._names import ExportedAction, NameMap, provider_safe_name
from toolrig.registry._catalog import Catalog
from toolrig.runtime._executor import ToolExecutor
from toolrig.runtime._guardrails import InputGuardrail, OutputGuardrail

__all__ = [
    "CatalogToolset",
    "CombinedToolset",
    "Prepare",
    "ToolEntry",
    "Toolset",
    "as_toolset",
]

EntryFilter = Callable[[RunContext[Any], "ToolEntry"], bool]
Prepare = Callable[[RunContext[Any], list["ToolEntry"]], list["ToolEntry"]]
"""``prepare(ctx, entries)``: the entries offered for one step, changed (``dataclasses.replace``
an entry's ``description`` or ``strict``) or left out to hide them; the toolset is untouched."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolEntry:
    """One action as a run offers it."""

    name: str
    """The name the model sees and calls (valid for every provider)."""
    tool: BaseTool
    action: str
    """The action of ``tool`` that runs."""
    disabled: str | None = None
    """Why the action is switched off for this run (not offered; a call gets this reason)."""
    guardrails: tuple[InputGuardrail | OutputGuardrail, ...] = ()
    """More guardrails for the calls of this action (a `GuardedToolset`'s)."""
    description: str | None = None
    """What the model reads instead of the spec's description (set by ``prepare``)."""
    strict: bool | None = None
    """OpenAI strict mode for this action's schema (``None``: the export's; set by
    ``prepare``)."""
    max_result_chars: int | Literal["inherit"] | None = "inherit"
    """The result budget of this action's calls (see `Toolset.with_budget`); ``"inherit"``:
    the agent's. A tool's own ``max_result_chars`` wins over both."""

    @property
    def spec(self) -> ToolSpec:
        """The tool's spec (read, never copied)."""
        return self.tool.spec

    @property
    def action_spec(self) -> ActionSpec:
        """The action's spec."""
        return self.tool.spec.actions[self.action]

    @property
    def annotations(self) -> ToolAnnotations:
        """The action's annotations (the tool's, with the action's overrides)."""
        return self.tool.spec.action_annotations(self.action)


class Toolset(ABC):
    """Tools for a run; compose with `filter`, `prefixed`, `renamed`,
    `disabled` and ``+``."""

    @abstractmethod
    def entries(self, ctx: RunContext[Any]) -> list[ToolEntry]:
        """The actions offered to (or disabled for) the run ``ctx``."""

    def filter(
        self,
        *,
        names: Collection[str] | None = None,
        tags: Collection[str] | None = None,
        annotations: Mapping[str, bool] | None = None,
        where: EntryFilter | None = None,
    ) -> Toolset:
        """Keep the actions that pass every test given: a model-facing or tool name in
        ``names``, a tag in ``tags``, annotation values such as ``{"read_only": True}``, and
        ``where(ctx, entry)``."""
        return FilteredToolset(self, names=names, tags=tags, annotations=annotations, where=where)

    def prefixed(self, prefix: str) -> Toolset:
        """The same actions, called ``{prefix}_{name}``."""
        return PrefixedToolset(self, prefix)

    def renamed(self, names: Mapping[str, str]) -> Toolset:
        """The same actions, with ``{old: new}`` names."""
        return RenamedToolset(self, names)

    def disabled(self, names: Collection[str] | None = None, *, reason: str) -> Toolset:
        """Switch ``names`` (every action when ``None``) off, telling a model that calls one
        ``reason``."""
        return DisabledToolset(self, names, reason)

    def guarded(self, *guardrails: InputGuardrail | OutputGuardrail) -> Toolset:
        """The same actions, each call checked by ``guardrails`` too (after the agent's)."""
        return GuardedToolset(self, guardrails)

    def with_budget(self, max_result_chars: int | None) -> Toolset:
        """The same actions, their results cut to ``max_result_chars`` characters (``None``:
        never) instead of the agent's budget."""
        return BudgetedToolset(self, max_result_chars)

    def __add__(self, other: Toolset) -> Toolset:
        return CombinedToolset([self, other])


class CatalogToolset(Toolset):
    """Every action of a catalogue (or an executor's), read live at each turn."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def entries(self, ctx: RunContext[Any]) -> list[ToolEntry]:
        found: list[ToolEntry] = []
        for tool in self.catalog.tools():
            spec = tool.spec
            for action in spec.actions:
                ref = ActionRef(spec.name, action, spec.is_multi_action)
                found.append(ToolEntry(name=ref.provider_name, tool=tool, action=action))
        return found

    def __repr__(self) -> str:
        return f"CatalogToolset({self.catalog!r})"


class GuardedToolset(Toolset):
    """The actions of ``inner``, their calls checked by more guardrails."""

    def __init__(
        self, inner: Toolset, guardrails: Iterable[InputGuardrail | OutputGuardrail]
    ) -> None:
        self.inner = inner
        self.guardrails = tuple(guardrails)
        if not all(isinstance(g, (InputGuardrail, OutputGuardrail)) for g in self.guardrails):
            raise TypeError("guarded takes InputGuardrail and OutputGuardrail objects")

    def entries(self, ctx: RunContext[Any]) -> list[ToolEntry]:
        return [
            replace(entry, guardrails=(*entry.guardrails, *self.guardrails))
            for entry in self.inner.entries(ctx)
        ]


class CombinedToolset(Toolset):
    """Several toolsets offered together (two actions with one name are an error at export)."""

    def __init__(self, toolsets: Iterable[Toolset]) -> None:
        self.toolsets = tuple(toolsets)

    def entries(self, ctx: RunContext[Any]) -> list[ToolEntry]:
        return [entry for toolset in self.toolsets for entry in toolset.entries(ctx)]


class FilteredToolset(Toolset):
    """The actions of ``inner`` that pass every test given."""

    def __init__(
        self,
        inner: Toolset,
        *,
        names: Collection[str] | None,
        tags: Collection[str] | None,
        annotations: Mapping[str, bool] | None,
        where: EntryFilter | None,
    ) -> None:
        known = set(ToolAnnotations.model_fields)
        unknown = set(annotations or ()) - known
        if unknown:
            raise ValueError(
                f"unknown annotation(s) {sorted(unknown)}; use some of {sorted(known)}"
            )
        self.inner = inner
        self.names = None if names is None else frozenset(names)
        self.tags = None if tags is None else frozenset(tags)
        self.annotations = dict(annotations or {})
        self.where = where

    def _keeps(self, ctx: RunContext[Any], entry: ToolEntry) -> bool:
        if self.names is not None and not ({entry.name, entry.spec.name} & self.names):
            return False
        if self.tags is not None and not (set(entry.spec.tags) & self.tags):
            return False
        marks = entry.annotations
        if any(getattr(marks, key) is not value for key, value in self.annotations.items()):
            return False
        return self.where is None or bool(self.where(ctx, entry))

    def entries(self, ctx: RunContext[Any]) -> list[ToolEntry]:
        return [entry for entry in self.inner.entries(ctx) if self._keeps(ctx, entry)]


class PrefixedToolset(Toolset):
    """The actions of ``inner``, each called ``{prefix}_{name}``."""

    def __init__(self, inner: Toolset, prefix: str) -> None:
        if not prefix:
            raise ValueError("a prefix must not be empty")
        self.inner = inner
        self.prefix = prefix

    def entries(self, ctx: RunContext[Any]) -> list[ToolEntry]:
        return [
            replace(entry, name=provider_safe_name(f"{self.prefix}_{entry.name}"))
            for entry in self.inner.entries(ctx)
        ]


class RenamedToolset(Toolset):
    """The actions of ``inner`` with some of them renamed."""

    def __init__(self, inner: Toolset, names: Mapping[str, str]) -> None:
        bad = [new for new in names.values() if provider_safe_name(new) != new]
        if bad:
            raise ValueError(f"names must match ^[A-Za-z_][A-Za-z0-9_-]{{0,63}}$: {bad}")
        self.inner = inner
        self.names = dict(names)

    def entries(self, ctx: RunContext[Any]) -> list[ToolEntry]:
        return [
            replace(entry, name=self.names.get(entry.name, entry.name))
            for entry in self.inner.entries(ctx)
        ]


class DisabledToolset(Toolset):
    """The actions of ``inner``, with ``names`` (or all) switched off for a reason."""

    def __init__(self, inner: Toolset, names: Collection[str] | None, reason: str) -> None:
        if not reason.strip():
            raise ValueError("say why the tools are disabled: the model reads the reason")
        self.inner = inner
        self.names = None if names is None else frozenset(names)
        self.reason = reason

    def entries(self, ctx: RunContext[Any]) -> list[ToolEntry]:
        return [
            replace(entry, disabled=self.reason)
            if self.names is None or {entry.name, entry.spec.name} & self.names
            else entry
            for entry in self.inner.entries(ctx)
        ]


class BudgetedToolset(Toolset):
    """The actions of ``inner`` with a result budget of their own."""

    def __init__(self, inner: Toolset, max_result_chars: int | None) -> None:
        if max_result_chars is not None and (
            isinstance(max_result_chars, bool) or max_result_chars < 1
        ):
            raise ValueError("max_result_chars must be at least 1 (None: never cut)")
        self.inner = inner
        self.max_result_chars = max_result_chars

    def entries(self, ctx: RunContext[Any]) -> list[ToolEntry]:
        return [
            replace(entry, max_result_chars=self.max_result_chars)
            for entry in self.inner.entries(ctx)
        ]


def as_toolset(source: Toolset | Catalog | ToolExecutor | Iterable[Toolset]) -> Toolset:
    """A toolset from a toolset, a catalogue, an executor, or several toolsets."""
    if isinstance(source, Toolset):
        return source
    if isinstance(source, Catalog):
        return CatalogToolset(source)
    if isinstance(source, ToolExecutor):
        return CatalogToolset(source.catalog)
    return CombinedToolset(as_toolset(item) for item in source)


def name_map(entries: Iterable[ToolEntry]) -> NameMap:
    """What the model is offered: the enabled entries under their names (a clash is an error
    naming both)."""
    return NameMap(
        ExportedAction(
            provider_name=entry.name,
            call_name=entry.name,
            tool=entry.spec,
            action=entry.action_spec,
            described=entry.description,
            strict=entry.strict,
        )
        for entry in entries
        if entry.disabled is None
    )

"""``Registry``: tools from Python, YAML files, folders and plugins, kept current and queried.

Tools run through the composed :class:`~toolrig.ToolExecutor` (``registry.executor``);
``registry.execute`` *is* the executor's method, so the registry adds nothing to a call.
Every change (load, reload, removal) is validated first and then swapped in atomically.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal, TypeVar

from toolrig.core.base import BaseTool
from toolrig.core.errors import ToolDefinitionError
from toolrig.core.spec import ToolSpec
from toolrig.core.validation import ArgumentsInvalid
from toolrig.registry import cost as _cost
from toolrig.registry.batch import RefreshBatch, collector_paused
from toolrig.registry.build import BuildError, build_tool
from toolrig.registry.chains import MissingDependencyError, resolve_chain
from toolrig.registry.definition import ToolDefinition
from toolrig.registry.events import ChangeEvent, ChangeKind, ChangeListener, notify
from toolrig.registry.executors import ExecutorNotFound, definition_targets
from toolrig.registry.intents import Intent, IntentMap
from toolrig.registry.loader import ParsedDefinition, iter_definition_files
from toolrig.registry.report import LoadError, LoadReport
from toolrig.registry.swap import swap_tools
from toolrig.runtime.executor import ToolExecutor

__all__ = ["Registry"]

T = TypeVar("T")


class Registry:
    """A collection of tools with their definitions, sources and planning helpers.

    ``registry.execute(name, arguments)`` / ``registry.execute_sync(...)`` are the executor's
    own methods (validation, timeouts, retries, output checks).
    """

    def __init__(
        self, *, executor: ToolExecutor | None = None, intents: IntentMap | None = None
    ) -> None:
        self.executor = executor if executor is not None else ToolExecutor()
        self.intents = intents if intents is not None else IntentMap()
        self.execute = self.executor.execute
        self.execute_sync = self.executor.execute_sync
        self._defs: dict[str, ParsedDefinition] = {}
        self._files: dict[Path, tuple[str, ...]] = {}
        self._bindings: dict[str, Any] = {}
        self._listeners: tuple[ChangeListener, ...] = ()
        self._watchers: list[Any] = []
        self._mcp_sources: list[Any] = []
        self._index: Any = None  # the search index, built on first search
        self._lock = threading.RLock()

    # -- Python sources --------------------------------------------------------------------
    def add(
        self, tool: BaseTool | type[BaseTool] | Callable[..., Any], *, replace: bool = False
    ) -> BaseTool:
        """Add a tool written in Python (``@tool``, a ``BaseTool`` subclass or instance, or a
        function). A name taken by a definition file is refused even with ``replace``."""
        with self._lock:
            name = _name_of(tool)
            if name is not None and name in self._defs:
                raise ToolDefinitionError(
                    name, f"already defined in {self._defs[name].path}; remove that first"
                )
            existed = name is not None and name in self.executor
            added = self.executor.register(tool, replace=replace)
            kind = ChangeKind.UPDATED if existed else ChangeKind.ADDED
            event = ChangeEvent(kind=kind, name=added.spec.name, version=added.spec.version)
        notify(self._listeners, [event])
        return added

    def remove(self, name: str) -> None:
        """Remove the tool ``name`` (until its file changes again); raises if unknown."""
        with self._lock:
            tool = self.executor.unregister(name)
            parsed = self._defs.pop(name, None)
            if parsed is not None and parsed.path is not None:
                kept = tuple(n for n in self._files.get(parsed.path, ()) if n != name)
                self._files[parsed.path] = kept
        notify(
            self._listeners,
            [ChangeEvent(kind=ChangeKind.REMOVED, name=name, version=tool.spec.version)],
        )

    def register_tool(self, name: str) -> Callable[[T], T]:
        """Decorator binding a function, tool class or object to the definition ``name``.

        Works before or after the definition loads; the binding outlives reloads of the file.
        """

        def bind(obj: T) -> T:
            events: list[ChangeEvent] = []
            with self._lock:
                parsed = self._defs.get(name)
                if parsed is not None:
                    tool = self._build_checked(parsed, obj)
                    swap_tools(self.executor, [tool])
                    events.append(
                        ChangeEvent(
                            kind=ChangeKind.UPDATED,
                            name=name,
                            path=parsed.path,
                            version=tool.spec.version,
                        )
                    )
                self._bindings[name] = obj
            notify(self._listeners, events)
            return obj

        return bind

    # -- YAML sources ----------------------------------------------------------------------
    def load(self, path: str | Path) -> LoadReport:
        """Load a definition file, or every ``*.yaml``/``*.yml`` under a folder."""
        path = Path(path)
        return self.load_folder(path) if path.is_dir() else self.load_file(path)

    def load_file(self, path: str | Path) -> LoadReport:
        """Load (or reload) one definition file."""
        if not Path(path).is_file():
            message = "no such file"
            return LoadReport(
                errors=(LoadError(path=Path(path), line=None, field=None, message=message),)
            )
        return self.refresh([path])

    def load_folder(self, folder: str | Path) -> LoadReport:
        """Load every definition file under ``folder``, recursively; never stops at a bad one."""
        folder = Path(folder)
        if not folder.is_dir():
            error = LoadError(path=folder, line=None, field=None, message="no such folder")
            return LoadReport(errors=(error,))
        return self.refresh(iter_definition_files(folder))

    def load_plugins(self, group: str = "toolrig.tools") -> LoadReport:
        """Load the tools installed packages declare in the entry-point ``group``."""
        from toolrig.registry.plugins import load_plugins

        return load_plugins(self, group)

    def refresh(self, paths: Iterable[str | Path]) -> LoadReport:
        """Bring the tools of the files ``paths`` up to date: load new and changed files, drop
        the tools of deleted ones. A file that fails keeps its previous tools in service."""
        absolute = [Path(os.path.abspath(p)) for p in paths]
        absolute.sort(key=lambda p: p.is_file())  # deletions first: a renamed file keeps its tools
        with self._lock, collector_paused(len(absolute) > 1):
            batch = RefreshBatch(self)
            for path in absolute:
                batch.apply(path)
            batch.commit()
        notify(self._listeners, batch.events)
        return LoadReport(loaded=tuple(batch.loaded), errors=tuple(batch.errors))

    def watch(self, folder: str | Path, *, debounce: float = 0.05) -> Any:
        """Load ``folder`` and keep it current: created, changed, deleted and renamed files are
        applied within ``debounce`` seconds of the last write. Returns the running watcher
        (``.stop()``, a context manager; ``.report`` is the initial load)."""
        from toolrig.registry.watch import Watcher

        watcher = Watcher(self, Path(folder), debounce=debounce)
        watcher.start()
        self._watchers.append(watcher)
        return watcher

    # -- change events ---------------------------------------------------------------------
    def add_change_listener(self, listener: ChangeListener) -> None:
        """``listener(event)`` is told of tools added, updated, removed and of failed loads."""
        self._listeners = (*self._listeners, listener)

    def remove_change_listener(self, listener: ChangeListener) -> None:
        """Stop telling ``listener``."""
        self._listeners = tuple(x for x in self._listeners if x is not listener)

    # -- queries ---------------------------------------------------------------------------
    def get(self, name: str) -> BaseTool:
        """The tool ``name``; raises :class:`~toolrig.ToolNotFoundError` with suggestions."""
        return self.executor.get(name)

    def names(self) -> list[str]:
        """Tool names, in registration order."""
        return self.executor.tool_names()

    def definition(self, name: str) -> ToolDefinition | None:
        """The YAML definition of ``name`` (``None`` for tools written in Python)."""
        self.get(name)
        parsed = self._defs.get(name)
        return None if parsed is None else parsed.definition

    def source(self, name: str) -> Path | None:
        """The file ``name`` was loaded from (``None`` for tools written in Python)."""
        self.get(name)
        parsed = self._defs.get(name)
        return None if parsed is None else parsed.path

    def list_tools(
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
        wanted = set(tags) if tags is not None else None
        out = []
        for tool in self.executor.list_tools():
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

    def describe(self, name: str) -> dict[str, Any]:
        """Everything known about ``name``: its spec as JSON data, source file and executor."""
        spec = self.get(name).spec
        data = spec.model_dump(mode="json", exclude_none=True)
        parsed = self._defs.get(name)
        data["source"] = None if parsed is None or parsed.path is None else str(parsed.path)
        data["executor"] = None if parsed is None else parsed.definition.executor
        data["bound"] = name in self._bindings or parsed is None
        return data

    def validate_params(self, tool: str, params: Mapping[str, Any]) -> tuple[bool, str]:
        """``(True, "")`` when ``params`` suit the tool (or ``tool.action``), else
        ``(False, message)`` with the message a model would get."""
        action = self.executor.resolve(tool)
        if action is None:
            return False, f"no tool or action named {tool!r}"
        try:
            action.validator.validate(params, strict=self.executor.strict)
        except ArgumentsInvalid as exc:
            return False, exc.error.message
        return True, ""

    def __contains__(self, name: object) -> bool:
        return name in self.executor

    def __len__(self) -> int:
        return len(self.executor)

    # -- planning --------------------------------------------------------------------------
    def infer_tool_chain(self, name: str) -> list[str]:
        """``name`` and everything it needs, dependencies first, each once, in a stable order.

        Raises :class:`DependencyCycleError` or :class:`MissingDependencyError`.
        """
        return resolve_chain([name], self._dependencies)

    def select_tools_for_intent(
        self, intent: Intent, entities: Iterable[str] | Mapping[str, Any] = ()
    ) -> list[str]:
        """The tools for ``intent`` (see :class:`IntentMap`) plus those its ``entities`` call
        for, with their dependencies, in order and without duplicates. When the table has no
        entry for the intent, tool search picks the tools from the intent's words."""
        from toolrig.registry.search import select_tools_for_intent

        return select_tools_for_intent(
            self.intents, self.search_index, self._dependencies, intent, entities
        )

    def search(
        self,
        query: str,
        *,
        k: int = 5,
        filters: Any = None,
        mode: Literal["auto", "lexical", "dense", "fused"] = "auto",
        group: Literal["action", "tool"] = "action",
    ) -> list[Any]:
        """The actions (or tools) that fit ``query``, best first, with scores.

        The index follows the registry (register, unregister, hot reload) incrementally; see
        ``docs/search.md`` for ranking, filters and the optional ``search`` extra.
        """
        hits: list[Any] = self.search_index().search(
            query, k=k, filters=filters, mode=mode, group=group
        )
        return hits

    def search_index(self) -> Any:
        """The search index over this registry (built on first use, then kept current)."""
        with self._lock:
            if self._index is None:
                from toolrig.registry.search import attach

                self._index = attach(self)
            return self._index

    def estimate_cost(self, tool: str, params: Mapping[str, Any] | None = None) -> float:
        """``base_cost + per_item_cost x items`` for one call (0 for tools without cost)."""
        action = self.executor.resolve(tool)
        if action is None:
            raise MissingDependencyError(tool, None)
        return _cost.estimate_spec_cost(self.get(action.tool).spec, params, action.name)

    def estimate_plan_cost(self, steps: Iterable[_cost.Step]) -> _cost.PlanCost:
        """The summed estimate of ``steps`` (names, ``(name, params)`` or mappings)."""
        out = []
        for step in steps:
            name, params = _cost.split_step(step)
            out.append((name, self.estimate_cost(name, params)))
        return _cost.plan_cost(out)

    def _dependencies(self, name: str) -> tuple[str, ...] | None:
        tool = self.executor._tools.get(name)
        return None if tool is None else tool.spec.dependencies

    # -- lifecycle -------------------------------------------------------------------------
    def add_mcp_server(
        self,
        *,
        prefix: str,
        command: str | Sequence[str] | None = None,
        url: str | None = None,
        **options: Any,
    ) -> Any:
        """Register the tools of an MCP server (``command``: stdio, ``url``: streamable HTTP)
        as ``prefix__name``; calls go through this registry's executor. Needs the ``mcp``
        extra."""
        from toolrig.mcp.client import add_mcp_server

        source = add_mcp_server(self, prefix=prefix, command=command, url=url, **options)
        self._mcp_sources.append(source)
        return source

    def close(self) -> None:
        """Stop watchers, MCP connections and the executor's worker threads."""
        for watcher in self._watchers:
            watcher.stop()
        self._watchers.clear()
        for source in self._mcp_sources:
            source.close(remove_tools=False)
        self._mcp_sources.clear()
        self.executor.close()

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Registry tools={len(self)} files={len(self._files)}>"

    # -- building --------------------------------------------------------------------------
    def _build(self, parsed: ParsedDefinition, bound: Any) -> BaseTool:
        try:
            return build_tool(parsed.definition, definition_targets(parsed.definition, bound))
        except ExecutorNotFound as exc:
            raise BuildError([(("executor",), f"bound code does not fit: {exc}")]) from None

    def _build_checked(self, parsed: ParsedDefinition, bound: Any) -> BaseTool:
        try:
            return self._build(parsed, bound)
        except BuildError as exc:
            raise ToolDefinitionError(
                parsed.definition.name, [m for _, m in exc.problems]
            ) from None


def _name_of(tool: Any) -> str | None:
    if isinstance(tool, BaseTool):
        return tool.spec.name
    if isinstance(tool, type) and issubclass(tool, BaseTool):
        return tool.name or None
    return getattr(tool, "__name__", None)

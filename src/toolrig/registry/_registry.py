"""``Registry``: a catalogue of tools plus its sources (YAML files and folders, plugins, code
bound to definitions), dependency chains, intents and cost estimates.

A registry *is* a `Catalog`: pass it wherever tools are taken
(``ToolExecutor(registry)``, ``to_openai_chat_tools(registry)``, the MCP server, search).
Running calls is the executor's job; searching is `toolrig.search`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ToolDefinitionError
from toolrig.core.schema._validation import ArgumentsInvalid
from toolrig.registry import _cost
from toolrig.registry._catalog import Catalog, ToolLike, as_tool
from toolrig.registry._chains import resolve_chain
from toolrig.registry._definition import ToolDefinition
from toolrig.registry._intents import IntentMap
from toolrig.registry._plugins import load_plugins
from toolrig.registry._report import LoadReport
from toolrig.registry._sources import YamlSource
from toolrig.registry._watch import Watcher

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Catalog):
    """A catalogue with its sources: Python tools, YAML definitions, plugins and intents."""

    def __init__(self, tools: Iterable[ToolLike] = (), *, intents: IntentMap | None = None) -> None:
        super().__init__(tools)
        self.yaml = YamlSource(self)
        """The YAML definitions loaded into this registry and the code bound to them."""
        self.intents = intents if intents is not None else IntentMap()
        self._closers: list[Callable[[], None]] = []

    # -- Python sources --------------------------------------------------------------------
    def add(self, tool: ToolLike, *, replace: bool = False) -> BaseTool:
        """Add a tool written in Python (``@tool``, a ``BaseTool`` subclass or instance, or a
        function). A name taken by a definition file is refused even with ``replace``."""
        added = as_tool(tool)
        with self.yaml.lock:
            where = self.yaml.path_of(added.spec.name)
            if self.yaml.definition(added.spec.name) is not None:
                raise ToolDefinitionError(
                    added.spec.name, f"already defined in {where}; remove that first"
                )
            return super().add(added, replace=replace)

    def remove(self, name: str) -> BaseTool:
        """Remove the tool ``name`` (a YAML tool until its file changes again); raises
        `ToolNotFoundError` if unknown."""
        with self.yaml.lock:
            tool = super().remove(name)
            self.yaml.forget(name)
        return tool

    def bind(self, name: str) -> Callable[[T], T]:
        """Decorator binding a function, tool class or object to the YAML definition ``name``
        (before or after it loads; the binding outlives reloads)."""
        return self.yaml.bind(name)

    # -- YAML sources ----------------------------------------------------------------------
    def load(self, path: str | Path) -> LoadReport:
        """Load a definition file, or every ``*.yaml``/``*.yml`` under a folder."""
        return self.yaml.load(path)

    def load_file(self, path: str | Path) -> LoadReport:
        """Load (or reload) one definition file."""
        return self.yaml.load_file(path)

    def load_folder(self, folder: str | Path) -> LoadReport:
        """Load every definition file under ``folder``, recursively; never stops at a bad one."""
        return self.yaml.load_folder(folder)

    def refresh(self, paths: Iterable[str | Path]) -> LoadReport:
        """Bring the tools of the files ``paths`` up to date (see `YamlSource.refresh`)."""
        return self.yaml.refresh(paths)

    def watch(self, folder: str | Path, *, debounce: float = 0.05) -> Watcher:
        """Load ``folder`` and keep it current (see `YamlSource.watch`)."""
        return self.yaml.watch(folder, debounce=debounce)

    def load_plugins(self, group: str = "toolrig.tools") -> LoadReport:
        """Load the tools installed packages declare in the entry-point ``group``."""
        return load_plugins(self, group)

    # -- queries ---------------------------------------------------------------------------
    def definition(self, name: str) -> ToolDefinition | None:
        """The YAML definition of ``name`` (``None`` for tools written in Python)."""
        self.get(name)
        return self.yaml.definition(name)

    def source(self, name: str) -> Path | None:
        """The file ``name`` was loaded from (``None`` for tools written in Python)."""
        self.get(name)
        return self.yaml.path_of(name)

    def describe(self, name: str) -> dict[str, Any]:
        """Everything known about ``name``: its spec as JSON data, source file and code."""
        data = self.get(name).spec.model_dump(mode="json", exclude_none=True)
        definition = self.yaml.definition(name)
        path = self.yaml.path_of(name)
        data["source"] = None if path is None else str(path)
        data["executor"] = None if definition is None else definition.executor
        data["bound"] = definition is None or self.yaml.is_bound(name)
        return data

    def validate_params(self, tool: str, params: Mapping[str, Any]) -> tuple[bool, str]:
        """``(True, "")`` when ``params`` suit the tool (or ``tool.action``), else
        ``(False, message)`` with the message a model would get."""
        action = self.resolve(tool)
        if action is None:
            return False, self.missing_message(tool)
        try:
            action.validator.validate(params)
        except ArgumentsInvalid as exc:
            return False, exc.error.message
        return True, ""

    # -- planning --------------------------------------------------------------------------
    def infer_tool_chain(self, name: str) -> list[str]:
        """``name`` and everything it needs, dependencies first, each once, in a stable order.

        Raises `DependencyCycleError` or `MissingDependencyError`.
        """
        return resolve_chain([name], self._dependencies)

    def estimate_cost(self, tool: str, params: Mapping[str, Any] | None = None) -> float:
        """``base_cost + per_item_cost x items`` for one call (0 for tools without cost);
        raises `ToolNotFoundError` for an unknown name."""
        action = self.resolve(tool)
        if action is None:
            self.get(tool)  # raises, with the one not-found message
            raise AssertionError("unreachable")  # pragma: no cover
        return _cost.estimate_spec_cost(self.get(action.tool).spec, params, action.name)

    def estimate_plan_cost(self, steps: Iterable[_cost.Step]) -> _cost.PlanCost:
        """The summed estimate of ``steps`` (names, ``(name, params)`` or mappings)."""
        out = []
        for step in steps:
            name, params = _cost.split_step(step)
            out.append((name, self.estimate_cost(name, params)))
        return _cost.plan_cost(out)

    def _dependencies(self, name: str) -> tuple[str, ...] | None:
        tool = self.find(name)
        return None if tool is None else tool.spec.dependencies

    # -- lifecycle -------------------------------------------------------------------------
    def own(self, close: Callable[[], None]) -> None:
        """Call ``close`` when the registry closes (an MCP connection feeding it, say)."""
        self._closers.append(close)

    def close(self) -> None:
        """Stop watchers and everything the registry owns."""
        self.yaml.close()
        closers, self._closers = self._closers, []
        for close in reversed(closers):
            close()

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Registry tools={len(self)} files={len(self.yaml.files())}>"

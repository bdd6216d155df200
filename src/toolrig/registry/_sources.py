"""``YamlSource``: tools defined in YAML files, kept in step with a catalogue.

The source owns what the catalogue does not know: each tool's parsed definition, the tool names
each file defines, and the Python code bound to definition names. Loading is validate-first: a
file that fails keeps its previous tools in service. A first load never imports the code named
by ``executor:`` (that happens on the first call); a reload, which replaces a tool in service,
imports it first and keeps the previous version when it cannot be imported.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ToolDefinitionError
from toolrig.registry._batch import RefreshBatch, collector_paused
from toolrig.registry._build import BuildError, build_tool
from toolrig.registry._catalog import Catalog
from toolrig.registry._definition import ToolDefinition
from toolrig.registry._events import ChangeEvent, ChangeKind
from toolrig.registry._executors import ExecutorNotFound, definition_targets
from toolrig.registry._loader import ParsedDefinition, iter_definition_files
from toolrig.registry._report import LoadError, LoadReport
from toolrig.registry._watch import Watcher

__all__ = ["YamlSource"]

T = TypeVar("T")


class YamlSource:
    """Definition files and folders loaded into ``catalog``, with the code bound to them."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._defs: dict[str, ParsedDefinition] = {}
        self._files: dict[Path, tuple[str, ...]] = {}
        self._bindings: dict[str, Any] = {}
        self._watchers: list[Watcher] = []
        self.lock = threading.RLock()
        """Held while the source changes (loads, bindings, removals)."""

    # -- loading ---------------------------------------------------------------------------
    def load(self, path: str | Path) -> LoadReport:
        """Load a definition file, or every ``*.yaml``/``*.yml`` under a folder."""
        path = Path(path)
        return self.load_folder(path) if path.is_dir() else self.load_file(path)

    def load_file(self, path: str | Path) -> LoadReport:
        """Load (or reload) one definition file."""
        if not Path(path).is_file():
            error = LoadError(path=Path(path), line=None, field=None, message="no such file")
            return LoadReport(errors=(error,))
        return self.refresh([path])

    def load_folder(self, folder: str | Path) -> LoadReport:
        """Load every definition file under ``folder``, recursively; never stops at a bad one."""
        folder = Path(folder)
        if not folder.is_dir():
            error = LoadError(path=folder, line=None, field=None, message="no such folder")
            return LoadReport(errors=(error,))
        return self.refresh(iter_definition_files(folder))

    def refresh(self, paths: Iterable[str | Path]) -> LoadReport:
        """Bring the tools of the files ``paths`` up to date: load new and changed files, drop
        the tools of deleted ones. A file that fails keeps its previous tools in service."""
        absolute = [Path(os.path.abspath(p)) for p in paths]
        # deletions first: a renamed file keeps its tools (each file is looked up once)
        found = sorted(((p, p.is_file()) for p in absolute), key=lambda entry: entry[1])
        with self.lock, collector_paused(len(found) > 1):
            batch = RefreshBatch(
                defs=self._defs, files=self._files, build=self._build, catalog=self.catalog
            )
            for path, exists in found:
                batch.apply(path, exists)
            state = batch.commit()
            if state is None:
                self.catalog.announce(batch.events)
            else:
                self._defs, self._files = state
        return LoadReport(loaded=tuple(batch.loaded), errors=tuple(batch.errors))

    def watch(self, folder: str | Path, *, debounce: float = 0.05) -> Watcher:
        """Load ``folder`` and keep it current: created, changed, deleted and renamed files are
        applied within ``debounce`` seconds of the last write. Returns the running watcher
        (``.stop()``, a context manager; ``.report`` is the initial load)."""
        watcher = Watcher(
            Path(folder),
            load_folder=self.load_folder,
            refresh=self.refresh,
            known_files=lambda: list(self._files),
            debounce=debounce,
        )
        watcher.start()
        self._watchers.append(watcher)
        return watcher

    def close(self) -> None:
        """Stop every watcher."""
        for watcher in self._watchers:
            watcher.stop()
        self._watchers.clear()

    # -- bindings --------------------------------------------------------------------------
    def bind(self, name: str) -> Callable[[T], T]:
        """Decorator binding a function, tool class or object to the definition ``name``.

        Works before or after the definition loads; the binding outlives reloads of the file.
        """

        def bind(obj: T) -> T:
            with self.lock:
                parsed = self._defs.get(name)
                if parsed is not None:
                    tool = self._build_checked(parsed, obj)
                    event = ChangeEvent(
                        kind=ChangeKind.UPDATED,
                        name=name,
                        path=parsed.path,
                        version=tool.spec.version,
                    )
                    self.catalog.swap([tool], events=[event])
                self._bindings[name] = obj
            return obj

        return bind

    # -- what the source knows -------------------------------------------------------------
    def definition(self, name: str) -> ToolDefinition | None:
        """The YAML definition of ``name`` (``None`` when no file defines it)."""
        parsed = self._defs.get(name)
        return None if parsed is None else parsed.definition

    def path_of(self, name: str) -> Path | None:
        """The file that defines ``name`` (``None`` when no file defines it)."""
        parsed = self._defs.get(name)
        return None if parsed is None else parsed.path

    def is_bound(self, name: str) -> bool:
        """True when Python code was bound to the definition ``name``."""
        return name in self._bindings

    def files(self) -> list[Path]:
        """The files loaded, each with at least one tool or a failure remembered."""
        return list(self._files)

    def forget(self, name: str) -> None:
        """Drop the definition ``name`` (its tool was removed; it returns when its file
        changes again)."""
        with self.lock:
            parsed = self._defs.pop(name, None)
            if parsed is not None and parsed.path is not None:
                kept = tuple(n for n in self._files.get(parsed.path, ()) if n != name)
                self._files[parsed.path] = kept

    # -- building --------------------------------------------------------------------------
    def _build(self, parsed: ParsedDefinition, replacing: bool = False) -> BaseTool:
        """The tool of ``parsed``; when it would replace a tool in service (a reload), its code
        named by import path is imported first and the build refused if that fails, so the
        working version stays."""
        name = parsed.definition.name
        bound = self._bindings.get(name)
        previous = self._defs.get(name)
        if replacing and bound is None and previous is not None:
            lost = sorted(_without_code(parsed.definition) - _without_code(previous.definition))
            if lost:
                what = "the tool" if lost == [""] else "action(s) " + ", ".join(lost)
                raise BuildError(
                    [
                        (
                            ("executor",),
                            f"{what} would no longer name an `executor` and no code is bound "
                            "to it, so the version in service keeps running: restore the "
                            "`executor:` line, or bind code with registry.bind() first",
                        )
                    ]
                )
        try:
            targets = definition_targets(parsed.definition, bound)
            tool = build_tool(parsed.definition, targets)
        except ExecutorNotFound as exc:
            raise BuildError([(("executor",), f"bound code does not fit: {exc}")]) from None
        if replacing and targets.check is not None:
            problems = targets.check()
            if problems:
                raise BuildError(problems)
        return tool

    def _build_checked(self, parsed: ParsedDefinition, bound: Any) -> BaseTool:
        try:
            return build_tool(parsed.definition, definition_targets(parsed.definition, bound))
        except ExecutorNotFound as exc:
            raise ToolDefinitionError(
                parsed.definition.name, f"bound code does not fit: {exc}"
            ) from None
        except BuildError as exc:
            raise ToolDefinitionError(
                parsed.definition.name, [m for _, m in exc.problems]
            ) from None


def _without_code(d: ToolDefinition) -> set[str]:
    """The actions of ``d`` that would run no code unless some is bound (``""``: the tool
    itself, for a single-action tool)."""
    if d.executor:
        return set()
    if d.actions is not None:
        return {name for name, action in d.actions.items() if not action.executor}
    return {""}

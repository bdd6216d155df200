"""One refresh of YAML sources: every file read and built first, then all changes swapped in
at once, so a broken file never leaves the registry half updated."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ToolDefinitionError
from toolrig.registry._build import BuildError
from toolrig.registry._catalog import Catalog
from toolrig.registry._events import ChangeEvent, ChangeKind
from toolrig.registry._loader import ParsedDefinition, error_at, read_file
from toolrig.registry._report import LoadError

__all__ = ["RefreshBatch", "collector_paused"]


class RefreshBatch:
    """One refresh: files read and built first, then every change swapped in at once.

    ``defs`` and ``files`` are the source's current definitions and the tool names of each
    file; ``build(parsed, replacing)`` turns a parsed definition into a tool (``replacing``: it
    would replace a tool in service, so everything it needs is checked first, its code's
    import included); ``catalog`` is where tools live (a name it holds that no file defines
    belongs to Python code).
    """

    def __init__(
        self,
        *,
        defs: Mapping[str, ParsedDefinition],
        files: Mapping[Path, tuple[str, ...]],
        build: Callable[[ParsedDefinition, bool], BaseTool],
        catalog: Catalog,
    ) -> None:
        self._old_defs = defs
        self._old_files = files
        self._build = build
        self._catalog = catalog
        self.add: list[BaseTool] = []
        self.remove: set[str] = set()
        self.defs: dict[str, ParsedDefinition] = {}
        self.files: dict[Path, tuple[str, ...] | None] = {}
        self.events: list[ChangeEvent] = []
        self.errors: list[LoadError] = []
        self.loaded: list[str] = []

    def apply(self, path: Path, exists: bool) -> None:
        """Read and build the file ``path`` (or note its deletion when it no longer
        ``exists``); nothing is published yet."""
        old = self._old_files.get(path, ())
        if not exists:
            self.files[path] = None
            self.remove.update(old)
            for name in old:
                self.events.append(ChangeEvent(kind=ChangeKind.REMOVED, name=name, path=path))
            return
        parsed, errors = read_file(path)
        tools: list[tuple[ParsedDefinition, BaseTool]] = []
        for p in parsed if not errors else ():
            name = p.definition.name
            owner = self.defs.get(name)
            if owner is None and name not in self.remove:  # a name being removed is free
                owner = self._old_defs.get(name)
            if (owner is not None and owner.path != path) or (
                owner is None and name in self._catalog and name not in self.remove
            ):
                where = owner.path if owner is not None else "Python code"
                errors.append(
                    error_at(
                        path,
                        p.node,
                        ("name",),
                        f"tool {name!r} is already defined in {where}",
                        name,
                    )
                )
                continue
            try:
                tools.append((p, self._build(p, name in self._old_defs)))
            except BuildError as exc:
                errors.extend(error_at(path, p.node, loc, m, name) for loc, m in exc.problems)
        names = [p.definition.name for p in parsed]
        if len(set(names)) != len(names):
            errors.append(error_at(path, None, (), "the file defines the same tool twice"))
        if errors:
            self.errors.extend(errors)
            self.events.append(
                ChangeEvent(
                    kind=ChangeKind.FAILED,
                    name=_only({e.tool for e in errors if e.tool} or set(old)),
                    path=path,
                    errors=tuple(errors),
                )
            )
            return
        self.files[path] = tuple(names)
        self.remove.update(n for n in old if n not in names)
        for name in old:
            if name not in names:
                self.events.append(ChangeEvent(kind=ChangeKind.REMOVED, name=name, path=path))
        for p, tool in tools:
            name = p.definition.name
            kind = ChangeKind.UPDATED if name in self._old_defs else ChangeKind.ADDED
            self.events.append(
                ChangeEvent(kind=kind, name=name, path=path, version=tool.spec.version)
            )
            self.defs[name] = ParsedDefinition(p.definition, path, None)  # drop the YAML tree
            self.add.append(tool)
            self.loaded.append(name)

    def commit(
        self,
    ) -> tuple[dict[str, ParsedDefinition], dict[Path, tuple[str, ...]]] | None:
        """Swap every change into the catalogue at once and return the source's new
        definitions and files; ``None`` (and a failure event) when the swap is refused."""
        added = {t.spec.name for t in self.add}
        try:
            self._catalog.swap(self.add, self.remove - added, events=self.events)
        except ToolDefinitionError as exc:  # a call name clashes with a tool written in Python
            error = LoadError(path=None, line=None, field=None, message=str(exc))
            self.errors.append(error)
            self.events = [ChangeEvent(kind=ChangeKind.FAILED, name=None, errors=(error,))]
            self.loaded.clear()
            return None
        defs = (
            {k: v for k, v in self._old_defs.items() if k not in self.remove}
            if self.remove
            else dict(self._old_defs)
        )
        defs.update(self.defs)
        files = dict(self._old_files)
        for path, names in self.files.items():
            if names is None:
                files.pop(path, None)
            else:
                files[path] = names
        return defs, files


def _only(names: set[str]) -> str | None:
    return next(iter(names)) if len(names) == 1 else None


@contextmanager
def collector_paused(pause: bool) -> Iterator[None]:
    """Pause the cyclic garbage collector while a batch allocates many long-lived objects
    (it would otherwise rescan them again and again, doubling the load time)."""
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
